// crawler/loop/crawl_reporter.h: what the crawl says about itself while it
// runs and when it ends: the progress line, the metrics server
// (output.metrics), the Sieve filter's capacity warning and the summary
// (summary.json, CrawlSummary).
//
// Owns: the progress line (Progress), the metrics server and when it next
// publishes (every 250 ms), the page fetches' latency histogram, the run's
// clock (when this run started, the process's CPU time then, the pages and
// run seconds of the runs before it) and the capacity warning's last
// threshold (warned once past sieve.expected_urls, again at each doubling,
// each warning counted in capacity_warnings).
//
// It reads what it reports from the crawl's owners (Sources) and writes
// nothing but the capacity_warnings counter; the stop reason is the loop's,
// passed in.
//
// Surprises first:
//   - Not thread-safe: the crawl loop's thread only.
//   - The summary's pages_this_run and seconds are this run's (after
//     --resume); counters.run_seconds (RunSeconds) spans every run.
//
// Example:
//   absl::StatusOr<std::unique_ptr<CrawlReporter>> reporter =
//       CrawlReporter::Create(sources, log, /*live=*/false);
//   (*reporter)->Start(absl::Now());
//   (*reporter)->Tick(absl::Now(), std::nullopt);  // In each loop turn.
//   CrawlSummary summary = (*reporter)->Finish(absl::Now(), reason);
#ifndef SIEVE_CRAWLER_LOOP_CRAWL_REPORTER_H_
#define SIEVE_CRAWLER_LOOP_CRAWL_REPORTER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/config/crawl_config.h"
#include "crawler/loop/crawl_state.h"
#include "crawler/loop/crawler.h"
#include "crawler/loop/record_sink.h"
#include "crawler/loop/revisit_scheduler.h"
#include "crawler/output/metrics_server.h"
#include "crawler/output/metrics_text.h"
#include "crawler/output/progress.h"
#include "crawler/policy/domain_budget.h"
#include "crawler/policy/robots_cache.h"
#include "fetch/dns_cache.h"
#include "fetch/fetcher.h"
#include "frontier/crawl_frontier.h"
#include "spdlog/logger.h"

namespace sieve {

class RenderQueue;  // crawler/render/render_queue.h

class CrawlReporter {
 public:
  // What the reports read. Each must outlive the reporter; only `fetcher`,
  // `sink`, `robots`, `dns`, `domains`, `revisits` and `render` may be null
  // (their figures are then 0; no `render`: rendering is off).
  struct Sources {
    const CrawlConfig* config = nullptr;
    CrawlCounters* counters = nullptr;  // capacity_warnings is counted here.
    const CrawlFrontier* frontier = nullptr;
    const Fetcher* fetcher = nullptr;
    const RecordSink* sink = nullptr;
    const RobotsCache* robots = nullptr;
    const DnsCache* dns = nullptr;
    const DomainBudget* domains = nullptr;
    const RevisitScheduler* revisits = nullptr;
    const RenderQueue* render = nullptr;
  };

  // With config->output.metrics, starts the metrics server (an error when
  // it cannot listen). `live`: a live status line on stderr (a terminal).
  // The counters' pages and run_seconds now are the earlier runs' (--resume).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<CrawlReporter>> Create(
      Sources sources, std::shared_ptr<spdlog::logger> log, bool live);

  // The run starts now: this run's seconds, rate and CPU time count from it.
  void Start(absl::Time now);
  // In each loop turn: the progress line when due, the metrics when due.
  void Tick(absl::Time now, std::optional<StopReason> stop);
  // A record was written (`error`: with an error).
  void CountPage(bool error) { progress_->CountPage(error); }
  // A page fetch's answer took `seconds` (the latency histogram).
  void ObserveFetch(double seconds) { fetch_latency_.Observe(seconds); }
  // A page's render took `seconds` (RenderResult::elapsed: politeness waits
  // for its requests included).
  void ObserveRender(double seconds) { render_latency_.Observe(seconds); }
  // The capacity warning (logged once past the filter's capacity, again at
  // each doubling); true when sieve.on_capacity = stop and the filter holds
  // sieve.expected_urls URLs: the crawl should stop (logged once, unless
  // `stopping`). Cost: one filter_stats().
  bool CheckCapacity(bool stopping);
  // Seconds of every run so far (counters.run_seconds at a checkpoint).
  double RunSeconds(absl::Time now) const;
  // The summary now, stopped for `stop` (kFinished when none).
  CrawlSummary Summary(absl::Time now, std::optional<StopReason> stop) const;
  // The run ended: the progress line's last state, the last metrics, the
  // summary.
  CrawlSummary Finish(absl::Time now, std::optional<StopReason> stop);

  // Each memory budget's use now (CrawlSummary::budgets).
  std::vector<BudgetUse> Budgets() const;

 private:
  CrawlReporter(Sources sources, std::shared_ptr<spdlog::logger> log,
                bool live);
  ProgressSnapshot Snapshot(absl::Time now) const;
  // Chromium browsers running now (0 without rendering).
  uint64_t BrowsersAlive() const;
  void PublishMetrics(absl::Time now, std::optional<StopReason> stop);

  Sources sources_;
  std::shared_ptr<spdlog::logger> log_;
  std::unique_ptr<Progress> progress_;
  // output.metrics: the server, and what only it reports (this process's).
  std::unique_ptr<MetricsServer> metrics_;
  absl::Time next_metrics_ = absl::InfinitePast();
  LatencyHistogram fetch_latency_;   // Page fetches.
  LatencyHistogram render_latency_;  // Renders that ended well.
  uint64_t capacity_warned_at_ = 0;
  absl::Time started_;
  double cpu_at_start_ = 0;
  const uint64_t base_pages_;      // counters.pages when this run began.
  const double base_run_seconds_;  // counters.run_seconds then.
};

// User plus system CPU time of the process so far, all threads.
double CpuSeconds();

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_CRAWL_REPORTER_H_
