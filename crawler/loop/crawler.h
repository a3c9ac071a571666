// crawler/loop/crawler.h: the crawl loop of `sieve crawl`: frontier -> Fetcher
// -> parser threads -> frontier, with robots.txt, redirects, limits, output,
// progress, checkpoints.
//
// One thread (the caller of Run) owns the loop. It drives a CrawlFrontier
// (frontier/crawl_frontier.h) and nothing else of the frontier: it asks it for
// URLs whose host may be fetched now, fetches robots.txt before a host's first
// page, submits transfers to the Fetcher (never more than `fetch.concurrency`
// at once, so a transfer starts when it is handed out and per-host spacing
// holds at the server), polls it, tells the frontier how each fetch ended, and
// hands HTML bodies to a pool of parser threads. Every per-host decision
// (delays, Crawl-delay, back-off, retries, pages per host) is the frontier's:
// the loop keeps no per-host state but the robots.txt fetches in flight.
// The parsers push the links they find into the frontier themselves (Add is
// thread-safe) and give the page back to the loop, which writes its
// pages.jsonl record. The host's slot is released when the fetch ends, so
// fetching goes on while pages parse. A checkpoint first waits for the parsers
// and writes their records: then the URLs the frontier counts as done are
// exactly the records before the saved offset of pages.jsonl, and their links
// are in the frontier.
//
// Surprises first:
//   - RequestStop is the only call safe from another thread (a
//     signal-watching thread): it makes Run stop dispatching, give transfers
//     in flight `stop_grace` to finish (abandoned ones are queued again by the
//     checkpoint), write the checkpoint and return.
//   - Run may be called once.
//
// Example:
//   absl::StatusOr<std::unique_ptr<sieve::Crawler>> c =
//       sieve::Crawler::Create(setup);
//   if (!c.ok()) return c.status();
//   absl::StatusOr<sieve::CrawlSummary> summary = (*c)->Run();
#ifndef SIEVE_CRAWLER_LOOP_CRAWLER_H_
#define SIEVE_CRAWLER_LOOP_CRAWLER_H_

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/cli/out_dir_lock.h"
#include "crawler/config/crawl_config.h"
#include "crawler/loop/crawl_state.h"
#include "fetch/fetch_counters.h"
#include "frontier/crawl_frontier.h"
#include "spdlog/logger.h"

namespace sieve {

struct CrawlSetup {
  CrawlConfig config;
  // The seeds (normalised URLs); with `resume`, new seeds, pushed through the
  // Sieve like links (those seen before are dropped), their hosts added to the
  // seeds' hosts (scope, private-address guard).
  std::vector<std::string> seeds;
  // Continue the crawl whose output directory is config.crawl.out (its last
  // checkpoint).
  bool resume = false;
  std::shared_ptr<spdlog::logger> logger;
  // Draw a live status line on stderr (a terminal) instead of a log line every
  // few seconds.
  bool live_progress = false;
  // How long transfers in flight may run after a stop request. Default: 5 s.
  absl::Duration stop_grace = absl::Seconds(5);
  // The lock of config.crawl.out, when the caller took it before reading
  // anything there (sieve crawl does, for --resume's config.toml); when null,
  // Create takes it. Held until the Crawler is destroyed.
  std::shared_ptr<OutDirLock> out_lock = nullptr;
  // A fresh crawl writes this to OUT/config.toml atomically before its first
  // checkpoint (what --resume reads back); empty = no file.
  std::string saved_config = {};
};

// Why a run of the crawl ended.
enum class StopReason {
  kFinished,     // Nothing left to fetch.
  kMaxPages,     // crawl.max_pages reached.
  kMaxRunTime,   // crawl.max_run_seconds reached.
  kInterrupted,  // RequestStop (SIGINT, SIGTERM).
  kCapacity,     // sieve.on_capacity = "stop" and expected_urls reached.
};
// "finished", "max_pages", "max_run_time", "interrupted", "capacity": the names
// summary.json and the exit message use.
std::string_view StopReasonName(StopReason reason);

// One memory budget and its use now (docs/architecture.md, "Memory"):
// summary.json's "budgets" and /metrics' sieve_budget_used/_limit.
struct BudgetUse {
  std::string name;  // "sieve_queue", "dns_cache", ...
  std::string unit;  // "bytes", "hosts", "names", "origins", "domains".
  uint64_t used = 0;
  uint64_t limit = 0;
};

struct CrawlSummary {
  StopReason stop_reason = StopReason::kFinished;
  CrawlCounters counters;  // All runs of this output directory together.
  FrontierStats frontier;
  absl::Time started_at;   // This run's start.
  absl::Time finished_at;  // This run's end (or now, for a summary so far).
  uint64_t pages_this_run = 0;  // Records written by this run.
  double seconds = 0;           // This run.
  double cpu_seconds = 0;       // This run, all threads.
  uint64_t peak_rss_bytes = 0;
  uint64_t filter_capacity = 0;
  double filter_estimated_count = 0;
  double filter_estimated_fp_rate = 0;
  uint64_t filter_bytes = 0;          // In RAM.
  uint64_t filter_bytes_on_disk = 0;  // Its stages in files.
  // This run's connections, TLS handshakes and DNS lookups (the Fetcher's).
  FetchCounters fetch;
  std::vector<BudgetUse> budgets;  // Every budget of the crawl's RAM.
  // Chromium browsers running now (render.mode; 0 before the first render
  // and without rendering).
  uint64_t render_browsers_alive = 0;
};

class Crawler {
 public:
  // Locks the output directory (Unavailable naming the holder's pid
  // when another crawl has it), creates it, the Frontier (fresh, or restored from the
  // checkpoint with `resume`, cutting pages.jsonl back to it) and the Fetcher.
  // InvalidArgument for bad settings, NotFound when `resume` finds no
  // checkpoint.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Crawler>> Create(
      CrawlSetup setup);
  ~Crawler();
  Crawler(const Crawler&) = delete;
  Crawler& operator=(const Crawler&) = delete;

  // Crawls until the frontier is empty, a limit is reached or RequestStop;
  // writes the final checkpoint and summary.json. Errors only for output that
  // cannot be written.
  [[nodiscard]] absl::StatusOr<CrawlSummary> Run();

  // Thread-safe, async-signal-unsafe: call from a normal thread.
  void RequestStop();

 private:
  class Impl;
  explicit Crawler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The summary as a short table for a terminal.
std::string FormatSummaryTable(const CrawlSummary& summary,
                               const std::filesystem::path& out);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_CRAWLER_H_
