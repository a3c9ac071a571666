// SURT (Sort-friendly URI Reordering Transform) keys, as the web-archiving
// tools compute them for CDX/CDXJ indexes: the host's labels reversed and
// joined by commas, then ')' and the path, so that one site's URLs sort
// together. Matches the Internet Archive's `surt` package with its defaults
// (what pywb and warcio use): "http://www.Example.com:8080/A/?b=2&a=1#x" →
// "com,example:8080)/a?a=1&b=2".
//
// Steps (IA's "Google URL canonicalisation" plus the SURT rules):
//   - scheme, user info and fragment dropped; default ports (80, 443) dropped;
//   - host lower case, a leading "www" or "wwwN" label dropped, labels
//     reversed (IPv4 addresses too, as `surt` does by default);
//   - %-escapes decoded repeatedly, then bytes <= 0x20, >= 0x7f, '#' and '%'
//     escaped again (upper-case hex); everything lower-cased;
//   - a trailing '/' of a path longer than "/" dropped; an empty query
//     dropped; query arguments sorted (by byte order).
// Departure: session-id parameters (jsessionid, PHPSESSID, ...) are kept.
//
// Example:
//   std::string key = sieve::SurtKey("http://www.archive.org/goo/?b&a");
//   // key == "org,archive)/goo?a&b"
#ifndef SIEVE_PARSE_SURT_H_
#define SIEVE_PARSE_SURT_H_

#include <string>
#include <string_view>

namespace sieve {

// The SURT key of an absolute URL. A string without "://" (dns:, warcinfo:)
// comes back lower-cased but otherwise unchanged; "" gives "-" (as `surt`).
// Cost: O(|url| log |url|) (the query sort).
std::string SurtKey(std::string_view url);

}  // namespace sieve

#endif  // SIEVE_PARSE_SURT_H_
