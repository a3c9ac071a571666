#include "crawler/policy/trap_guard.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "filter/durable_file.h"

namespace sieve {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Digits at s[i, i+n), all of them.
bool Digits(std::string_view s, size_t i, size_t n) {
  if (i + n > s.size()) return false;
  for (size_t k = i; k < i + n; ++k) {
    if (!IsDigit(s[k])) return false;
  }
  return true;
}

// A date-like component: a year 1900-2199 standing alone (not inside a longer
// number) followed by a month 01-12, with or without one separator (-/_.), or
// a "year=YYYY" query parameter.
bool HasDate(std::string_view s) {
  const std::string lower =
      absl::AsciiStrToLower(absl::string_view(s.data(), s.size()));
  if (lower.find("year=") != std::string::npos) return true;
  for (size_t i = 0; i + 6 <= s.size(); ++i) {
    if (i > 0 && IsDigit(s[i - 1])) continue;
    if (!Digits(s, i, 4)) continue;
    if (!(s[i] == '1' && s[i + 1] == '9') && s[i] != '2') continue;
    if (s[i] == '2' && s[i + 1] > '1') continue;
    size_t m = i + 4;
    if (m < s.size() &&
        (s[m] == '-' || s[m] == '/' || s[m] == '_' || s[m] == '.')) {
      ++m;
      if (!Digits(s, m, 2) || (m + 2 < s.size() && IsDigit(s[m + 2]))) continue;
    } else {
      // Without a separator only YYYYMM or YYYYMMDD, not a longer number (an
      // identifier that happens to start like a year).
      size_t run = i;
      while (run < s.size() && IsDigit(s[run])) ++run;
      if (run - i != 6 && run - i != 8) continue;
    }
    const int month = (s[m] - '0') * 10 + (s[m + 1] - '0');
    if (month >= 1 && month <= 12) return true;
  }
  return false;
}

// Every run of digits replaced by '#'.
std::string DigitPattern(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (IsDigit(s[i])) {
      if (out.empty() || out.back() != '#') out.push_back('#');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

uint64_t KeyOf(std::string_view kind, std::string_view authority,
               std::string_view rest) {
  return Checksum64(
      absl::StrCat(absl::string_view(kind.data(), kind.size()), " ",
                   absl::string_view(authority.data(), authority.size()), " ",
                   absl::string_view(rest.data(), rest.size())));
}

// Glob match, ASCII case-insensitive, '*' any run.
bool Glob(std::string_view pattern, std::string_view name) {
  size_t p = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (p < pattern.size() &&
               absl::ascii_tolower(static_cast<unsigned char>(pattern[p])) ==
                   absl::ascii_tolower(static_cast<unsigned char>(name[n]))) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace

TrapGuard::Keys TrapGuard::KeysOf(std::string_view authority,
                                  std::string_view path_and_query) const {
  Keys keys;
  const size_t q = path_and_query.find('?');
  if (options_.max_query_variants > 0 && q != std::string_view::npos) {
    keys.query = KeyOf("q", authority, path_and_query.substr(0, q));
  }
  if (options_.max_date_variants > 0 && HasDate(path_and_query)) {
    keys.date = KeyOf("d", authority, DigitPattern(path_and_query));
  }
  return keys;
}

TrapKind TrapGuard::Admit(std::string_view authority,
                          std::string_view path_and_query,
                          bool* counted) const {
  const Keys keys = KeysOf(authority, path_and_query);
  if (counted != nullptr) *counted = keys.query || keys.date;
  if (!keys.query && !keys.date) return TrapKind::kNone;
  std::lock_guard<std::mutex> lock(mu_);
  if (keys.query) {
    auto it = query_counts_.find(*keys.query);
    if (it != query_counts_.end() && it->second >= options_.max_query_variants)
      return TrapKind::kQueryVariants;
  }
  if (keys.date) {
    auto it = date_counts_.find(*keys.date);
    if (it != date_counts_.end() && it->second >= options_.max_date_variants)
      return TrapKind::kCalendar;
  }
  return TrapKind::kNone;
}

void TrapGuard::Queued(std::string_view authority,
                       std::string_view path_and_query) {
  const Keys keys = KeysOf(authority, path_and_query);
  if (!keys.query && !keys.date) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (query_counts_.size() + date_counts_.size() >= options_.max_tracked) {
    query_counts_.clear();
    date_counts_.clear();
  }
  if (keys.query) ++query_counts_[*keys.query];
  if (keys.date) ++date_counts_[*keys.date];
}

bool TrapGuard::HasSessionIdParam(std::string_view url,
                                  const std::vector<std::string>& patterns) {
  size_t q = url.find('?');
  if (q == std::string_view::npos || patterns.empty()) return false;
  std::string_view query = url.substr(q + 1);
  query = query.substr(0, query.find('#'));
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view param = query.substr(0, amp);
    std::string_view name = param.substr(0, param.find('='));
    for (const std::string& pattern : patterns) {
      if (Glob(pattern, name)) return true;
    }
    if (amp == std::string_view::npos) break;
    query = query.substr(amp + 1);
  }
  return false;
}

std::optional<std::string> TrapGuard::StripPathSessionId(std::string_view url) {
  static constexpr std::string_view kParam = ";jsessionid=";
  const std::string_view path =
      url.substr(0, std::min(url.find('?'), url.find('#')));
  size_t at = path.find(';');
  while (at != std::string_view::npos &&
         !absl::StartsWithIgnoreCase(
             absl::string_view(path.data() + at, path.size() - at),
             absl::string_view(kParam.data(), kParam.size()))) {
    at = path.find(';', at + 1);
  }
  if (at == std::string_view::npos) return std::nullopt;
  size_t end = at + kParam.size();
  while (end < url.size() && url[end] != '?' && url[end] != '#' &&
         url[end] != '/' && url[end] != ';')
    ++end;
  return absl::StrCat(absl::string_view(url.data(), at),
                      absl::string_view(url.data() + end, url.size() - end));
}

}  // namespace sieve
