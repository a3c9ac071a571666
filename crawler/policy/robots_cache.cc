#include "crawler/policy/robots_cache.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "parse/robots.h"

namespace sieve {
namespace {

absl::string_view View(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace

RobotsVerdict InterpretRobotsResponse(const FetchResponse& response,
                                      std::string_view user_agent) {
  // The final status, or 0 for "unreachable" (network error, timeout, an
  // address the fetch guard refused). A failure after a 3xx or 4xx status line
  // (too many redirects, a body refused as too large) keeps that status.
  int status = response.status;
  if (!response.ok() && !(status >= 300 && status < 500)) status = 0;
  RobotsVerdict verdict;
  switch (RobotsRuleForStatus(status)) {
    case RobotsFetchRule::kParse: {
      verdict.kind = RobotsVerdict::kRules;
      const RobotsTxt robots = RobotsTxt::Parse(response.body);
      auto rules = std::make_shared<RobotsMatcher>(
          RobotsMatcher::Compile(robots, user_agent));
      if (std::optional<double> delay = rules->crawl_delay();
          delay.has_value()) {
        verdict.crawl_delay = absl::Seconds(*delay);
      }
      verdict.rules = std::move(rules);
      verdict.sitemaps = robots.Sitemaps();
      break;
    }
    case RobotsFetchRule::kAllowAll:
      verdict.kind = RobotsVerdict::kAllowAll;
      break;
    case RobotsFetchRule::kDisallowAll:
      verdict.kind = RobotsVerdict::kUnavailable;
      break;
  }
  return verdict;
}

RobotsCache::RobotsCache(RobotsCacheOptions options)
    : options_(std::move(options)) {}

std::string RobotsCache::Key(std::string_view scheme, std::string_view host,
                             int port) {
  return absl::StrCat(absl::AsciiStrToLower(View(scheme)), "://",
                      absl::AsciiStrToLower(View(host)), ":", port);
}

void RobotsCache::EraseLocked(Lru::iterator it) const {
  bytes_ -= it->bytes;
  index_.erase(it->origin);
  lru_.erase(it);
}

void RobotsCache::Store(std::string_view origin, const RobotsVerdict& verdict) {
  if (verdict.kind == RobotsVerdict::kUnavailable) return;
  const absl::Time expires = options_.clock() + options_.lifetime;
  const size_t bytes =
      sizeof(Entry) + 2 * origin.size() +
      (verdict.rules != nullptr ? verdict.rules->approximate_bytes() : 0);
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = index_.find(View(origin)); it != index_.end()) {
    EraseLocked(it->second);
  }
  lru_.push_front(Entry{std::string(origin), verdict.rules, expires, bytes});
  index_.emplace(lru_.front().origin, lru_.begin());
  bytes_ += bytes;
  while (lru_.size() > 1 &&
         (lru_.size() > options_.max_entries || bytes_ > options_.max_bytes)) {
    EraseLocked(std::prev(lru_.end()));
  }
}

void RobotsCache::Forget(std::string_view origin) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = index_.find(View(origin)); it != index_.end()) {
    EraseLocked(it->second);
  }
}

std::optional<bool> RobotsCache::Allowed(
    std::string_view origin, std::string_view path_and_query) const {
  const absl::Time now = options_.clock();
  std::shared_ptr<const RobotsMatcher> rules;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(View(origin));
    if (it == index_.end()) return std::nullopt;
    if (now >= it->second->expires) {  // RFC 9309 2.4: fetch it again.
      EraseLocked(it->second);
      return std::nullopt;
    }
    lru_.splice(lru_.begin(), lru_, it->second);
    rules = it->second->rules;
  }
  // Matched outside the lock: parser threads do not wait on each other.
  if (rules == nullptr) return true;
  return rules->IsAllowed(path_and_query);
}

bool RobotsCache::Known(std::string_view origin) const {
  const absl::Time now = options_.clock();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(View(origin));
  return it != index_.end() && now < it->second->expires;
}

size_t RobotsCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lru_.size();
}

size_t RobotsCache::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

}  // namespace sieve
