// crawler/crawl/crawler_revisits.cc: revisits (crawl.revisit,
// docs/crawling.md "Revisits"). A fetched URL's history (url_history.h) keeps
// its validators and digest; its next visit is queued in the frontier
// (CrawlFrontier::Revisit, which owns when it is handed out and its host's
// politeness) at the time revisit_policy.h computes; the revisit sends the
// validators, and a 304 or an unchanged digest is recorded "changed": false
// and archived as a WARC revisit record.
#include <string>

#include "crawler/crawl/crawler_impl.h"

namespace sieve {

void Crawler::Impl::AddValidators(FetchRequest& request) const {
  if (!Revisiting()) return;
  auto it = history_.find(request.url);
  if (it == history_.end()) return;
  request.if_none_match = it->second.etag;
  request.if_modified_since = it->second.last_modified;
}

std::optional<WarcOriginal> Crawler::Impl::ArchivedCopyOf(
    const std::string& url) const {
  if (!Revisiting()) return std::nullopt;
  auto it = history_.find(url);
  if (it == history_.end() || it->second.warc_date == absl::InfinitePast())
    return std::nullopt;
  return WarcOriginal{.record_id = it->second.warc_record_id,
                      .target_uri = url,
                      .date = it->second.warc_date,
                      .payload_digest = it->second.digest};
}

bool Crawler::Impl::IsNotModified(const FrontierUrl& url,
                                  const FetchResponse& response) const {
  return Revisiting() && response.ok() && response.status == 304 &&
         history_.contains(url.url);
}

void Crawler::Impl::NoteVisit(const FrontierUrl& url,
                              const FetchResponse& response, PageRecord& record,
                              const std::optional<WarcLocation>& archived,
                              absl::Time start, absl::Time now) {
  if (!Revisiting()) return;
  // Before the history is made: a 304 to a first fetch (no validators were
  // sent) is no "not modified".
  const bool not_modified = IsNotModified(url, response);
  UrlHistory& history = history_[url.url];
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
    revisit_budget_.Update(url.host, old_rate, EstimateChangeRate(history));
    if (now - revisit_solved_ >= absl::Seconds(1)) {
      revisit_budget_.Solve();
      revisit_solved_ = now;
    }
  }
  history.interval = NextInterval(revisit_, history, revisit_budget_);
  history.next_due =
      NextDue(revisit_, history, revisit_budget_, now, revisit_gen_);
  if (absl::Status s = frontier_->Revisit({.url = url.url,
                                           .host = url.host,
                                           .depth = url.depth,
                                           .metadata = url.metadata},
                                          history.next_due);
      !s.ok() && fatal_.ok()) {
    fatal_ = s;
  }
}

void Crawler::Impl::QueueSavedRevisits(absl::Time now) {
  if (!Revisiting()) return;
  for (auto& [url, history] : history_) {
    // Never in the past: a crawl stopped for longer than an interval fetches
    // its overdue pages once, now, not once per missed interval.
    history.next_due = std::max(history.next_due, now);
    revisit_budget_.Update(history.host, std::nullopt,
                           EstimateChangeRate(history));
    if (absl::Status s = frontier_->Revisit({.url = url,
                                             .host = history.host,
                                             .depth = history.depth,
                                             .metadata = history.metadata},
                                            history.next_due);
        !s.ok()) {
      if (fatal_.ok()) fatal_ = s;
      return;
    }
  }
  revisit_budget_.Solve();
  revisit_solved_ = now;
  log_->info("revisits: {} URLs queued again from their history",
             history_.size());
}

}  // namespace sieve
