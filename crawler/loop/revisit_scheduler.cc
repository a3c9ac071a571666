// crawler/loop/revisit_scheduler.cc: revisits (crawl.revisit,
// docs/crawling.md "Revisits"). A fetched URL's history (url_history.h) keeps
// its validators and digest; its next visit is queued in the frontier
// (CrawlFrontier::Revisit, which owns when it is handed out and its host's
// politeness) at the time revisit_policy.h computes; the revisit sends the
// validators, and a 304 or an unchanged digest is recorded "changed": false
// and archived as a WARC revisit record. The histories live on disk, one
// record per URL in the frontier's store (CrawlFrontier::UrlRecords), which
// the frontier's checkpoint holds; nothing of them is kept in RAM.
#include "crawler/loop/revisit_scheduler.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "frontier/politeness.h"
#include "frontier/url_record_store.h"

namespace sieve {

RevisitScheduler::RevisitScheduler(const CrawlConfig& config,
                                   std::shared_ptr<spdlog::logger> log,
                                   absl::Status* fatal)
    : revisit_{.mode = config.crawl.revisit,
               .min = absl::Seconds(config.crawl.revisit_min),
               .max = absl::Seconds(config.crawl.revisit_max)},
      politeness_(MakePolitenessOptions(config)),
      budget_({.crawl_requests_per_second =
                   config.politeness.max_requests_per_second,
               .host_requests_per_second = RequestsPerSecondAt(
                   DelayBetweenRequests(politeness_, HostPoliteness{})),
               .min = revisit_.min,
               .max = revisit_.max}),
      log_(std::move(log)),
      fatal_(fatal) {}

namespace {

// A 304: "not modified" when the URL has a history (validators were sent);
// to a first fetch it answers no condition.
bool Answers304(const FetchResponse& response) {
  return response.ok() && response.status == 304;
}

}  // namespace

absl::Status RevisitScheduler::Open(CrawlFrontier& frontier) {
  frontier_ = &frontier;
  if (!Revisiting()) return absl::OkStatus();
  absl::StatusOr<UrlRecordStore*> store = frontier_->UrlRecords();
  if (!store.ok()) return store.status();
  history_ = *store;
  return absl::OkStatus();
}

std::optional<UrlHistory> RevisitScheduler::LoadHistory(std::string_view url) {
  if (!Revisiting()) return std::nullopt;
  absl::StatusOr<std::optional<std::string>> bytes = history_->Get(url);
  if (!bytes.ok()) {
    if (fatal_->ok()) *fatal_ = bytes.status();
    return std::nullopt;
  }
  if (!bytes->has_value()) return std::nullopt;
  absl::StatusOr<UrlHistory> history = DecodeUrlHistory(**bytes);
  if (!history.ok()) {
    if (fatal_->ok()) {
      *fatal_ = absl::DataLossError(
          absl::StrCat("the revisit history of ", std::string(url),
                       " does not decode: ", history.status().message()));
    }
    return std::nullopt;
  }
  return *std::move(history);
}

void RevisitScheduler::AddValidators(FetchRequest& request) {
  std::optional<UrlHistory> history = LoadHistory(request.url);
  if (!history.has_value()) return;
  request.if_none_match = history->etag;
  request.if_modified_since = history->last_modified;
}

std::optional<WarcOriginal> RevisitScheduler::ArchivedCopyOf(
    const std::string& url) {
  std::optional<UrlHistory> history = LoadHistory(url);
  if (!history.has_value() || history->warc_date == absl::InfinitePast())
    return std::nullopt;
  return WarcOriginal{.record_id = history->warc_record_id,
                      .target_uri = url,
                      .date = history->warc_date,
                      .payload_digest = history->digest};
}

bool RevisitScheduler::IsNotModified(const FrontierUrl& url,
                                     const FetchResponse& response) {
  return Revisiting() && Answers304(response) &&
         LoadHistory(url.url).has_value();
}

void RevisitScheduler::NoteVisit(const FrontierUrl& url,
                                 const FetchResponse& response,
                                 PageRecord& record,
                                 const std::optional<WarcLocation>& archived,
                                 absl::Time start, absl::Time now) {
  if (!Revisiting()) return;
  // One read of the history: whether it exists decides "not modified".
  std::optional<UrlHistory> known = LoadHistory(url.url);
  if (!fatal_->ok()) return;  // Never a fresh history over one unread.
  const bool not_modified = Answers304(response) && known.has_value();
  UrlHistory history = std::move(known).value_or(UrlHistory{});
  const std::optional<double> old_rate = EstimateChangeRate(history);
  if (not_modified) record.digest = history.digest;
  record.changed = RecordFetch(
      history, FetchSeen{.at = start,
                         .not_modified = not_modified,
                         .digest = record.digest,
                         .etag = response.headers.etag,
                         .last_modified = response.headers.last_modified});
  if (archived.has_value() && archived->kind == WarcRecordKind::kResponse) {
    history.warc_record_id = archived->record_id;
    history.warc_date = start;
  }
  history.host = url.host;
  history.depth = url.depth;
  history.metadata = url.metadata;
  if (revisit_.mode == RevisitMode::kAdaptive) {
    budget_.Update(url.host, old_rate, EstimateChangeRate(history));
    if (now - solved_ >= absl::Seconds(1)) {
      budget_.Solve();
      solved_ = now;
    }
  }
  history.interval = NextInterval(revisit_, history, budget_);
  history.next_due = NextDue(revisit_, history, budget_, now, gen_);
  if (absl::Status s = history_->Put(url.url, EncodeUrlHistory(history));
      !s.ok() && fatal_->ok()) {
    *fatal_ = s;
  }
  if (absl::Status s = frontier_->Revisit({.url = url.url,
                                           .host = url.host,
                                           .depth = url.depth,
                                           .metadata = url.metadata},
                                          history.next_due);
      !s.ok() && fatal_->ok()) {
    *fatal_ = s;
  }
}

void RevisitScheduler::NoteCrawlDelay(std::string_view host,
                                      absl::Duration crawl_delay) {
  if (revisit_.mode != RevisitMode::kAdaptive) return;
  HostPoliteness politeness;
  politeness.crawl_delay = crawl_delay;
  budget_.SetHostAllowance(
      host, RequestsPerSecondAt(DelayBetweenRequests(politeness_, politeness)));
}

void RevisitScheduler::QueueSaved(absl::Time now) {
  if (!Revisiting()) return;
  uint64_t queued = 0;
  absl::Status s = history_->ForEach([&](std::string_view url,
                                         std::string_view bytes) {
    absl::StatusOr<UrlHistory> history = DecodeUrlHistory(bytes);
    if (!history.ok()) {
      return absl::DataLossError(
          absl::StrCat("the checkpoint's revisit history of ", std::string(url),
                       " does not decode: ", history.status().message()));
    }
    // Never in the past: a crawl stopped for longer than an interval
    // fetches its overdue pages once, now, not once per missed interval.
    if (history->next_due < now) {
      history->next_due = now;
      if (absl::Status put = history_->Put(url, EncodeUrlHistory(*history));
          !put.ok()) {
        return put;
      }
    }
    budget_.Update(history->host, std::nullopt, EstimateChangeRate(*history));
    ++queued;
    return frontier_->Revisit({.url = url,
                               .host = history->host,
                               .depth = history->depth,
                               .metadata = history->metadata},
                              history->next_due);
  });
  if (!s.ok()) {
    if (fatal_->ok()) *fatal_ = s;
    return;
  }
  budget_.Solve();
  solved_ = now;
  log_->info("revisits: {} URLs queued again from their history", queued);
}

}  // namespace sieve
