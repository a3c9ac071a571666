// parse/robots_matcher.h: one robots.txt compiled for one crawler, so that
// deciding a URL costs a bounded amount of work whatever the file holds.
//
// RobotsTxt::IsAllowed re-reads every rule for every URL, and a '*' pattern
// costs |pattern| x |path| there: a hostile 500 KiB file of wildcards makes
// each URL cost seconds of CPU. RobotsMatcher answers the same question (RFC
// 9309 2.2.2: the longest matching pattern wins, allow wins a tie, no match
// allows) from rules compiled once for the crawler's product token:
//   - plain patterns ("/private/") go into a byte trie: one walk along the
//     path finds the longest one that is a prefix of it;
//   - exact patterns ("/index.html$") into a hash map: one lookup;
//   - '*' patterns are split at each '*' into literal segments, each with its
//     Knuth-Morris-Pratt failure table, and matched greedily left to right
//     (leftmost occurrence of each segment; correct for globs whose only
//     wildcard is '*'): O(|path|) per pattern, never backtracking. They are
//     tried longest first and the first match ends the search.
// Cost per URL: O(|path| x (1 + W)), W = the '*' patterns kept, at most
// kMaxWildcardRules. Compile: O(file), once per robots.txt.
//
// Departure from RFC 9309: past kMaxWildcardRules '*' patterns for one
// crawler, the rest (in file order) are ignored and counted in
// ignored_wildcard_rules(); plain and exact patterns have no cap. Real files
// hold a few dozen wildcards; the cap exists for hostile ones.
//
// Thread-safety: immutable after Compile; const calls are safe from any
// thread.
//
// Example:
//   sieve::RobotsMatcher m = sieve::RobotsMatcher::Compile(
//       sieve::RobotsTxt::Parse(body), "SieveBot/1.0");
//   if (m.IsAllowed("/private/x?y")) Fetch(url);
#ifndef SIEVE_PARSE_ROBOTS_MATCHER_H_
#define SIEVE_PARSE_ROBOTS_MATCHER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "parse/robots.h"

namespace sieve {

class RobotsMatcher {
 public:
  // '*' patterns kept per crawler. With paths of at most 2 KiB this bounds a
  // URL's matching at about 2 million byte steps (bench/parse: BM_Robots*).
  static constexpr size_t kMaxWildcardRules = 1000;

  // The rules of `robots` that apply to `user_agent` (RFC 9309 2.2.1, as
  // RobotsTxt::IsAllowed picks them), compiled. Never fails. Cost: O(size of
  // the rules), memory about 20 bytes per byte of plain pattern.
  static RobotsMatcher Compile(const RobotsTxt& robots,
                               std::string_view user_agent);

  // What RobotsTxt::IsAllowed(user_agent, path_and_query) answers for the
  // compiled robots.txt (for every file within the cap). REQUIRES: as
  // RobotsTxt::IsAllowed. Cost: see the file comment.
  bool IsAllowed(std::string_view path_and_query) const;

  // RobotsTxt::CrawlDelay(user_agent), seconds.
  std::optional<double> crawl_delay() const { return crawl_delay_; }
  // '*' patterns dropped by the cap.
  size_t ignored_wildcard_rules() const { return ignored_wildcard_rules_; }
  // Heap and object bytes this matcher holds, estimated from container
  // capacities (hash table slots counted with their control bytes). O(1).
  size_t approximate_bytes() const { return bytes_; }

 private:
  // A node's verdict: the plain pattern ending there, if any.
  enum Verdict : uint8_t { kNone = 0, kDisallow = 1, kAllow = 2 };
  struct Segment {
    std::string text;
    std::vector<uint32_t> failure;  // KMP failure function of `text`.
  };
  struct WildcardRule {
    size_t length = 0;  // Of the normalised pattern, '*' and '$' included.
    bool allow = false;
    bool anchored = false;     // Ended in '$': the last segment ends the path.
    size_t literal_bytes = 0;  // A shorter path cannot match.
    std::vector<Segment> segments;  // segments[0] is a prefix (maybe empty).
  };

  bool Matches(const WildcardRule& rule, std::string_view path) const;

  bool disallow_all_ = false;
  // Plain patterns: trie edges (node << 8 | byte) -> child; node 0 is the
  // root.
  absl::flat_hash_map<uint64_t, uint32_t> edges_;
  std::vector<Verdict> verdicts_ = {kNone};
  // Exact patterns ("/a$"), without the '$'.
  absl::flat_hash_map<std::string, Verdict> exact_;
  // Longest first; at one length, allow before disallow.
  std::vector<WildcardRule> wildcards_;
  std::optional<double> crawl_delay_;
  size_t ignored_wildcard_rules_ = 0;
  size_t bytes_ = 0;
};

}  // namespace sieve

#endif  // SIEVE_PARSE_ROBOTS_MATCHER_H_
