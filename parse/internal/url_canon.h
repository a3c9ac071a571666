// The browser steps around libcurl's URL parser: pre-processing, scheme
// handling, reference resolution and the canonical components. Private to
// sieve::parse; parse/url.h is the API.
#ifndef SIEVE_PARSE_INTERNAL_URL_CANON_H_
#define SIEVE_PARSE_INTERNAL_URL_CANON_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "parse/internal/fast_path.h"
#include "parse/url.h"

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
// Both are pre-processed here. Errors: InvalidArgument. `resolver` picks the
// code that merges paths and checks hosts; both give the same URLs.
absl::StatusOr<UrlComponents> ResolveComponents(
    std::string_view base, std::string_view href,
    Resolver resolver = Resolver::kFast);

// As ResolveComponents, with the base already parsed (or the error parsing it
// gave), so a page's links do not re-parse the base each time. `base` is only
// read for relative references.
absl::StatusOr<UrlComponents> ResolveAgainst(
    const absl::StatusOr<UrlComponents>& base, std::string_view href,
    Resolver resolver = Resolver::kFast);

// The lower-cased scheme `href` starts with (after Preprocess), or "" for a
// relative reference.
std::string LeadingScheme(std::string_view href);

// Applies the UrlOptions extras (query parameter dropping and sorting, "www.").
// Defined in url.cc.
void ApplyUrlOptions(const UrlOptions& options, UrlComponents* url);

}  // namespace sieve::url_internal

#endif  // SIEVE_PARSE_INTERNAL_URL_CANON_H_
