#include "parse/robots_matcher.h"

#include <algorithm>
#include <utility>

#include "parse/internal/robots_match.h"

namespace sieve {
namespace {

// Knuth-Morris-Pratt failure function: failure[i] is the length of the
// longest proper prefix of text[0..i] that is also its suffix (Knuth, Morris,
// Pratt, "Fast pattern matching in strings", SIAM J. Comput. 1977).
std::vector<uint32_t> FailureFunction(std::string_view text) {
  std::vector<uint32_t> failure(text.size(), 0);
  uint32_t k = 0;
  for (size_t i = 1; i < text.size(); ++i) {
    while (k > 0 && text[i] != text[k]) k = failure[k - 1];
    if (text[i] == text[k]) ++k;
    failure[i] = k;
  }
  return failure;
}

// First occurrence of `text` (with its failure table) in `path` at or after
// `from`; npos when none. O(|path| - from): the path is read once.
size_t FindKmp(std::string_view path, size_t from, std::string_view text,
               const std::vector<uint32_t>& failure) {
  if (text.empty()) return from;
  uint32_t k = 0;
  for (size_t i = from; i < path.size(); ++i) {
    while (k > 0 && path[i] != text[k]) k = failure[k - 1];
    if (path[i] == text[k]) ++k;
    if (k == text.size()) return i + 1 - text.size();
  }
  return std::string_view::npos;
}

}  // namespace

RobotsMatcher RobotsMatcher::Compile(const RobotsTxt& robots,
                                     std::string_view user_agent) {
  RobotsMatcher m;
  if (robots.mode_ == RobotsTxt::Mode::kDisallowAll) {
    m.disallow_all_ = true;
    return m;
  }
  m.crawl_delay_ = robots.CrawlDelay(user_agent);
  absl::flat_hash_map<std::string, Verdict> wildcard_seen;  // Duplicates.
  for (const RobotsTxt::Group* group : robots.GroupsFor(user_agent)) {
    for (const RobotsTxt::Rule& rule : group->rules) {
      const Verdict verdict = rule.allow ? kAllow : kDisallow;
      const std::string& p = rule.pattern;
      if (rule.plain) {
        uint32_t node = 0;
        for (unsigned char c : p) {
          auto [it, inserted] =
              m.edges_.try_emplace(uint64_t{node} << 8 | c,
                                   static_cast<uint32_t>(m.verdicts_.size()));
          if (inserted) m.verdicts_.push_back(kNone);
          node = it->second;
        }
        m.verdicts_[node] = std::max(m.verdicts_[node], verdict);
        continue;
      }
      const bool anchored = p.back() == '$';
      const std::string_view body =
          std::string_view(p).substr(0, p.size() - (anchored ? 1 : 0));
      // A '$' inside a pattern is a literal, and a path's '$' is always
      // written %24: such a rule can never match.
      if (body.find('$') != std::string_view::npos) continue;
      if (body.find('*') == std::string_view::npos) {  // "/a$": exact.
        Verdict& v = m.exact_[std::string(body)];
        v = std::max(v, verdict);
        continue;
      }
      Verdict& seen = wildcard_seen[p];
      if (seen >= verdict) continue;  // The same rule again changes nothing.
      if (m.wildcards_.size() >= kMaxWildcardRules) {
        ++m.ignored_wildcard_rules_;
        continue;
      }
      seen = verdict;
      WildcardRule w;
      w.length = p.size();
      w.allow = rule.allow;
      w.anchored = anchored;
      size_t start = 0;
      while (true) {
        const size_t star = body.find('*', start);
        const std::string_view piece = body.substr(
            start, star == std::string_view::npos ? body.npos : star - start);
        // Empty pieces between stars say nothing; the first (a prefix) and,
        // when anchored, the last (a suffix) keep their place.
        const bool last = star == std::string_view::npos;
        if (!piece.empty() || w.segments.empty() || (last && anchored)) {
          w.segments.push_back(
              Segment{std::string(piece), FailureFunction(piece)});
          w.literal_bytes += piece.size();
        }
        if (last) break;
        start = star + 1;
      }
      m.wildcards_.push_back(std::move(w));
    }
  }
  std::stable_sort(m.wildcards_.begin(), m.wildcards_.end(),
                   [](const WildcardRule& a, const WildcardRule& b) {
                     if (a.length != b.length) return a.length > b.length;
                     return a.allow && !b.allow;
                   });
  // Estimate of what the matcher holds: each hash slot plus its control
  // byte, each vector and string by its capacity.
  size_t bytes =
      sizeof(RobotsMatcher) +
      m.edges_.capacity() * (sizeof(std::pair<const uint64_t, uint32_t>) + 1) +
      m.verdicts_.capacity() * sizeof(Verdict) +
      m.exact_.capacity() *
          (sizeof(std::pair<const std::string, Verdict>) + 1) +
      m.wildcards_.capacity() * sizeof(WildcardRule);
  for (const auto& [text, verdict] : m.exact_) bytes += text.capacity();
  for (const WildcardRule& w : m.wildcards_) {
    bytes += w.segments.capacity() * sizeof(Segment);
    for (const Segment& s : w.segments) {
      bytes += s.text.capacity() + s.failure.capacity() * sizeof(uint32_t);
    }
  }
  m.bytes_ = bytes;
  return m;
}

bool RobotsMatcher::Matches(const WildcardRule& rule,
                            std::string_view path) const {
  if (rule.literal_bytes > path.size()) return false;
  const std::vector<Segment>& segments = rule.segments;
  if (!path.starts_with(segments[0].text)) return false;
  size_t at = segments[0].text.size();
  // segments.size() >= 2 here: a '*' pattern has a prefix and, anchored, a
  // suffix; unanchored "/a*" keeps only its prefix.
  const size_t middle_end = segments.size() - (rule.anchored ? 1 : 0);
  for (size_t i = 1; i < middle_end; ++i) {
    const size_t found =
        FindKmp(path, at, segments[i].text, segments[i].failure);
    if (found == std::string_view::npos) return false;
    at = found + segments[i].text.size();
  }
  if (!rule.anchored) return true;
  // Leftmost matches leave the most room for the suffix.
  const std::string& suffix = segments.back().text;
  return path.size() - at >= suffix.size() && path.ends_with(suffix);
}

bool RobotsMatcher::IsAllowed(std::string_view path_and_query) const {
  if (disallow_all_) return false;
  path_and_query = path_and_query.substr(0, path_and_query.find('#'));
  if (path_and_query.empty()) path_and_query = "/";
  if (path_and_query == "/robots.txt") return true;  // RFC 9309 2.2.2.
  const std::string path =
      robots_internal::NormalizeRobotsPath(path_and_query, false);

  bool matched = false;
  size_t best_length = 0;
  bool best_allows = true;
  auto consider = [&](size_t length, Verdict verdict) {
    if (!matched || length > best_length) {
      matched = true;
      best_length = length;
      best_allows = verdict == kAllow;
    } else if (length == best_length && verdict == kAllow) {
      best_allows = true;
    }
  };
  // Plain patterns: walk the trie along the path; every node on the way with a
  // verdict is a matching pattern, the deepest the longest.
  uint32_t node = 0;
  if (verdicts_[0] != kNone) consider(0, verdicts_[0]);
  for (size_t i = 0; i < path.size(); ++i) {
    auto it =
        edges_.find(uint64_t{node} << 8 | static_cast<unsigned char>(path[i]));
    if (it == edges_.end()) break;
    node = it->second;
    if (verdicts_[node] != kNone) consider(i + 1, verdicts_[node]);
  }
  if (auto it = exact_.find(path); it != exact_.end()) {
    consider(path.size() + 1, it->second);  // The pattern's '$' counts.
  }
  for (const WildcardRule& rule : wildcards_) {
    // Sorted longest first, allow first: nothing after can win.
    if (matched &&
        (rule.length < best_length ||
         (rule.length == best_length && (best_allows || !rule.allow)))) {
      break;
    }
    if (Matches(rule, path)) {
      consider(rule.length, rule.allow ? kAllow : kDisallow);
      break;
    }
  }
  return best_allows;
}

}  // namespace sieve
