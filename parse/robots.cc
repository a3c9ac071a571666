#include "parse/robots.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "parse/internal/robots_match.h"

namespace sieve {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// §2.2.1: the product token is letters, '_' and '-'; matching is
// case-insensitive.
std::string ProductToken(std::string_view user_agent) {
  user_agent = Trim(user_agent);
  std::string token;
  for (char c : user_agent) {
    if (!absl::ascii_isalpha(static_cast<unsigned char>(c)) && c != '_' &&
        c != '-')
      break;
    token.push_back(absl::ascii_tolower(static_cast<unsigned char>(c)));
  }
  return token;
}

enum class Key { kUserAgent, kAllow, kDisallow, kCrawlDelay, kSitemap, kOther };

Key KeyOf(std::string_view raw) {
  std::string key(Trim(raw));
  absl::AsciiStrToLower(&key);
  if (key == "user-agent" || key == "useragent" || key == "user agent")
    return Key::kUserAgent;
  if (key == "allow") return Key::kAllow;
  if (key == "disallow") return Key::kDisallow;
  if (key == "crawl-delay") return Key::kCrawlDelay;
  if (key == "sitemap" || key == "site-map") return Key::kSitemap;
  return Key::kOther;
}

std::optional<double> ParseDelay(std::string_view value) {
  const std::string text(value);
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(seconds) || seconds < 0)
    return std::nullopt;
  return seconds;
}

}  // namespace

RobotsFetchRule RobotsRuleForStatus(int http_status) {
  if (http_status >= 200 && http_status < 300) return RobotsFetchRule::kParse;
  // 429 Too Many Requests is a server asking to be left alone, not a missing
  // file: treated like 5xx, as Google documents for its crawlers.
  if (http_status == 429) return RobotsFetchRule::kDisallowAll;
  if (http_status >= 300 && http_status < 500)
    return RobotsFetchRule::kAllowAll;
  return RobotsFetchRule::kDisallowAll;  // 5xx, 0 (unreachable), and anything
                                         // unknown
}

RobotsTxt RobotsTxt::AllowAll() { return RobotsTxt(); }

RobotsTxt RobotsTxt::DisallowAll() {
  RobotsTxt robots;
  robots.mode_ = Mode::kDisallowAll;
  return robots;
}

RobotsTxt RobotsTxt::FromFetch(int http_status, std::string_view body) {
  switch (RobotsRuleForStatus(http_status)) {
    case RobotsFetchRule::kParse:
      return Parse(body);
    case RobotsFetchRule::kAllowAll:
      return AllowAll();
    case RobotsFetchRule::kDisallowAll:
      break;
  }
  return DisallowAll();
}

RobotsTxt RobotsTxt::Parse(std::string_view bytes) {
  if (bytes.size() > kMaxBytes) {
    // §2.5: parse at least the first 500 KiB. The line the limit cuts is
    // dropped rather than read as a shorter (and so broader) rule.
    bytes = bytes.substr(0, kMaxBytes);
    const size_t last_break = bytes.find_last_of("\r\n");
    bytes = last_break == std::string_view::npos ? std::string_view()
                                                 : bytes.substr(0, last_break);
  }
  if (bytes.starts_with("\xEF\xBB\xBF")) bytes.remove_prefix(3);

  RobotsTxt robots;
  bool in_agent_lines =
      false;  // the previous meaningful line was a user-agent line
  while (!bytes.empty()) {
    const size_t end = std::min(bytes.find_first_of("\r\n"), bytes.size());
    std::string_view line = bytes.substr(0, end);
    const bool crlf = bytes.substr(end).starts_with("\r\n");
    bytes.remove_prefix(std::min(bytes.size(), end + (crlf ? 2 : 1)));
    line = line.substr(0, line.find('#'));  // §2.2.3: comments
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;  // garbage or empty line
    const Key key = KeyOf(line.substr(0, colon));
    const std::string_view value = Trim(line.substr(colon + 1));
    switch (key) {
      case Key::kUserAgent: {
        if (!in_agent_lines || robots.groups_.empty())
          robots.groups_.emplace_back();
        in_agent_lines = true;
        std::string agent = value.starts_with("*") ? "*" : ProductToken(value);
        if (!agent.empty())
          robots.groups_.back().agents.push_back(std::move(agent));
        break;
      }
      case Key::kAllow:
      case Key::kDisallow:
        if (robots.groups_.empty()) break;  // a rule outside any group
        in_agent_lines = false;
        if (value.empty()) break;  // an empty path makes no rule
        {
          Rule rule{key == Key::kAllow,
                    robots_internal::NormalizeRobotsPath(value, true)};
          rule.plain = robots_internal::IsPlainPrefix(rule.pattern);
          robots.groups_.back().rules.push_back(std::move(rule));
        }
        break;
      case Key::kCrawlDelay:
        if (robots.groups_.empty()) break;
        // Like a rule, it ends the run of user-agent lines: "User-agent: *,
        // Crawl-delay: 10, User-agent: x" is two groups.
        in_agent_lines = false;
        if (std::optional<double> delay = ParseDelay(value)) {
          robots.groups_.back().crawl_delay = delay;
        }
        break;
      case Key::kSitemap:
        if (!value.empty()) robots.sitemaps_.emplace_back(value);
        break;
      case Key::kOther:
        break;
    }
  }
  return robots;
}

std::vector<const RobotsTxt::Group*> RobotsTxt::GroupsFor(
    std::string_view user_agent) const {
  const std::string token = ProductToken(user_agent);
  std::vector<const Group*> named;
  std::vector<const Group*> star;
  for (const Group& group : groups_) {
    for (const std::string& agent : group.agents) {
      if (!token.empty() && agent == token) {
        named.push_back(&group);
        break;
      }
      if (agent == "*") {
        star.push_back(&group);
        break;
      }
    }
  }
  return named.empty() ? star : named;
}

bool RobotsTxt::IsAllowed(std::string_view user_agent,
                          std::string_view path_and_query) const {
  if (mode_ == Mode::kDisallowAll) return false;
  path_and_query = path_and_query.substr(0, path_and_query.find('#'));
  if (path_and_query.empty()) path_and_query = "/";
  if (path_and_query == "/robots.txt")
    return true;  // §2.2.2: implicitly allowed
  const std::string path =
      robots_internal::NormalizeRobotsPath(path_and_query, false);
  // §2.2.2: the most specific (longest) match wins; allow wins a tie; no match
  // allows.
  size_t best_length = 0;
  bool best_allows = true;
  bool matched = false;
  for (const Group* group : GroupsFor(user_agent)) {
    for (const Rule& rule : group->rules) {
      const bool match =
          rule.plain ? std::string_view(path).starts_with(rule.pattern)
                     : robots_internal::PatternMatches(rule.pattern, path);
      if (!match) continue;
      const size_t length = rule.pattern.size();
      if (!matched || length > best_length) {
        best_length = length;
        best_allows = rule.allow;
        matched = true;
      } else if (length == best_length && rule.allow) {
        best_allows = true;
      }
    }
  }
  return best_allows;
}

std::optional<double> RobotsTxt::CrawlDelay(std::string_view user_agent) const {
  std::optional<double> delay;
  for (const Group* group : GroupsFor(user_agent)) {
    if (group->crawl_delay && (!delay || *group->crawl_delay > *delay))
      delay = group->crawl_delay;
  }
  return delay;
}

}  // namespace sieve
