// The browser steps around libcurl's URL parser: pre-processing, scheme
// handling, reference resolution and the canonical components. Private to
// sieve::parse; parse/url.h is the API.
#ifndef SIEVE_PARSE_INTERNAL_URL_CANON_H_
#define SIEVE_PARSE_INTERNAL_URL_CANON_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace sieve::url_internal {

// A URL in canonical form, each piece already escaped and normalised.
struct UrlComponents {
  std::string scheme;    // "http" or "https"
  std::string userinfo;  // "user", "user:pass" or "" (none)
  std::string host;      // lower-case ASCII, IPv4 dotted quad, or "[ipv6]"
  std::string
      port;  // decimal without leading zeros; "" for the scheme's default
  std::string path;   // starts with '/', dot segments removed
  std::string query;  // without the '?'
  bool has_query = false;

  int EffectivePort() const;
  std::string Assemble() const;  // scheme://[userinfo@]host[:port]path[?query]
};

// WHATWG basic-URL-parser pre-processing: strips leading and trailing C0
// controls and spaces, removes every tab, LF and CR.
std::string Preprocess(std::string_view in);

// Resolves `href` against `base` (which may be empty when `href` is absolute).
// Both are pre-processed here. Errors: InvalidArgument.
absl::StatusOr<UrlComponents> ResolveComponents(std::string_view base,
                                                std::string_view href);

}  // namespace sieve::url_internal

#endif  // SIEVE_PARSE_INTERNAL_URL_CANON_H_
