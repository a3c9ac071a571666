// crawler/output/progress.h: the crawl's progress report: on a terminal one live
// status line on stderr, redrawn twice a second (through the logger's
// LiveLineSink, crawler/logging.h, so a log line clears it first and redraws
// it after); off a terminal the same line as a log message every 5 seconds.
// The rate is this run's: pages fetched since the last report over the time
// since, and at the end this run's pages over this run's seconds (after
// --resume, earlier runs' pages do not count).
//
//   pages 1520 (212.4/s) | queued 3310 | in flight 8 | hosts 3 | filter
//   4830/10000000 fpr 2.1e-12 | errors 41
//
// and, while rendering is on (render.mode), pages rendered (all runs) and
// Chromium browsers alive: `... | errors 41 | rendered 212, browsers 1`.
//
// Not thread-safe: the crawl loop calls it.
#ifndef SIEVE_CRAWLER_OUTPUT_PROGRESS_H_
#define SIEVE_CRAWLER_OUTPUT_PROGRESS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "crawler/logging.h"
#include "spdlog/logger.h"

namespace sieve {

struct ProgressSnapshot {
  uint64_t pages = 0;
  uint64_t errors = 0;
  uint64_t queued = 0;
  uint64_t in_flight = 0;
  uint64_t hosts_active = 0;
  double filter_estimated_count = 0;
  uint64_t filter_capacity = 0;
  double filter_estimated_fp_rate = 0;
  double seconds = 0;           // Since the run started.
  uint64_t pages_this_run = 0;  // Of `pages`, this run's (after --resume).
  bool rendering = false;       // render.mode is on for this run.
  uint64_t rendered = 0;        // Pages rendered (all runs).
  uint64_t browsers_alive = 0;  // Chromium browsers running now.
};

// One status line (no newline).
std::string FormatProgressLine(const ProgressSnapshot& snapshot,
                               double pages_per_second);

class Progress {
 public:
  Progress(std::shared_ptr<spdlog::logger> logger, bool live);

  // Reports when the interval has passed; `snapshot` is only called then.
  void Tick(absl::Time now, const std::function<ProgressSnapshot()>& snapshot);
  // Clears the live line and logs the last state, with this run's rate (its
  // pages over its seconds).
  void Finish(const ProgressSnapshot& snapshot);
  void CountPage(bool error) { (void)error; }

 private:
  std::shared_ptr<spdlog::logger> log_;
  const bool live_;
  const absl::Duration interval_;
  absl::Time last_ = absl::InfinitePast();
  uint64_t last_pages_ = 0;
  bool line_shown_ = false;
  std::shared_ptr<LiveLineSink> sink_;  // The logger's, if it has one.
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_OUTPUT_PROGRESS_H_
