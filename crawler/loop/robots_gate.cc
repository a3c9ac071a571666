// crawler/loop/robots_gate.cc: the robots.txt rules a URL meets before its
// fetch, and the URLs held while they are fetched (see robots_gate.h).
#include "crawler/loop/robots_gate.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace sieve {

RobotsGate::RobotsGate(Options options, CrawlCounters& counters,
                       std::shared_ptr<spdlog::logger> log)
    : cache_(std::move(options.cache)),
      token_(std::move(options.token)),
      counters_(counters),
      log_(std::move(log)) {}

std::string RobotsGate::OriginOf(const UrlParts& parts) {
  return RobotsCache::Key(parts.scheme, parts.host, parts.port);
}

std::string RobotsGate::RobotsUrl(const UrlParts& parts) {
  return absl::StrCat(parts.scheme, "://", parts.Authority(), "/robots.txt");
}

std::optional<bool> RobotsGate::Allowed(const UrlParts& parts) const {
  return cache_.Allowed(OriginOf(parts), parts.path_and_query);
}

bool RobotsGate::Hold(const UrlParts& parts, FrontierUrl url) {
  auto [it, inserted] = held_.try_emplace(OriginOf(parts));
  it->second.push_back(std::move(url));
  if (inserted) ++counters_.robots_fetches;
  return inserted;
}

void RobotsGate::StartFetch(const UrlParts& parts) {
  if (held_.try_emplace(OriginOf(parts)).second) ++counters_.robots_fetches;
}

std::optional<RobotsGate::Answer> RobotsGate::Take(
    const std::string& origin, const FetchResponse& response) {
  auto held = held_.find(origin);
  if (held == held_.end()) return std::nullopt;
  Answer answer{.verdict = InterpretRobotsResponse(response, token_),
                .cause = std::nullopt,
                .blocked = false,
                .waiting = std::move(held->second)};
  held_.erase(held);

  std::optional<Failure> failure = FailureOf(response);
  log_->debug("robots.txt of {}: status {} {}", origin, response.status,
              failure.has_value() ? failure->detail : "");
  if (response.error == FetchError::kBlockedAddress) {
    // Its robots.txt (or a redirect of it) lies on a private address that
    // was not connected: like a redirect that cannot be followed, it counts
    // as unavailable in the 4xx sense (RFC 9309 2.3.1.3), so no rules apply.
    answer.blocked = true;
    log_->info("robots.txt of {}: {}", origin, response.error_message);
    answer.verdict = RobotsVerdict();  // kAllowAll.
  }
  if (answer.verdict.kind != RobotsVerdict::kUnavailable) {
    cache_.Store(origin, answer.verdict);
    return answer;
  }
  // RFC 9309 2.3.1.4: assume complete disallow for now. The held URLs go
  // back to the frontier with the cause: a robots.txt answering 429/5xx
  // holds them as throttled (robots_unavailable: the host backs off, they
  // are tried again, robots.txt first); no answer at all (dns, connect, tls,
  // timeout, ...) is their own failure, retried or not as a page's would be.
  Failure cause =
      response.ok()
          ? Failure{.code = FailureCode::kRobotsUnavailable,
                    .detail = failure.has_value()
                                  ? failure->detail
                                  : absl::StrCat("HTTP ", response.status)}
          : *failure;
  cause.detail = absl::StrCat("robots.txt: ", cause.detail);
  log_->info("robots.txt of {}: {}: {}", origin, FailureCodeName(cause.code),
             cause.detail);
  if (cause.code == FailureCode::kRobotsUnavailable) {
    ++counters_.robots_unavailable;
  }
  answer.cause = std::move(cause);
  return answer;
}

}  // namespace sieve
