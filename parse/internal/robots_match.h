// Path normalisation and pattern matching for robots.txt (RFC 9309 §2.2.2,
// §2.2.3). Private to sieve::parse.
#ifndef SIEVE_PARSE_INTERNAL_ROBOTS_MATCH_H_
#define SIEVE_PARSE_INTERNAL_ROBOTS_MATCH_H_

#include <string>
#include <string_view>

namespace sieve::robots_internal {

// Brings a robots.txt path or a URI's path+query to one spelling (§2.2.2):
// non-ASCII octets
// %-encoded, escapes of unreserved characters decoded, hex upper-cased. With
// `is_pattern` false, '*' and '$' are encoded too (%2A, %24) so they only match
// a pattern's %2A and %24.
std::string NormalizeRobotsPath(std::string_view path, bool is_pattern);

// True if normalised `pattern` matches normalised `path` from its start
// (§2.2.3): '*' matches any run of octets, a final '$' requires the end of the
// path. O(|pattern| × |path|).
bool PatternMatches(std::string_view pattern, std::string_view path);

// True if `pattern` has no '*' or '$', so matching is a prefix comparison.
inline bool IsPlainPrefix(std::string_view pattern) {
  for (char c : pattern) {
    if (c == '*' || c == '$') return false;
  }
  return true;
}

}  // namespace sieve::robots_internal

#endif  // SIEVE_PARSE_INTERNAL_ROBOTS_MATCH_H_
