#include "crawler/crawl/robots_cache.h"

namespace sieve {

RobotsVerdict InterpretRobotsResponse(const FetchResponse& response,
                                      std::string_view user_agent) {
  // The final status, or 0 for "unreachable" (network error, timeout). A
  // failure after a 3xx or 4xx status line (too many redirects, a body refused
  // as too large) keeps that status.
  int status = response.status;
  if (!response.ok() && !(status >= 300 && status < 500)) status = 0;
  RobotsVerdict verdict;
  switch (RobotsRuleForStatus(status)) {
    case RobotsFetchRule::kParse: {
      verdict.kind = RobotsVerdict::kRules;
      auto rules = std::make_shared<RobotsTxt>(RobotsTxt::Parse(response.body));
      if (std::optional<double> delay = rules->CrawlDelay(user_agent);
          delay.has_value()) {
        verdict.crawl_delay = absl::Seconds(*delay);
      }
      verdict.rules = std::move(rules);
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

void RobotsCache::Store(std::string_view host, const RobotsVerdict& verdict) {
  if (verdict.kind == RobotsVerdict::kUnavailable) return;
  absl::MutexLock lock(&mu_);
  hosts_.insert_or_assign(std::string(host), verdict.rules);
}

void RobotsCache::Forget(std::string_view host) {
  absl::MutexLock lock(&mu_);
  hosts_.erase(absl::string_view(host.data(), host.size()));
}

std::optional<bool> RobotsCache::Allowed(
    std::string_view host, std::string_view path_and_query) const {
  std::shared_ptr<const RobotsTxt> rules;
  {
    absl::MutexLock lock(&mu_);
    auto it = hosts_.find(absl::string_view(host.data(), host.size()));
    if (it == hosts_.end()) return std::nullopt;
    rules = it->second;
  }
  if (rules == nullptr) return true;
  return rules->IsAllowed(user_agent_, path_and_query);
}

bool RobotsCache::Known(std::string_view host) const {
  absl::MutexLock lock(&mu_);
  return hosts_.contains(absl::string_view(host.data(), host.size()));
}

}  // namespace sieve
