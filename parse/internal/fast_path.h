// The pieces of URL resolution done without libcurl's URL API, for the forms
// whose outcome is certain. Private to sieve::parse; url_canon.cc calls them
// and falls back to libcurl whenever one returns "not sure".
//
// libcurl 7.88 parses each absolute URL and merges each relative reference
// with its base (curl_url_set). For a plain host name (no IDNA, no IPv6
// literal, no IPv4 address but a canonical dotted quad, no userinfo) and a
// path already escaped by CanonicalPiece,
// all it does to the path is RFC 3986 §5.2.3 merging and §5.2.4 dot-segment
// removal, which these functions do in place of a parse. Where libcurl departs
// from the RFC (it reads a first segment with ':' as a scheme; it drops the
// empty segment of ".//x", the '/' of "./?q", the empty first segment of a
// base path "//b/c"), the functions return nullopt. The url fuzzer
// (parse/fuzz/url_fuzzer.cc) checks the two agree on any input. The
// differential test (tests/parse/url_fast_path_test.cc) checks both paths give
// the same URL on every link of real documentation sites.
#ifndef SIEVE_PARSE_INTERNAL_FAST_PATH_H_
#define SIEVE_PARSE_INTERNAL_FAST_PATH_H_

#include <optional>
#include <string>
#include <string_view>

namespace sieve::url_internal {

// Which code resolves references. kCurl is the path before the fast one, kept
// for the differential test and the benchmark.
enum class Resolver {
  kFast,  // our own code where certain, libcurl otherwise
  kCurl,  // libcurl's URL API for every absolute URL and every merge
};

// Longest path (bytes) the fast path takes; longer ones go to libcurl, which
// rejects URLs past 8,000,000 bytes (CURL_MAX_INPUT_LENGTH).
inline constexpr size_t kFastPathMaxBytes = 64 * 1024;

// RFC 3986 §5.2.4 remove_dot_segments, for a path starting with '/'.
// Example: "/a/b/c/./../../g" → "/a/g". Cost: O(|path|), one allocation.
std::string RemoveDotSegments(std::string_view path);

// True if `host` (as written in the URL, before lower-casing) is a DNS name
// whose handling is certain: ASCII letters, digits and '-' in non-empty
// labels separated by '.', no trailing dot, no "xn--" label (those need
// IDNA validation), and not ending in a number (a possible IPv4 address).
bool IsPlainHostName(std::string_view host);

// The path of relative reference `ref_path` (escaped, query and fragment cut
// off, not starting with "//") resolved against canonical `base_path`
// (§5.2.2-4), or nullopt where libcurl may differ from the RFC or when too
// long. `has_query`: the reference had a '?' after its path.
std::optional<std::string> MergeRelativePath(std::string_view base_path,
                                             std::string_view ref_path,
                                             bool has_query);

}  // namespace sieve::url_internal

#endif  // SIEVE_PARSE_INTERNAL_FAST_PATH_H_
