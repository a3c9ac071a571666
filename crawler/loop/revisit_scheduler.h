// crawler/loop/revisit_scheduler.h: revisits (crawl.revisit, docs/crawling.md
// "Revisits"): when each fetched URL is fetched again, and what it sends.
//
// Owns: the revisit options, the per-URL histories (url_history.h; one
// record per URL in the frontier's store, CrawlFrontier::UrlRecords, so on
// disk and in the frontier's checkpoints, never in RAM here), the adaptive
// revisit budget (revisit_budget.h: the bandwidth's allocation over the
// estimated change rates, solved again at most every second, each host
// allowed one request per its delay between requests) and its random
// source. The frontier owns when a queued revisit is handed out and its
// host's politeness.
//
// Surprises first:
//   - Not thread-safe: the crawl loop's thread only.
//   - A store error, or a history that does not decode (DataLoss naming the
//     URL), goes to `*fatal` (the first one is kept) and the crawl stops;
//     nothing is written over a history that could not be read.
//   - With revisits off every call is a no-op (nullopt, false).
//
// Example:
//   RevisitScheduler revisits(config, log, &fatal);
//   if (absl::Status s = revisits.Open(*frontier); !s.ok()) return s;
//   revisits.AddValidators(request);  // "changed since?"
#ifndef SIEVE_CRAWLER_LOOP_REVISIT_SCHEDULER_H_
#define SIEVE_CRAWLER_LOOP_REVISIT_SCHEDULER_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "crawler/config/crawl_options.h"
#include "crawler/output/page_record.h"
#include "crawler/output/warc_writer.h"
#include "crawler/policy/revisit_budget.h"
#include "crawler/policy/revisit_policy.h"
#include "crawler/policy/url_history.h"
#include "fetch/fetch_types.h"
#include "frontier/crawl_frontier.h"
#include "frontier/politeness.h"
#include "frontier/url_record_store.h"
#include "spdlog/logger.h"

namespace sieve {

class RevisitScheduler {
 public:
  // Options from `config` (crawl.revisit*, politeness.*). `fatal` must
  // outlive the scheduler.
  RevisitScheduler(const CrawlConfig& config,
                   std::shared_ptr<spdlog::logger> log, absl::Status* fatal);

  // Takes `frontier`'s URL records as the histories (with revisits on).
  // Call once the frontier is made or restored; it must outlive this.
  [[nodiscard]] absl::Status Open(CrawlFrontier& frontier);

  // On resume: every URL of the history queued again, due no earlier than
  // `now`. Cost: one pass over the store.
  void QueueSaved(absl::Time now);

  // The validators of `request.url`'s last answer, as a conditional request.
  // Cost: one store Get.
  void AddValidators(FetchRequest& request);
  // The archived copy of `url` a revisit record refers to; nullopt when
  // revisits are off or none is known.
  std::optional<WarcOriginal> ArchivedCopyOf(const std::string& url);
  // A 304 to a conditional request for `url` (one with history).
  bool IsNotModified(const FrontierUrl& url, const FetchResponse& response);
  // A 2xx or 304 of `url` fetched since `start`: its history updated,
  // `record.changed` set on a revisit, its next visit queued in the
  // frontier.
  void NoteVisit(const FrontierUrl& url, const FetchResponse& response,
                 PageRecord& record,
                 const std::optional<WarcLocation>& archived, absl::Time start,
                 absl::Time now);
  // A robots.txt Crawl-delay of `host`: adaptive revisits plan with the
  // allowance the frontier's politeness then gives the host.
  void NoteCrawlDelay(std::string_view host, absl::Duration crawl_delay);

  // Requests per second the adaptive plan spends (sieve_revisit_planned_per_
  // second); 0 otherwise.
  double planned_per_second() const { return budget_.spent(); }

 private:
  bool Revisiting() const { return revisit_.mode != RevisitMode::kOff; }
  std::optional<UrlHistory> LoadHistory(std::string_view url);

  RevisitOptions revisit_;
  PolitenessOptions politeness_;
  RevisitBudget budget_;
  absl::Time solved_ = absl::InfinitePast();
  absl::BitGen gen_;
  CrawlFrontier* frontier_ = nullptr;
  UrlRecordStore* history_ = nullptr;  // Null with revisits off.
  std::shared_ptr<spdlog::logger> log_;
  absl::Status* fatal_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_REVISIT_SCHEDULER_H_
