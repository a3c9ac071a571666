// frontier/frontier.h: the Frontier, what the crawl loop drives. New URLs go
// through the Sieve (Bloom-filter dedup, a FIFO that spills to disk); the
// Frontier pulls them from the Sieve's FIFO into per-host queues only as fetch
// slots need them (Mercator's front and back queues, Heydon & Najork 1999) and
// hands out URLs whose host may be fetched now under its politeness rules.
//
// Surprises first:
//   - Thread safety: Add may be called from any number of threads at once
//     (parser threads) while one loop calls Next/Done; every other call is
//     safe from any thread too. Add takes only the Sieve's mutex (and a reader
//     lock on the dropped-host set); Next, Done, Checkpoint and the host calls
//     take the Frontier's mutex.
//   - The Frontier does not parse URLs (docs/architecture.md, "Dependency
//     rules"): the caller passes the host key with each URL (the crawler
//     takes it from sieve::parse), and Done names the URL that Next returned.
//   - The clock is injected: Next and Done take `now`; nothing sleeps or reads
//     the clock.
//   - Memory: the per-host queues hold about `host_queue_memory_bytes` of URL
//     records in RAM (plus at most one per host). The bulk waits in the Sieve
//     (which spills to disk); URLs pulled past the budget wait in per-host
//     queues on disk (frontier/host_overflow.h), so one huge host that must
//     wait neither fills RAM nor hides the URLs of other hosts.
//   - Dedup is the Sieve's: a URL its filter thinks it has seen is dropped
//     (false positives at about SieveOptions::fp_rate, none with
//     verify_positives).
//
// Example:
//   auto f = sieve::Frontier::Create(
//       {.politeness = {.min_delay = absl::Seconds(1)}});
//   if (!f.ok()) return f.status();
//   (*f)->Add("http://a.example/", "a.example", /*depth=*/0);
//   sieve::NextUrl next = (*f)->Next(absl::Now());
//   if (next.state == sieve::NextUrl::kReady) {
//     ... fetch next.url.url ...
//     (void)(*f)->Done(next.url.url,
//                      sieve::FetchOutcome::Success(absl::Milliseconds(80)),
//                      absl::Now());
//   } else if (next.state == sieve::NextUrl::kWait) {
//     ... poll the fetcher for up to next.wait ...
//   }
#ifndef SIEVE_FRONTIER_FRONTIER_H_
#define SIEVE_FRONTIER_FRONTIER_H_

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <random>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "frontier/host_overflow.h"
#include "frontier/host_schedule.h"
#include "frontier/host_table.h"
#include "frontier/politeness.h"
#include "frontier/sieve.h"

namespace sieve {

struct FrontierOptions {
  // The Sieve behind the Frontier: filter size and kind, its queue's memory
  // budget and disk spill, lossless mode. Default: SieveOptions's defaults.
  SieveOptions sieve{};
  // Per-host delays, in-flight cap, adaptive delay, 429/503 back-off. Default:
  // see there.
  PolitenessOptions politeness{};
  // Bytes of URL records held in the per-host queues in RAM. Past it, a URL
  // pulled from the Sieve goes to its host's queue on disk (a scratch store
  // under sieve.work_dir) unless its host has nothing in RAM. Default: 64 MiB.
  uint64_t host_queue_memory_bytes = uint64_t{64} << 20;
  // While no host is ready, one Next call pulls at most this many records from
  // the Sieve past the budget, looking for a URL of a host that may be fetched
  // now (the others go to disk). Bounds the time of one Next call; the search
  // goes on at the next call. REQUIRES: > 0. Default: 4096.
  uint64_t max_pulls_past_budget = 4096;
  // Seed of the back-off jitter generator; the same seed gives the same
  // schedule. Default: 0x5eed.
  uint64_t seed = 0x5eed;
};

// One URL handed out by Next.
struct FrontierUrl {
  std::string url{};
  std::string host{};
  uint32_t depth = 0;
  std::string metadata{};
};

// What Next returns.
struct NextUrl {
  enum State {
    // `url` may be fetched now; call Done(url.url, ...) when it is finished.
    kReady,
    // No host is allowed yet; one will be after `wait`.
    kWait,
    // Every queued URL belongs to a host at its in-flight cap: wait for Done.
    kWaitForDone,
    // Nothing queued and nothing in flight: the crawl is finished.
    kEmpty,
  };
  State state = kEmpty;
  FrontierUrl url{};                           // kReady only.
  absl::Duration wait = absl::ZeroDuration();  // kWait only; > 0.
};

// How a fetch ended, as Done needs it.
struct FetchOutcome {
  enum Kind {
    // Any answer that is not throttling (2xx, 3xx, 404...): resets the
    // back-off; response_time feeds the adaptive delay.
    kSuccess,
    // 429 or 503: the host backs off (honouring retry_after); the URL goes
    // back to the head of its host's queue.
    kThrottled,
    // Transport error, timeout, other failure: releases the slot, no more.
    kError,
  };
  Kind kind = kSuccess;
  absl::Duration response_time = absl::ZeroDuration();
  std::optional<absl::Duration> retry_after = std::nullopt;

  static FetchOutcome Success(absl::Duration response_time) {
    return {.kind = kSuccess,
            .response_time = response_time,
            .retry_after = std::nullopt};
  }
  static FetchOutcome Throttled(
      std::optional<absl::Duration> retry_after = std::nullopt) {
    return {.kind = kThrottled,
            .response_time = absl::ZeroDuration(),
            .retry_after = retry_after};
  }
  static FetchOutcome Error() {
    return {.kind = kError,
            .response_time = absl::ZeroDuration(),
            .retry_after = std::nullopt};
  }
};

// Counters for the progress line. The cumulative ones (from `added` down)
// survive Checkpoint/Restore.
struct FrontierStats {
  // URLs waiting: in the Sieve plus in per-host queues (RAM and disk).
  uint64_t queued = 0;
  uint64_t queued_in_sieve = 0;       // In the Sieve's FIFO (RAM or disk).
  uint64_t queued_in_hosts = 0;       // In per-host queues in RAM.
  uint64_t queued_on_disk_hosts = 0;  // In per-host queues on disk.
  uint64_t host_queue_bytes = 0;      // Estimated RAM of per-host queues.
  uint64_t in_flight = 0;             // Handed out by Next, not yet Done.
  uint64_t hosts_active = 0;  // Hosts with URLs queued (RAM/disk) or in flight.
  uint64_t hosts_known = 0;   // Hosts the Frontier holds state for.

  uint64_t added = 0;       // Add calls that queued the URL.
  uint64_t duplicates = 0;  // Add calls the Sieve dropped as (probably) seen.
  uint64_t dispatched = 0;  // URLs returned by Next (re-dispatches included).
  uint64_t done = 0;        // Done calls: succeeded + throttled + failed.
  uint64_t succeeded = 0;
  uint64_t throttled = 0;
  uint64_t failed = 0;
  // Discarded: DropHost, URLs of dropped hosts, 429/503 past the retries.
  uint64_t dropped_urls = 0;
  uint64_t crawl_delays_capped = 0;  // SetCrawlDelay calls above the cap.
  // Next calls that stopped after max_pulls_past_budget pulls past the budget
  // without finding a ready host.
  uint64_t budget_stalls = 0;
  // Disk errors of the per-host queues on disk (the URL stays in RAM).
  uint64_t overflow_errors = 0;
};

class Frontier {
 public:
  // InvalidArgument names a bad option (the Sieve's or the Frontier's).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Frontier>> Create(
      FrontierOptions options);
  // Brings back the last snapshot Checkpoint wrote to `dir`. URLs that were in
  // flight at the checkpoint are queued again at the head of their hosts'
  // queues; crawl delays, dropped hosts and counters come back; delays and
  // back-offs start afresh. From options.sieve only the memory budget, work_dir
  // and verify_positives are used (see Sieve::Restore).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Frontier>> Restore(
      const std::filesystem::path& dir, FrontierOptions options);
  ~Frontier();
  Frontier(const Frontier&) = delete;
  Frontier& operator=(const Frontier&) = delete;

  // Queues `url` of host `host` unless the Sieve says it was (probably) seen or
  // the host was dropped; returns whether it was queued. `metadata` (opaque,
  // e.g. the referrer) comes back from Next. Cost: the Sieve's Push.
  // Thread-safe.
  bool Add(std::string_view url, std::string_view host, uint32_t depth,
           std::string_view metadata = {});

  // A URL whose host may be fetched at `now`, the oldest such (breadth-first
  // across hosts); otherwise how long until one may be, or why none will be.
  // Pulls from the Sieve into host queues only while no host is ready (at most
  // max_pulls_past_budget past the budget). Cost: O(log hosts) plus the pulls.
  NextUrl Next(absl::Time now);

  // Reports the end of the fetch of `url` (as returned by Next) at `now`,
  // releasing its host's slot. NotFound if `url` is not in flight.
  [[nodiscard]] absl::Status Done(std::string_view url,
                                  const FetchOutcome& outcome, absl::Time now);

  // Records the robots.txt Crawl-delay of `host`; a delay above max_crawl_delay
  // is recorded, counted and capped. Zero clears it. Takes effect from the
  // host's next request.
  void SetCrawlDelay(std::string_view host, absl::Duration crawl_delay);
  // Hosts whose Crawl-delay was above the cap, with the delay they asked for.
  std::vector<std::pair<std::string, absl::Duration>> CappedCrawlDelays() const;
  // No request to `host` starts before `until` (e.g. robots.txt answered 5xx).
  void BlockHost(std::string_view host, absl::Time until);
  // Discards `host`'s queued URLs (now and as they come out of the Sieve) and
  // refuses new ones; fetches in flight finish normally. Returns how many
  // queued URLs were discarded now.
  uint64_t DropHost(std::string_view host);

  FrontierStats stats() const;
  // The Sieve's own counters (filter estimated count and FPR, spill, lossless
  // mode), for the progress line and the study.
  SieveStats sieve_stats() const { return sieve_->stats(); }
  // Installs the Sieve's capacity warning (see Sieve::OnCapacityExceeded): the
  // filter's estimated count passed expected_urls (and each doubling). Runs on
  // the thread whose Add crossed the threshold.
  void OnCapacityExceeded(CapacityCallback callback) {
    sieve_->OnCapacityExceeded(std::move(callback));
  }

  // Writes the Sieve's snapshot and the Frontier's own state (host queues, URLs
  // in flight, crawl delays, dropped hosts, counters) as one consistent
  // snapshot under `dir` (created if missing): a new subdirectory, fsynced,
  // then published by atomically replacing `dir`/CURRENT (write, fsync,
  // rename);
  // older snapshots are then removed. A crash at any moment leaves the previous
  // snapshot readable. Blocks Next/Done/Add for its duration.
  [[nodiscard]] absl::Status Checkpoint(const std::filesystem::path& dir);

 private:
  Frontier(FrontierOptions options, std::unique_ptr<Sieve> sieve);
  // InvalidArgument names the first bad Frontier option (the Sieve checks its
  // own).
  static absl::Status Validate(const FrontierOptions& options);

  struct InFlight {
    QueuedUrl entry;
    HostState* host = nullptr;
  };

  // Keeps the schedule and the active-host count in step after a change to
  // `host`.
  void Touch(HostState& host, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves one record from the Sieve to its host's queue; false when the Sieve
  // is empty.
  bool PullOne(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Appends `url` to `host`'s queue: in RAM, or on disk when the budget is
  // full and the host already has URLs in RAM (or on disk, to keep order).
  void Enqueue(HostState& host, QueuedUrl url)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Refills an emptied RAM queue from the host's queue on disk.
  void Refill(HostState& host) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool OverBudget() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return hosts_.queued_bytes() >= options_.host_queue_memory_bytes;
  }
  // Forgets idle hosts with nothing worth keeping, so the host table does not
  // grow without bound.
  void ForgetIdleHosts(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool IsDropped(std::string_view host) const;
  // The cumulative counters in snapshot order, and back.
  std::vector<uint64_t> SnapshotCounters() const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RestoreCounters(const std::vector<uint64_t>& counters)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const FrontierOptions options_;
  const std::unique_ptr<Sieve> sieve_;

  // std::mutex rather than absl::Mutex: Debian's prebuilt Abseil carries no
  // ThreadSanitizer annotations, so TSan could not see absl::Mutex's ordering.
  mutable std::shared_mutex dropped_mu_;
  absl::flat_hash_set<std::string> dropped_hosts_ ABSL_GUARDED_BY(dropped_mu_);
  // Add calls refused because their host was dropped (Add does not take mu_).
  std::atomic<uint64_t> refused_for_dropped_host_{0};

  mutable std::mutex mu_;
  HostTable hosts_ ABSL_GUARDED_BY(mu_);
  HostSchedule schedule_ ABSL_GUARDED_BY(mu_);
  HostOverflow overflow_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, InFlight> in_flight_ ABSL_GUARDED_BY(mu_);
  // Hosts that went idle, with the time after which they may be forgotten.
  // A min-heap by time, so one host blocked for long holds back no other.
  std::priority_queue<std::pair<absl::Time, std::string>,
                      std::vector<std::pair<absl::Time, std::string>>,
                      std::greater<>>
      idle_hosts_ ABSL_GUARDED_BY(mu_);
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mu_);
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 1;
  uint64_t hosts_active_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t checkpoint_seq_ ABSL_GUARDED_BY(mu_) = 0;
  FrontierStats counters_ ABSL_GUARDED_BY(mu_);
};

}  // namespace sieve

#endif  // SIEVE_FRONTIER_FRONTIER_H_
