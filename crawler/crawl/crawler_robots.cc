// crawler/crawl/crawler_robots.cc: a URL the Frontier hands out meets
// robots.txt (RFC 9309) before its fetch: checked against the host's rules, or
// held while the host's robots.txt is fetched (HandleReady), then released,
// spaced by the host's delay, or skipped (OnRobots).
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "crawler/crawl/crawler_impl.h"
#include "parse/url.h"

namespace sieve {

void Crawler::Impl::HandleReady(FrontierUrl url, absl::Time now) {
  if (config_.crawl.max_pages_per_host > 0 &&
      state_.pages_per_host[url.host] >=
          static_cast<uint64_t>(config_.crawl.max_pages_per_host)) {
    SkipUrl(url, now);
    return;
  }
  absl::StatusOr<UrlParts> parts = SplitUrl(url.url);
  if (!parts.ok()) {
    SkipUrl(url, now);
    return;
  }
  if (std::optional<bool> allowed =
          robots_.Allowed(url.host, parts->path_and_query);
      allowed.has_value()) {
    if (!*allowed) {
      ++counters_.robots_disallowed;
      SkipUrl(url, now);
      return;
    }
    SubmitPage(std::move(url), now);
    return;
  }
  // robots.txt first (RFC 9309 2.3.1.2: follow up to five redirects); the URL
  // waits for it.
  auto [it, inserted] = robots_pending_.try_emplace(url.host);
  it->second.waiting.push_back(std::move(url));
  if (!inserted) return;
  it->second.start = now;
  const uint64_t id = next_request_id_++;
  Request& robots_request = requests_[id];
  robots_request.kind = RequestKind::kRobots;
  robots_request.host = it->first;
  robots_request.start = now;
  ++counters_.robots_fetches;
  fetcher_->Submit(FetchRequest{
      .id = id,
      .url = absl::StrCat(parts->scheme, "://", it->first, "/robots.txt"),
      .max_redirects = 5});
}

void Crawler::Impl::OnRobots(const Request& request,
                             const FetchResponse& response, absl::Time now) {
  auto pending_it = robots_pending_.find(request.host);
  if (pending_it == robots_pending_.end()) return;
  PendingRobots pending = std::move(pending_it->second);
  robots_pending_.erase(pending_it);

  RobotsVerdict verdict =
      InterpretRobotsResponse(response, ProductToken(config_.fetch.user_agent));
  log_->debug("robots.txt of {}: status {} {}", request.host, response.status,
              std::string(FetchErrorName(response.error)));
  if (verdict.kind == RobotsVerdict::kUnavailable) {
    // RFC 9309 2.3.1.4: assume complete disallow for now. The URLs go back to
    // the Frontier, which backs the host off; robots.txt is asked again when
    // the host comes back.
    log_->info("robots.txt of {} unavailable ({}); backing off", request.host,
               response.status != 0
                   ? absl::StrCat("HTTP ", response.status)
                   : std::string(FetchErrorName(response.error)));
    for (const FrontierUrl& url : pending.waiting) {
      ++counters_.throttled;
      (void)frontier_->Done(url.url, FetchOutcome::Throttled(), now);
    }
    return;
  }
  if (verdict.crawl_delay.has_value()) {
    frontier_->SetCrawlDelay(request.host, *verdict.crawl_delay);
    RecordCrawlDelay(politeness_, *verdict.crawl_delay,
                     crawl_delays_[request.host]);
  }
  robots_.Store(request.host, verdict);
  // The robots.txt request was the host's first: its pages keep the politeness
  // delay after it.
  const absl::Duration delay = HostDelay(request.host);
  absl::Time at = now;
  for (FrontierUrl& url : pending.waiting) {
    absl::StatusOr<UrlParts> parts = SplitUrl(url.url);
    if (!parts.ok() ||
        !robots_.Allowed(url.host, parts->path_and_query).value_or(true)) {
      if (parts.ok()) ++counters_.robots_disallowed;
      SkipUrl(url, now);
      continue;
    }
    at += delay;
    frontier_->BlockHost(url.host, at + delay);
    held_.emplace(at, std::move(url));
  }
}

}  // namespace sieve
