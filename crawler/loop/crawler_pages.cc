// crawler/loop/crawler_pages.cc: page transfers and their answers: a URL is
// submitted to the Fetcher (SubmitPage), its answer is reported to the
// frontier, which decides whether it is retried (ReportDone), and then recorded
// as an error or redirect, or handed to a parser thread (OnResponse, OnPage).
// Records are written in crawler_records.cc.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "crawler/loop/crawler_impl.h"
#include "crawler/output/warc_format.h"
#include "fetch/fetch_failure.h"
#include "fetch/retry_policy.h"
#include "parse/url.h"

namespace sieve {

FetchOutcome OutcomeOf(const Failure& failure) {
  const FailureInfo& info = InfoOf(failure.code);
  if (info.retry == FailureRetry::kThrottle) return FetchOutcome::Throttled();
  const bool transient = info.retry == FailureRetry::kError;
  if (info.connection_level) {
    return FetchOutcome::ConnectionFailed(transient, info.name, failure.detail);
  }
  return FetchOutcome::Error(transient);
}

PageRecord RecordOf(const FrontierUrl& url) {
  PageRecord record;
  record.url = url.url;
  record.depth = url.depth;
  record.discovered_from = Origin::Decode(url.metadata).referrer;
  return record;
}

void Crawler::Impl::SubmitPage(FrontierUrl url, absl::Time now) {
  ++pages_started_;
  const uint64_t id = next_request_id_++;
  FetchRequest request{.id = id, .url = url.url};
  AddValidators(request);  // A revisit asks "changed since?".
  if (Origin::Decode(url.metadata).sitemap) {
    // sitemaps.org allows 50 MiB per file; ParseSitemap bounds it again
    // after gunzip.
    request.max_body_bytes = std::max<int64_t>(kSitemapMaxUncompressedBytes,
                                               config_.fetch.max_body_bytes);
  }
  std::string host = url.host;
  requests_[id] = Request{.kind = RequestKind::kPage,
                          .url = std::move(url),
                          .host = std::move(host),
                          .authority = {},
                          .origin = {},
                          .start = now};
  fetcher_->Submit(std::move(request));
}

UrlFate Crawler::Impl::ReportDone(const FrontierUrl& url,
                                  const FetchOutcome& outcome, absl::Time now) {
  absl::StatusOr<UrlFate> fate = frontier_->Done(url.url, outcome, now);
  if (!fate.ok()) {
    log_->warn("frontier: {}", std::string(fate.status().message()));
    return UrlFate::kRetryLater;  // Not ours to record.
  }
  return *fate;
}

void Crawler::Impl::SkipUrl(const FrontierUrl& url, absl::Time now) {
  (void)ReportDone(url, FetchOutcome::NotFetched(), now);
}

void Crawler::Impl::OnResponse(FetchResponse response, absl::Time now) {
  auto it = requests_.find(response.id);
  if (it == requests_.end()) return;
  Request request = std::move(it->second);
  requests_.erase(it);
  // Archived as it arrived, whatever becomes of it (robots.txt, sitemaps,
  // answers the frontier retries).
  const std::optional<WarcLocation> archived = Archive(response, request.start);
  if (request.kind == RequestKind::kRobots) {
    OnRobots(request, response, now);
  } else {
    OnPage(std::move(request), std::move(response), now, archived);
  }
}

void Crawler::Impl::Finish(PageRecord& record, const FrontierUrl& url,
                           const FetchOutcome& outcome, absl::Time now,
                           bool page_started) {
  switch (ReportDone(url, outcome, now)) {
    case UrlFate::kRetryLater:
      // The frontier fetches it again after the host's back-off: no record
      // yet, and a page request made for it does not count against
      // max_pages.
      if (page_started) {
        if (outcome.kind == FetchOutcome::kThrottled) ++counters_.throttled;
        --pages_started_;
      }
      return;
    case UrlFate::kGivenUp:
      // Recorded once, with the last answer, as given up.
      record.error_detail = absl::StrCat(
          record.error_detail, record.error_detail.empty() ? "" : "; ",
          "given up: retries exhausted");
      ++counters_.given_up;
      break;
    case UrlFate::kFinished:
      break;
  }
  WriteRecord(record);
}

void Crawler::Impl::AddRedirectedSeed(std::string_view from,
                                      std::string_view target) {
  absl::StatusOr<UrlParts> parts = SplitUrl(target);
  if (!parts.ok()) return;
  std::string authority = parts->Authority();
  if (!scope_->AddSeedHost(authority)) return;
  fetcher_->AllowPrivateAddressHost(GuardHost(authority));
  log_->info("seed {} redirects to {}: {} is crawled as a seed's host", from,
             target, authority);
  state_.seed_hosts.push_back(std::move(authority));
  ++counters_.seeds_redirected;
}

void Crawler::Impl::RecordUnreachable(const FrontierUrl& url, absl::Time now) {
  PageRecord record = RecordOf(url);
  record.fetched_at = now;  // When it was given up, unfetched.
  record.error = url.unreachable_error;
  record.error_detail = absl::StrCat(
      "not fetched: host unreachable (", config_.politeness.unreachable_after,
      " connection failures in a row); last: ", url.unreachable_detail);
  (void)ReportDone(url, FetchOutcome::NotFetched(), now);
  WriteRecord(record);
}

void Crawler::Impl::OnPage(Request request, FetchResponse response,
                           absl::Time now,
                           const std::optional<WarcLocation>& archived) {
  FrontierUrl& url = request.url;
  const Origin origin = Origin::Decode(url.metadata);
  PageRecord record = RecordOf(url);
  record.fetched_at = request.start;
  record.ip = response.ip_address;
  record.http_version = response.http_version;
  record.status = response.status;
  record.content_type = response.headers.content_type;
  record.bytes = static_cast<int64_t>(response.body.size());
  record.fetch_ms = absl::ToDoubleMilliseconds(response.timings.total);
  record.truncated = response.truncated;
  record.sitemap = origin.sitemap;
  record.requisite = origin.requisite;
  if (archived.has_value()) {
    record.warc_file = archived->file;
    record.warc_offset = archived->offset;
  }
  if (response.ok() && response.status >= 200 && response.status < 300) {
    // The WARC writer's payload digest when it archived the response.
    record.digest = archived.has_value() ? archived->payload_digest
                                         : Sha1Digest(response.body);
  }
  const absl::Duration response_time = response.timings.total;
  if (response.status != 0)
    fetch_latency_.Observe(absl::ToDoubleSeconds(response_time));

  std::optional<Failure> failure = FailureOf(response);
  if (failure.has_value()) {
    record.error = std::string(FailureCodeName(failure->code));
    record.error_detail = failure->detail;
  }
  if (!response.ok()) {
    ++counters_.fetch_errors;
    if (response.error == FetchError::kBlockedAddress) {
      ++counters_.blocked_addresses;
      RecordSkipped(url.url, origin.referrer, SkipReason::kBlockedAddress);
    }
    Finish(record, url, OutcomeOf(*failure), now, /*page_started=*/true);
    return;
  }
  if (failure.has_value() && failure->code == FailureCode::kThrottled) {
    // Throttled: the frontier backs the host off and retries the URL within
    // its limit; recorded only when it gives up.
    FetchOutcome throttled = OutcomeOf(*failure);
    throttled.retry_after =
        ParseRetryAfter(response.headers.retry_after, absl::Now());
    Finish(record, url, throttled, now, /*page_started=*/true);
    return;
  }
  const FetchOutcome success = FetchOutcome::Success(response_time);
  if (IsNotModified(url, response)) {
    // A 304 to a revisit's conditional request: unchanged, no body to parse.
    NoteVisit(url, response, record, archived, request.start, now);
    Finish(record, url, success, now, /*page_started=*/true);
    return;
  }
  if (response.status >= 300 && response.status < 400) {
    ++counters_.redirects;
    if (!response.redirect_url.empty()) {
      // As the target's own record will name it (the crawl's normaliser).
      absl::StatusOr<UrlParts> target =
          NormalizeDiscovered(policy_, response.redirect_url);
      record.redirect_to =
          target.ok() ? target->normalized_url : response.redirect_url;
      if (url.depth == 0 && !origin.sitemap && !origin.from_robots) {
        AddRedirectedSeed(url.url, response.redirect_url);
      }
      record.links_found = 1;
      if (origin.redirect_hops + 1 > config_.crawl.max_redirects) {
        record.error =
            std::string(FailureCodeName(FailureCode::kTooManyRedirects));
        record.error_detail =
            absl::StrCat("more than crawl.max_redirects (",
                         config_.crawl.max_redirects, ") in a row");
        ++counters_.too_many_redirects;
        RecordSkipped(response.redirect_url, url.url,
                      SkipReason::kMaxRedirects);
      } else {
        // A sitemap that redirects stays a sitemap (and keeps the robots.txt
        // that named it as its referrer, for the location rule).
        AddOutcome added = AddDiscovered(
            policy_, response.redirect_url, url.depth,
            Origin{.redirect_hops = origin.redirect_hops + 1,
                   .referrer = origin.from_robots ? origin.referrer : url.url,
                   .sitemap = origin.sitemap,
                   .sitemap_nesting = origin.sitemap_nesting,
                   .from_robots = origin.from_robots,
                   .requisite = origin.requisite});
        record.links_new = added == AddOutcome::kQueued ? 1 : 0;
        if (added == AddOutcome::kOffSite) ++counters_.off_site;
        if (added == AddOutcome::kDisallowed) ++counters_.robots_disallowed;
        if (std::optional<SkipReason> reason = SkipReasonOf(added)) {
          RecordSkipped(response.redirect_url, url.url, *reason);
        }
      }
    }
    Finish(record, url, success, now, /*page_started=*/true);
    return;
  }
  if (failure.has_value()) {  // 4xx, 5xx
    ++counters_.http_errors;
    Finish(record, url, success, now, /*page_started=*/true);
    return;
  }
  if (response.status >= 200 && response.status < 300) {
    ++counters_.pages_ok;
    NoteVisit(url, response, record, archived, request.start, now);
  }
  if (origin.sitemap) {
    // Parsed on the pool like a page (a sitemap may hold 50 MiB); recorded
    // when it comes back, its index's sitemaps queued then.
    (void)ReportDone(url, success, now);
    const LinkPolicy* policy = &policy_;
    const SitemapLocationRule rule = config_.crawl.sitemap_location;
    pool_->Submit([policy, rule, origin, record = std::move(record),
                   url = std::move(url), response = std::move(response),
                   response_time]() mutable {
      ParsedPage page;
      page.record = std::move(record);
      page.url = std::move(url);
      page.response_time = response_time;
      page.sitemap = ProcessSitemap(*policy, response, origin, rule);
      return page;
    });
    return;
  }
  if (origin.requisite) {
    // Never parsed for links, but a stylesheet for its url()s and @imports.
    if (!IsCss(response.headers.content_type) || response.status >= 300) {
      Finish(record, url, success, now, /*page_started=*/true);
      return;
    }
    (void)ReportDone(url, success, now);
    const LinkPolicy* policy = &policy_;
    const size_t css_bytes = response.body.size();
    pool_->Submit(
        [policy, record = std::move(record), url = std::move(url),
         response = std::move(response), response_time]() mutable {
          ParsedPage page;
          page.record = std::move(record);
          page.url = std::move(url);
          page.response_time = response_time;
          page.links = ProcessStylesheet(*policy, response, page.url.depth);
          return page;
        },
        css_bytes);
    return;
  }
  if (!IsHtml(response.headers.content_type)) {
    Finish(record, url, success, now, /*page_started=*/true);
    return;
  }
  // HTML: release the host's slot now so fetching goes on while the page
  // parses on the pool. The record is written when the page comes back
  // (CollectParsed); a checkpoint first waits for the pool, so every URL the
  // frontier counts as done has its record and its links by then.
  (void)ReportDone(url, success, now);
  const LinkPolicy* policy = &policy_;
  const size_t parse_bytes = response.body.size();  // weighs on the pool
  pool_->Submit(
      [policy, record = std::move(record), url = std::move(url),
       response = std::move(response), response_time]() mutable {
        ParsedPage page;
        page.record = std::move(record);
        page.url = std::move(url);
        page.response_time = response_time;
        page.links = ProcessHtmlPage(*policy, response, page.url.depth);
        return page;
      },
      parse_bytes);
}

}  // namespace sieve
