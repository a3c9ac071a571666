// frontier/frontier_stats.h: FrontierStats, the counters every CrawlFrontier
// (frontier/crawl_frontier.h) keeps for the progress line, the summary and
// /metrics; SIEVE_FRONTIER_STATS, the one list of their fields; and
// FrontierFilterStats, the dedup filter's state now.
//
// Example (a worker's counters summed over its shards):
//   sieve::FrontierStats sum;
//   for (const sieve::FrontierStats& shard : shards) {
//     sieve::AddFrontierStats(shard, sum);
//   }
//   // What a checkpoint saves:
//   std::vector<uint64_t> saved = sieve::FrontierTotals(sum);
#ifndef SIEVE_FRONTIER_FRONTIER_STATS_H_
#define SIEVE_FRONTIER_FRONTIER_STATS_H_

#include <cstdint>
#include <span>
#include <vector>

namespace sieve {

// Counters for the progress line and the summary. The cumulative ones (from
// `added` down) survive Checkpoint and restore.
struct FrontierStats {
  // URLs waiting: in the Sieve plus in per-host queues (RAM and disk).
  uint64_t queued = 0;
  uint64_t queued_in_sieve = 0;       // In the Sieve's FIFO (RAM or disk).
  uint64_t queued_in_hosts = 0;       // In per-host queues in RAM.
  uint64_t queued_on_disk_hosts = 0;  // In per-host queues on disk.
  uint64_t host_queue_bytes = 0;      // Estimated RAM of per-host queues.
  uint64_t queue_bytes_in_sieve = 0;  // Budgeted RAM of the Sieve's FIFO.
  uint64_t in_flight = 0;             // Handed out by Next, not yet Done.
  uint64_t hosts_active = 0;  // Hosts with URLs queued (RAM/disk) or in flight.
  uint64_t hosts_known = 0;   // Hosts the frontier holds state for.
  // Idle hosts parked (FrontierOptions::max_parked_hosts_in_memory) in RAM,
  // and on disk.
  uint64_t hosts_parked = 0;
  uint64_t hosts_parked_on_disk = 0;

  uint64_t added = 0;       // Add calls that queued the URL.
  uint64_t duplicates = 0;  // Add calls the Sieve dropped as (probably) seen.
  uint64_t dispatched = 0;  // URLs returned by Next (re-dispatches included).
  uint64_t done = 0;        // Done calls, whatever the outcome.
  uint64_t succeeded = 0;
  uint64_t throttled = 0;  // 429/503 answers.
  uint64_t failed = 0;     // Errors, transient or not.
  uint64_t retried = 0;    // Throttled or failed URLs queued again.
  uint64_t given_up = 0;   // Throttled or failed URLs past their retries.
  // Discarded unfetched: URLs of hosts past max_urls_per_host.
  uint64_t dropped_urls = 0;
  uint64_t crawl_delays_capped = 0;  // SetCrawlDelay calls above the cap.
  // Next calls that stopped after max_pulls_past_budget pulls past the budget
  // without finding a ready host.
  uint64_t budget_stalls = 0;
  // Disk errors of the per-host queues on disk (the URL stays in RAM).
  uint64_t overflow_errors = 0;
  // Times a host was found unreachable (unreachable_after connection
  // failures in a row), and URLs handed out unfetched meanwhile.
  uint64_t hosts_unreachable = 0;
  uint64_t unreachable_urls = 0;
  // Revisits (CrawlFrontier::Revisit) waiting for their due time, or due and
  // held back by the revisit share.
  uint64_t revisits_waiting = 0;
  // URLs handed out by Next as revisits (in revisits_waiting before).
  uint64_t revisits = 0;
  // A shared frontier (frontier/cluster): URLs taken over from a worker that
  // stopped without finishing them; each may have been fetched twice. Counted
  // once, by the worker that takes them over. One process: URLs whose lease
  // ran out (FrontierOptions::lease_timeout).
  uint64_t reclaimed = 0;
  // Of dropped_urls: Add calls refused because their host was already past
  // max_urls_per_host.
  uint64_t refused_urls = 0;
};

// Every FrontierStats field once, as X(name, kind), for the code that must
// visit them all (the checkpoint, the sum over a worker's shards, the
// summary): kind is kNow for how things stand now (recomputed, never saved)
// or kTotal for a count since the crawl began (saved by Checkpoint and
// restored). The kTotal entries, in this order, are the counters a saved
// frontier holds (frontier/internal/host_snapshot.h): add a new one at the end
// only. A field missing here fails to compile (frontier/frontier_stats.cc).
// clang-format off
#define SIEVE_FRONTIER_STATS(X)      \
  X(queued, kNow)                    \
  X(queued_in_sieve, kNow)           \
  X(queued_in_hosts, kNow)           \
  X(queued_on_disk_hosts, kNow)      \
  X(host_queue_bytes, kNow)          \
  X(queue_bytes_in_sieve, kNow)      \
  X(in_flight, kNow)                 \
  X(hosts_active, kNow)              \
  X(hosts_known, kNow)               \
  X(hosts_parked, kNow)              \
  X(hosts_parked_on_disk, kNow)      \
  X(revisits_waiting, kNow)          \
  X(dispatched, kTotal)              \
  X(done, kTotal)                    \
  X(succeeded, kTotal)               \
  X(throttled, kTotal)               \
  X(failed, kTotal)                  \
  X(dropped_urls, kTotal)            \
  X(crawl_delays_capped, kTotal)     \
  X(budget_stalls, kTotal)           \
  X(refused_urls, kTotal)            \
  X(retried, kTotal)                 \
  X(given_up, kTotal)                \
  X(overflow_errors, kTotal)         \
  X(added, kTotal)                   \
  X(duplicates, kTotal)              \
  X(reclaimed, kTotal)               \
  X(hosts_unreachable, kTotal)       \
  X(unreachable_urls, kTotal)        \
  X(revisits, kTotal)
// clang-format on

enum class FrontierCounterKind { kNow, kTotal };

// Adds every field of `from` to `into`; with `totals_only`, the kTotal ones
// only (what a shard's frontier leaves behind when it goes).
void AddFrontierStats(const FrontierStats& from, FrontierStats& into,
                      bool totals_only = false);

// The kTotal fields of `stats` in SIEVE_FRONTIER_STATS order: what a
// checkpoint saves.
std::vector<uint64_t> FrontierTotals(const FrontierStats& stats);

// Sets the kTotal fields of `into` from `saved` (FrontierTotals' order). A
// list saved by an older version is shorter: the fields it lacks keep their
// value; a longer one's extra entries (a newer version's) are ignored.
void RestoreFrontierTotals(std::span<const uint64_t> saved,
                           FrontierStats& into);

// The frontier's dedup filter now, for the progress line and the capacity
// warning: its estimated count (Swamidass-Baldi), capacity and the
// false-positive rate at that fill.
struct FrontierFilterStats {
  uint64_t capacity = 0;
  double estimated_count = 0;
  double estimated_fp_rate = 0;
  // The filter's bytes in RAM and in files (SieveOptions::filter_memory_bytes);
  // 0 where the frontier does not know them.
  uint64_t bytes = 0;
  uint64_t bytes_on_disk = 0;
};

}  // namespace sieve

#endif  // SIEVE_FRONTIER_FRONTIER_STATS_H_
