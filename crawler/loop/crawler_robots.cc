// crawler/loop/crawler_robots.cc: a URL the frontier hands out meets
// robots.txt (RFC 9309) before its fetch: checked against the host's rules, or
// held while the host's robots.txt is fetched in its place (HandleReady), then
// given back to the frontier, deferred: the frontier hands it out again after
// the host's delay, counted from the robots.txt answer (OnRobots). A render's
// request of an origin not known yet has its robots.txt fetched the same way,
// in the host's lane (crawler_render.cc).
#include <string>
#include <utility>

#include "crawler/loop/crawler_impl.h"
#include "fetch/fetch_failure.h"
#include "parse/url.h"

namespace sieve {

void Crawler::Impl::HandleReady(FrontierUrl url, absl::Time now) {
  absl::StatusOr<UrlParts> parts = rules_->Split(url.url);
  if (!parts.ok()) {
    SkipUrl(url, now);
    return;
  }
  if (std::optional<bool> allowed = robots_->Allowed(*parts);
      allowed.has_value()) {
    if (!*allowed) {
      // The fate of a link robots.txt forbids, known only now.
      LinkOutcomes fate;
      fate.Note(rules_->policy(), url.url, AddOutcome::kDisallowed);
      CountLinks(fate, Origin::Decode(url.metadata).referrer);
      SkipUrl(url, now);
      return;
    }
    SubmitPage(std::move(url), now);
    return;
  }
  // robots.txt first (RFC 9309 2.3.1.2: follow up to five redirects), in the
  // slot of the first URL that waits for it.
  std::string host = url.host;
  if (!robots_->Hold(*parts, std::move(url))) return;
  FetchRobots(*parts, std::move(host), /*in_lane=*/false, now);
}

void Crawler::Impl::FetchRobots(const UrlParts& parts, std::string host,
                                bool in_lane, absl::Time now) {
  const uint64_t id =
      requests_.Add(Request{.kind = RequestKind::kRobots,
                            .url = {},
                            .host = std::move(host),
                            .authority = parts.Authority(),
                            .origin = RobotsGate::OriginOf(parts),
                            .start = now,
                            .ticket = 0,
                            .in_lane = in_lane});
  fetcher_->Submit(FetchRequest{
      .id = id, .url = RobotsGate::RobotsUrl(parts), .max_redirects = 5});
}

void Crawler::Impl::OnRobots(const Request& request,
                             const FetchResponse& response, absl::Time now) {
  if (request.in_lane) {
    frontier_->EndHostRequest(request.host, OutcomeOfAnswer(response), now);
  }
  std::optional<RobotsGate::Answer> answer =
      robots_->Take(request.origin, response);
  if (!answer.has_value()) return;
  if (answer->blocked) ++counters().blocked_addresses;
  if (answer->cause.has_value()) {
    // The waiting URLs go back with the cause, counted towards their host
    // being unreachable when no answer came; a URL given up is recorded,
    // never silently dropped.
    const Failure& cause = *answer->cause;
    const FetchOutcome outcome = OutcomeOf(cause);
    for (const FrontierUrl& url : answer->waiting) {
      PageRecord record = RecordOf(url);
      record.fetched_at = now;  // When it was given up, unfetched.
      record.error = std::string(FailureCodeName(cause.code));
      record.error_detail = cause.detail;
      Finish(record, url, outcome, now, /*page_started=*/false);
    }
    return;
  }
  if (!response.effective_url.empty() &&
      rules_->scope().IsSeedHost(request.authority)) {
    // A seed host's robots.txt that redirects to another host (http to
    // https, apex to www) names where the site lives.
    if (absl::StatusOr<UrlParts> final_parts =
            rules_->Split(response.effective_url);
        final_parts.ok() && final_parts->Authority() != request.authority) {
      AddRedirectedSeed(response.url, response.effective_url);
    }
  }
  const RobotsVerdict& verdict = answer->verdict;
  if (verdict.crawl_delay.has_value()) {
    frontier_->SetCrawlDelay(request.host, *verdict.crawl_delay);
    revisits_->NoteCrawlDelay(request.host, *verdict.crawl_delay);
  }
  sitemaps_->QueueFromRobots(response.url, verdict);
  // The robots.txt request was made in the first URL's slot: the URLs go back
  // to the head of their host's queue (newest first, so the oldest ends up in
  // front), and the frontier spaces the host's next request from now.
  for (auto it = answer->waiting.rbegin(); it != answer->waiting.rend(); ++it) {
    (void)ReportDone(*it, FetchOutcome::Deferred(), now);
  }
}

}  // namespace sieve
