#include "parse/internal/robots_match.h"

#include <vector>

#include "parse/internal/percent.h"

namespace sieve::robots_internal {
namespace {

constexpr char kHex[] = "0123456789ABCDEF";

void AppendEscape(unsigned char c, std::string* out) {
  out->push_back('%');
  out->push_back(kHex[c >> 4]);
  out->push_back(kHex[c & 0xF]);
}

}  // namespace

std::string NormalizeRobotsPath(std::string_view path, bool is_pattern) {
  std::string out;
  out.reserve(path.size());
  for (size_t i = 0; i < path.size(); ++i) {
    const auto c = static_cast<unsigned char>(path[i]);
    if (c == '%' && i + 2 < path.size()) {
      const int hi =
          url_internal::HexValue(static_cast<unsigned char>(path[i + 1]));
      const int lo =
          url_internal::HexValue(static_cast<unsigned char>(path[i + 2]));
      if (hi >= 0 && lo >= 0) {
        const auto decoded = static_cast<unsigned char>(hi * 16 + lo);
        if (url_internal::IsUnreserved(decoded)) {
          out.push_back(static_cast<char>(decoded));
        } else {
          AppendEscape(decoded, &out);
        }
        i += 2;
        continue;
      }
    }
    if (c >= 0x80 || c <= 0x20 || c == 0x7F ||
        (!is_pattern && (c == '*' || c == '$'))) {
      AppendEscape(c, &out);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

bool PatternMatches(std::string_view pattern, std::string_view path) {
  // Most rules are a plain prefix or an exact "/path$": no allocation for them.
  if (IsPlainPrefix(pattern)) return path.starts_with(pattern);
  const std::string_view before_anchor = pattern.substr(0, pattern.size() - 1);
  if (pattern.back() == '$' && IsPlainPrefix(before_anchor)) {
    return path == before_anchor;
  }
  // The set of path offsets the pattern prefix read so far can end at, kept
  // sorted (google/robotstxt's approach): a literal advances each, '*' opens
  // every later offset.
  std::vector<size_t> ends = {0};
  std::vector<size_t> next;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '$' && i + 1 == pattern.size()) return ends.back() == path.size();
    if (c == '*') {
      const size_t from = ends.front();
      ends.clear();
      for (size_t p = from; p <= path.size(); ++p) ends.push_back(p);
      continue;
    }
    next.clear();
    for (size_t p : ends) {
      if (p < path.size() && path[p] == c) next.push_back(p + 1);
    }
    if (next.empty()) return false;
    ends.swap(next);
  }
  return true;
}

}  // namespace sieve::robots_internal
