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
#include "crawler/render/render_archive.h"
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

FetchOutcome OutcomeOfAnswer(const FetchResponse& response) {
  const std::optional<Failure> failure = FailureOf(response);
  if (!response.ok() && failure.has_value()) return OutcomeOf(*failure);
  if (failure.has_value() && failure->code == FailureCode::kThrottled) {
    FetchOutcome throttled = OutcomeOf(*failure);
    throttled.retry_after =
        ParseRetryAfter(response.headers.retry_after, absl::Now());
    return throttled;
  }
  return FetchOutcome::Success(response.timings.total);
}

PageRecord RecordOf(const FrontierUrl& url) {
  PageRecord record;
  record.url = url.url;
  record.depth = url.depth;
  record.discovered_from = Origin::Decode(url.metadata).referrer;
  return record;
}

void Crawler::Impl::SubmitPage(FrontierUrl url, absl::Time now) {
  // A host due again soon keeps its connection; the others leave the idle
  // slots to those (fetch/internal/idle_connections.h).
  FetchRequest request{
      .id = 0, .url = url.url, .next_request_in = url.host_due_again};
  revisits_->AddValidators(request);  // A revisit asks "changed since?".
  if (Origin::Decode(url.metadata).sitemap) {
    // sitemaps.org allows 50 MiB per file; ParseSitemap bounds it again
    // after gunzip.
    request.max_body_bytes = std::max<int64_t>(kSitemapMaxUncompressedBytes,
                                               config().fetch.max_body_bytes);
  }
  std::string host = url.host;
  request.id = requests_.Add(Request{.kind = RequestKind::kPage,
                                     .url = std::move(url),
                                     .host = std::move(host),
                                     .authority = {},
                                     .origin = {},
                                     .start = now});
  fetcher_->Submit(std::move(request));
}

UrlFate Crawler::Impl::ReportDone(const FrontierUrl& url,
                                  const FetchOutcome& outcome, absl::Time now) {
  absl::StatusOr<UrlFate> fate = frontier_->Done(url.url, outcome, now);
  if (!fate.ok()) {
    log()->warn("frontier: {}", std::string(fate.status().message()));
    return UrlFate::kRetryLater;  // Not ours to record.
  }
  return *fate;
}

void Crawler::Impl::SkipUrl(const FrontierUrl& url, absl::Time now) {
  (void)ReportDone(url, FetchOutcome::NotFetched(), now);
}

void Crawler::Impl::OnResponse(FetchResponse response, absl::Time now) {
  std::optional<Request> taken = requests_.Take(response.id);
  if (!taken.has_value()) return;
  Request request = *std::move(taken);
  // Archived as it arrived, whatever becomes of it (robots.txt, sitemaps,
  // answers the frontier retries).
  const std::optional<WarcLocation> archived = Archive(response, request.start);
  if (request.kind == RequestKind::kRobots) {
    OnRobots(request, response, now);
  } else if (request.kind == RequestKind::kSubresource) {
    OnSubresource(request, response, now);
  } else {
    OnPage(std::move(request), std::move(response), now, archived);
  }
}

std::optional<WarcLocation> Crawler::Impl::Archive(FetchResponse& response,
                                                   absl::Time start) {
  if (!archive_->enabled() || !response.wire.captured() ||
      !stop_.fatal().ok()) {
    return std::nullopt;
  }
  absl::StatusOr<std::optional<WarcLocation>> at =
      archive_->Write(response, start, revisits_->ArchivedCopyOf(response.url));
  if (!at.ok()) {
    // Output that cannot be written: the crawl stops; the last checkpoint
    // still matches the files (recovery cuts the torn record).
    stop_.Fail(at.status());
    return std::nullopt;
  }
  return *std::move(at);
}

void Crawler::Impl::ArchiveRender(const std::string& url,
                                  const RenderResult& result) {
  if (!archive_->enabled() || !stop_.fatal().ok()) return;
  absl::StatusOr<WarcLocation> at =
      archive_->WriteResource(RenderResource(url, result, absl::Now()));
  if (!at.ok()) stop_.Fail(at.status());
}

void Crawler::Impl::Finish(PageRecord& record, const FrontierUrl& url,
                           const FetchOutcome& outcome, absl::Time now,
                           bool page_started) {
  switch (ReportDone(url, outcome, now)) {
    case UrlFate::kRetryLater:
      // The frontier fetches it again after the host's back-off: no record
      // yet, and a page request made for it does not count against
      // max_pages.
      if (page_started) requests_.GiveBackPage();
      return;
    case UrlFate::kGivenUp:
      // Recorded once, with the last answer, as given up.
      record.error_detail = absl::StrCat(
          record.error_detail, record.error_detail.empty() ? "" : "; ",
          "given up: retries exhausted");
      break;
    case UrlFate::kFinished:
      break;
  }
  WriteRecord(record);
}

void Crawler::Impl::AddRedirectedSeed(std::string_view from,
                                      std::string_view target) {
  absl::StatusOr<UrlParts> parts = rules_->Split(target);
  if (!parts.ok()) return;
  std::string authority = parts->Authority();
  if (!rules_->AddSeedHost(authority)) return;
  fetcher_->AllowPrivateAddressHost(GuardHost(authority));
  log()->info("seed {} redirects to {}: {} is crawled as a seed's host", from,
              target, authority);
  state_.seed_hosts.push_back(std::move(authority));
  ++counters().seeds_redirected;
}

void Crawler::Impl::RecordUnreachable(const FrontierUrl& url, absl::Time now) {
  PageRecord record = RecordOf(url);
  record.fetched_at = now;  // When it was given up, unfetched.
  record.error = url.unreachable_error;
  record.error_detail = absl::StrCat(
      "not fetched: host unreachable (", config().politeness.unreachable_after,
      " connection failures in a row); last: ", url.unreachable_detail);
  (void)ReportDone(url, FetchOutcome::NotFetched(), now);
  WriteRecord(record);
}

namespace {

// The record of a page answer: what the frontier knows of the URL, and what
// came back.
PageRecord RecordOfAnswer(const FrontierUrl& url, const Origin& origin,
                          const FetchResponse& response, absl::Time start,
                          const std::optional<WarcLocation>& archived) {
  PageRecord record = RecordOf(url);
  record.fetched_at = start;
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
  std::optional<Failure> failure = FailureOf(response);
  if (failure.has_value()) {
    record.error = std::string(FailureCodeName(failure->code));
    record.error_detail = failure->detail;
  }
  return record;
}

}  // namespace

Crawler::Impl::AnswerKind Crawler::Impl::Classify(const Answer& answer) {
  const FetchResponse& response = answer.response;
  if (!response.ok()) return AnswerKind::kFetchError;
  if (answer.failure.has_value() &&
      answer.failure->code == FailureCode::kThrottled) {
    return AnswerKind::kThrottled;
  }
  if (revisits_->IsNotModified(answer.url, response))
    return AnswerKind::kNotModified;
  if (response.status >= 300 && response.status < 400) {
    return AnswerKind::kRedirect;
  }
  if (answer.failure.has_value()) return AnswerKind::kHttpError;  // 4xx, 5xx
  if (answer.origin.sitemap) return AnswerKind::kSitemap;
  if (answer.origin.requisite) {
    // Never parsed for links, but a stylesheet for its url()s and @imports.
    return IsCss(response.headers.content_type) ? AnswerKind::kStylesheet
                                                : AnswerKind::kOther;
  }
  return IsHtml(response.headers.content_type) ? AnswerKind::kHtml
                                               : AnswerKind::kOther;
}

void Crawler::Impl::OnPage(Request request, FetchResponse response,
                           absl::Time now,
                           const std::optional<WarcLocation>& archived) {
  const Origin origin = Origin::Decode(request.url.metadata);
  PageRecord record =
      RecordOfAnswer(request.url, origin, response, request.start, archived);
  if (response.status != 0) {
    reporter_->ObserveFetch(absl::ToDoubleSeconds(response.timings.total));
  }
  std::optional<Failure> failure = FailureOf(response);
  Answer answer{.url = std::move(request.url),
                .origin = origin,
                .record = std::move(record),
                .response = std::move(response),
                .failure = std::move(failure),
                .archived = archived,
                .start = request.start,
                .now = now};
  const FetchOutcome success =
      FetchOutcome::Success(answer.response.timings.total);
  switch (Classify(answer)) {
    case AnswerKind::kFetchError:
      return OnFetchError(answer);
    case AnswerKind::kThrottled:
      // The frontier backs the host off and retries the URL within its
      // limit; recorded only when it gives up.
      return FinishAnswer(answer, OutcomeOfAnswer(answer.response));
    case AnswerKind::kNotModified:
      // A 304 to a revisit's conditional request: unchanged, no body.
      NoteAnswerVisit(answer);
      return FinishAnswer(answer, success);
    case AnswerKind::kRedirect:
      ++counters().redirects;
      OnRedirect(answer);
      return FinishAnswer(answer, success);
    case AnswerKind::kHttpError:
      ++counters().http_errors;
      return FinishAnswer(answer, success);
    case AnswerKind::kOther:
      CountAnswered(answer);
      return FinishAnswer(answer, success);
    case AnswerKind::kHtml:
      CountAnswered(answer);
      return SubmitParse(ParseKind::kHtml, answer);
    case AnswerKind::kStylesheet:
      CountAnswered(answer);
      return SubmitParse(ParseKind::kStylesheet, answer);
    case AnswerKind::kSitemap:
      CountAnswered(answer);
      return SubmitParse(ParseKind::kSitemap, answer);
  }
}

void Crawler::Impl::FinishAnswer(Answer& answer, const FetchOutcome& outcome) {
  Finish(answer.record, answer.url, outcome, answer.now,
         /*page_started=*/true);
}

void Crawler::Impl::NoteAnswerVisit(Answer& answer) {
  revisits_->NoteVisit(answer.url, answer.response, answer.record,
                       answer.archived, answer.start, answer.now);
}

void Crawler::Impl::CountAnswered(Answer& answer) {
  const int status = answer.response.status;
  if (status >= 200 && status < 300) {
    ++counters().pages_ok;
    NoteAnswerVisit(answer);
  }
}

void Crawler::Impl::OnFetchError(Answer& answer) {
  ++counters().fetch_errors;
  if (answer.response.error == FetchError::kBlockedAddress) {
    ++counters().blocked_addresses;
    RecordSkipped(answer.url.url, answer.origin.referrer,
                  SkipReason::kBlockedAddress);
  }
  FinishAnswer(answer, OutcomeOf(*answer.failure));
}

void Crawler::Impl::OnRedirect(Answer& answer) {
  const std::string& target = answer.response.redirect_url;
  if (target.empty()) return;
  const FrontierUrl& url = answer.url;
  const Origin& origin = answer.origin;
  PageRecord& record = answer.record;
  // As the target's own record will name it (the crawl's normaliser).
  absl::StatusOr<UrlParts> normal =
      NormalizeDiscovered(rules_->policy(), target);
  record.redirect_to = normal.ok() ? normal->normalized_url : target;
  if (url.depth == 0 && !origin.sitemap && !origin.from_robots) {
    AddRedirectedSeed(url.url, target);
  }
  record.links_found = 1;
  if (origin.redirect_hops + 1 > config().crawl.max_redirects) {
    record.error = std::string(FailureCodeName(FailureCode::kTooManyRedirects));
    record.error_detail =
        absl::StrCat("more than crawl.max_redirects (",
                     config().crawl.max_redirects, ") in a row");
    ++counters().too_many_redirects;
    RecordSkipped(target, url.url, SkipReason::kMaxRedirects);
    return;
  }
  // A sitemap that redirects stays a sitemap (and keeps the robots.txt that
  // named it as its referrer, for the location rule).
  const AddOutcome added = AddDiscovered(
      rules_->policy(), target, url.depth,
      Origin{.redirect_hops = origin.redirect_hops + 1,
             .referrer = origin.from_robots ? origin.referrer : url.url,
             .sitemap = origin.sitemap,
             .sitemap_nesting = origin.sitemap_nesting,
             .from_robots = origin.from_robots,
             .requisite = origin.requisite});
  LinkOutcomes target_fate;
  target_fate.Note(rules_->policy(), target, added);
  record.links_new = target_fate.queued;
  CountLinks(target_fate, url.url);
}

void Crawler::Impl::SubmitParse(ParseKind kind, Answer& answer) {
  // The host's slot is released now so fetching goes on while the body
  // parses on the pool. The record is written when it comes back
  // (CollectParsed; a sitemap index's sitemaps are queued then); a
  // checkpoint first waits for the pool, so every URL the frontier counts as
  // done has its record and its links by then.
  (void)ReportDone(answer.url,
                   FetchOutcome::Success(answer.response.timings.total),
                   answer.now);
  const LinkPolicy* policy = &rules_->policy();
  const SitemapLocationRule rule = config().crawl.sitemap_location;
  // A page weighs on the pool by its size (its parse tree); a sitemap (up to
  // 50 MiB) is streamed and weighs nothing.
  const size_t weight =
      kind == ParseKind::kSitemap ? 0 : answer.response.body.size();
  pool_->Submit(
      [this, policy, rule, kind, origin = answer.origin,
       record = std::move(answer.record), url = std::move(answer.url),
       response = std::move(answer.response)]() mutable {
        ParsedPage page;
        page.record = std::move(record);
        page.url = std::move(url);
        page.response_time = response.timings.total;
        switch (kind) {
          case ParseKind::kHtml:
            page.links = ProcessHtmlPage(*policy, response, page.url.depth);
            if (ShouldRender(response, page.links)) {
              page.to_render = std::move(response);
            }
            break;
          case ParseKind::kStylesheet:
            page.links = ProcessStylesheet(*policy, response, page.url.depth);
            break;
          case ParseKind::kSitemap:
            page.sitemap = ProcessSitemap(*policy, response, origin, rule);
            break;
        }
        return page;
      },
      weight);
}

}  // namespace sieve
