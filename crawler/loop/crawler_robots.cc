// crawler/loop/crawler_robots.cc: a URL the frontier hands out meets
// robots.txt (RFC 9309) before its fetch: checked against the host's rules, or
// held while the host's robots.txt is fetched in its place (HandleReady), then
// given back to the frontier, deferred: the frontier hands it out again after
// the host's delay, counted from the robots.txt answer (OnRobots).
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "crawler/loop/crawler_impl.h"
#include "fetch/fetch_failure.h"
#include "parse/url.h"

namespace sieve {

void Crawler::Impl::HandleReady(FrontierUrl url, absl::Time now) {
  absl::StatusOr<UrlParts> parts = SplitUrl(url.url);
  if (!parts.ok()) {
    SkipUrl(url, now);
    return;
  }
  const std::string origin =
      RobotsCache::Key(parts->scheme, parts->host, parts->port);
  if (std::optional<bool> allowed =
          robots_.Allowed(origin, parts->path_and_query);
      allowed.has_value()) {
    if (!*allowed) {
      // The fate of a link robots.txt forbids, known only now.
      LinkOutcomes fate;
      fate.Note(policy_, url.url, AddOutcome::kDisallowed);
      CountLinks(fate, Origin::Decode(url.metadata).referrer);
      SkipUrl(url, now);
      return;
    }
    SubmitPage(std::move(url), now);
    return;
  }
  // robots.txt first (RFC 9309 2.3.1.2: follow up to five redirects); the URL
  // waits for it.
  // Keyed by origin (scheme, host, port: RFC 9309 2.3): http and https of one
  // host have their own robots.txt.
  auto [it, inserted] = robots_pending_.try_emplace(origin);
  const std::string host = url.host;
  it->second.waiting.push_back(std::move(url));
  if (!inserted) return;
  it->second.start = now;
  const uint64_t id = next_request_id_++;
  Request& robots_request = requests_[id];
  robots_request.kind = RequestKind::kRobots;
  robots_request.host = host;
  robots_request.authority = parts->Authority();
  robots_request.origin = origin;
  robots_request.start = now;
  ++counters_.robots_fetches;
  fetcher_->Submit(
      FetchRequest{.id = id,
                   .url = absl::StrCat(parts->scheme, "://",
                                       robots_request.authority, "/robots.txt"),
                   .max_redirects = 5});
}

void Crawler::Impl::OnRobots(const Request& request,
                             const FetchResponse& response, absl::Time now) {
  auto pending_it = robots_pending_.find(request.origin);
  if (pending_it == robots_pending_.end()) return;
  PendingRobots pending = std::move(pending_it->second);
  robots_pending_.erase(pending_it);

  RobotsVerdict verdict = InterpretRobotsResponse(response, robots_token_);
  std::optional<Failure> failure = FailureOf(response);
  log_->debug("robots.txt of {}: status {} {}", request.origin, response.status,
              failure.has_value() ? failure->detail : "");
  if (response.error == FetchError::kBlockedAddress) {
    // Its robots.txt (or a redirect of it) lies on a private address that
    // was not connected: like a redirect that cannot be followed, it counts
    // as unavailable in the 4xx sense (RFC 9309 2.3.1.3), so no rules apply.
    ++counters_.blocked_addresses;
    log_->info("robots.txt of {}: {}", request.origin, response.error_message);
    verdict = RobotsVerdict();  // kAllowAll.
  }
  if (verdict.kind == RobotsVerdict::kUnavailable) {
    // RFC 9309 2.3.1.4: assume complete disallow for now. The waiting URLs go
    // back to the frontier with the cause: a robots.txt answering 429/5xx
    // holds them as throttled (robots_unavailable: the host backs off, they
    // are tried again, robots.txt first); no answer at all (dns, connect,
    // tls, timeout, ...) is their own failure, retried or not as a page's
    // would be, and counted towards the host being unreachable. A URL given
    // up is recorded, never silently dropped.
    Failure cause =
        response.ok()
            ? Failure{.code = FailureCode::kRobotsUnavailable,
                      .detail = failure.has_value()
                                    ? failure->detail
                                    : absl::StrCat("HTTP ", response.status)}
            : *failure;
    cause.detail = absl::StrCat("robots.txt: ", cause.detail);
    log_->info("robots.txt of {}: {}: {}", request.origin,
               FailureCodeName(cause.code), cause.detail);
    if (cause.code == FailureCode::kRobotsUnavailable) {
      ++counters_.robots_unavailable;
    }
    const FetchOutcome outcome = OutcomeOf(cause);
    for (const FrontierUrl& url : pending.waiting) {
      PageRecord record = RecordOf(url);
      record.fetched_at = now;  // When it was given up, unfetched.
      record.error = std::string(FailureCodeName(cause.code));
      record.error_detail = cause.detail;
      Finish(record, url, outcome, now, /*page_started=*/false);
    }
    return;
  }
  if (!response.effective_url.empty() &&
      scope_->IsSeedHost(request.authority)) {
    // A seed host's robots.txt that redirects to another host (http to
    // https, apex to www) names where the site lives.
    if (absl::StatusOr<UrlParts> final_parts = SplitUrl(response.effective_url);
        final_parts.ok() && final_parts->Authority() != request.authority) {
      AddRedirectedSeed(response.url, response.effective_url);
    }
  }
  if (verdict.crawl_delay.has_value()) {
    frontier_->SetCrawlDelay(request.host, *verdict.crawl_delay);
    revisits_->NoteCrawlDelay(request.host, *verdict.crawl_delay);
  }
  robots_.Store(request.origin, verdict);
  sitemaps_->QueueFromRobots(response.url, verdict);
  // The robots.txt request was made in the first URL's slot: the URLs go back
  // to the head of their host's queue (newest first, so the oldest ends up in
  // front), and the frontier spaces the host's next request from now.
  for (auto it = pending.waiting.rbegin(); it != pending.waiting.rend(); ++it) {
    (void)ReportDone(*it, FetchOutcome::Deferred(), now);
  }
}

}  // namespace sieve
