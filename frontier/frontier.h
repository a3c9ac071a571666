// frontier/frontier.h: the Frontier, the implementation of CrawlFrontier
// (frontier/crawl_frontier.h) for one process, and the owner of every per-host
// decision of a crawl. New URLs go through the Sieve (Bloom-filter dedup, a
// FIFO that spills to disk); the Frontier pulls them from the Sieve's FIFO into
// per-host queues only as fetch slots need them (Mercator's front and back
// queues, Heydon & Najork 1999) and hands out URLs whose host may be fetched
// now under its politeness rules (frontier/politeness.h); Done applies
// back-off, retries and the page cap.
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
//     queues on disk (frontier/internal/host_overflow.h), so one huge host that
//     must wait neither fills RAM nor hides the URLs of other hosts. Active
//     hosts (URLs queued or in flight; kHostStateBytes each) are held to the
//     same budget: past it nothing is pulled from the Sieve until some finish,
//     so a crawl of 10^6 hosts that all wait out a delay keeps at most budget /
//     1 KB of them active.
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
//     absl::StatusOr<sieve::UrlFate> fate = (*f)->Done(
//         next.url.url, sieve::FetchOutcome::Success(absl::Milliseconds(80)),
//         absl::Now());
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
#include "frontier/crawl_frontier.h"
#include "frontier/frontier_options.h"
#include "frontier/sieve.h"
#include "frontier/snapshot.h"
#include "frontier/url_record_store.h"

namespace sieve {

struct FrontierHosts;
class ParkedStore;
struct HostState;
struct QueuedUrl;
namespace internal {
class SieveWait;
}  // namespace internal

class Frontier final : public CrawlFrontier {
 public:
  // InvalidArgument names a bad option (the Sieve's or the Frontier's).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Frontier>> Create(
      FrontierOptions options);
  // Brings back the state Checkpoint added to `snapshot`. URLs that were in
  // flight at the checkpoint are queued again at the head of their hosts'
  // queues; crawl delays, page counts, dropped hosts and counters come back;
  // delays and back-offs start afresh. From options.sieve only the memory
  // budget, work_dir and verify_positives are used (see Sieve::Restore). The
  // snapshot is not modified.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Frontier>> Restore(
      const SnapshotReader& snapshot, FrontierOptions options);
  // The same from the snapshot published in `dir` (SnapshotReader::Open).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Frontier>> Restore(
      const std::filesystem::path& dir, FrontierOptions options);
  ~Frontier() override;
  Frontier(const Frontier&) = delete;
  Frontier& operator=(const Frontier&) = delete;

  // Queues `url` of host `host` unless the Sieve says it was (probably) seen or
  // the host was dropped; returns whether it was queued. `metadata` (opaque,
  // e.g. the referrer) comes back from Next. Cost: the Sieve's Push.
  // Thread-safe.
  bool Add(std::string_view url, std::string_view host, uint32_t depth,
           std::string_view metadata = {}) override;
  // Add with a dedup key apart from the URL (FrontierAdd::dedup_key: empty
  // means the URL): the seen-test and the seen-mark take the key, the queue
  // and Next the URL. Cost and thread safety: Add's.
  //   f->Add({.url = u, .host = h, .metadata = m, .dedup_key = fingerprint});
  bool Add(const FrontierAdd& add);
  // Queues `add.url` even if the Sieve has seen its key (a request that asks
  // not to be filtered: Scrapy's dont_filter), unless its host was dropped;
  // marks the key seen as Add does (a later Add of it is dropped), and the URL
  // is saved by Checkpoint like any queued URL. Returns false only for a
  // dropped host. Cost and thread safety: Add's.
  bool AddUnfiltered(const FrontierAdd& add);
  // Add for each, through one Sieve::PushMany (one lock, one filter batch).
  void AddMany(std::span<const FrontierAdd> urls,
               std::span<bool> queued) override;

  // A URL whose host may be fetched at `now`, the oldest such (breadth-first
  // across hosts); otherwise how long until one may be, or why none will be.
  // Pulls from the Sieve into host queues only while no host is ready (at most
  // max_pulls_past_budget past the budget). Cost: O(log hosts) plus the pulls.
  NextUrl Next(absl::Time now) override;
  // See CrawlFrontier::Revisit: a min-heap by due time, released into the
  // host queues by Next as due times pass, within revisit_share. Not saved
  // by Checkpoint: the caller owns the history that sets due times (the
  // crawler's per-URL history) and queues its revisits again on restore. A
  // dropped host (max_urls_per_host) is not revisited. Cost: O(log revisits
  // waiting). Thread-safe.
  //   f->Revisit({.url = u, .host = h, .depth = 1}, absl::Now() + interval);
  [[nodiscard]] absl::Status Revisit(const FrontierAdd& url,
                                     absl::Time due) override;
  // See CrawlFrontier::UrlRecords: the "url_records" family of the Sieve's
  // store, which is opened now if it was not yet (so it is in every later
  // Checkpoint, and Restore brings it back). Thread-safe.
  [[nodiscard]] absl::StatusOr<UrlRecordStore*> UrlRecords() override;
  // What Next(now) would return, with nothing handed out: a kReady URL stays
  // queued, and Next(now) returns it if nothing is added, done or dropped in
  // between. For a caller choosing among several Frontiers
  // (frontier/cluster/redis_frontier.h takes the oldest URL of all its
  // shards'). Cost: as Next's, less the dispatch.
  //
  //   NextUrl peek = f->PeekNext(now);
  //   if (peek.state == NextUrl::kReady && IsOldest(peek.url.url))
  //     next = f->Next(now);
  NextUrl PeekNext(absl::Time now);

  // Reports the end of the fetch of `url` (as returned by Next) at `now`,
  // releasing its host's slot; see FetchOutcome for what each kind does. The
  // host's next request starts no sooner than its delay after `now` (and after
  // its back-off when throttled). NotFound if `url` is not in flight.
  [[nodiscard]] absl::StatusOr<UrlFate> Done(std::string_view url,
                                             const FetchOutcome& outcome,
                                             absl::Time now) override;

  // Records the robots.txt Crawl-delay of `host`; a delay above max_crawl_delay
  // is recorded, counted and capped. Zero clears it. Takes effect from the
  // host's next request.
  void SetCrawlDelay(std::string_view host,
                     absl::Duration crawl_delay) override;
  // See CrawlFrontier::StartHostRequest and EndHostRequest. Cost: a host
  // lookup and a schedule update.
  absl::StatusOr<absl::Duration> StartHostRequest(std::string_view host,
                                                  absl::Time now) override;
  void EndHostRequest(std::string_view host, const FetchOutcome& outcome,
                      absl::Time now) override;
  // See CrawlFrontier. Cost: a host lookup (a disk read for a host parked
  // there, which comes back into RAM).
  uint32_t RendersWithoutLinks(std::string_view host) override;
  void NoteRender(std::string_view host, bool added_links) override;
  // Hosts whose Crawl-delay was above the cap, with the delay they asked for.
  std::vector<std::pair<std::string, absl::Duration>> CappedCrawlDelays() const;
  // No request to `host` starts before `until` (e.g. robots.txt answered 5xx).
  void BlockHost(std::string_view host, absl::Time until);
  // Discards `host`'s queued URLs (now and as they come out of the Sieve) and
  // refuses new ones; fetches in flight finish normally. Returns how many
  // queued URLs were discarded now.
  uint64_t DropHost(std::string_view host);
  // Whether `host`'s URLs are refused: it reached max_urls_per_host (its
  // queued URLs were discarded at that moment) or DropHost was called. A
  // frontier that feeds this one from elsewhere (frontier/cluster,
  // frontier/service) finishes the host's URLs it fed when this turns true.
  // Cost: a hash lookup under a reader lock. Thread-safe.
  bool IsDropped(std::string_view host) const;
  // See CrawlFrontier::TakeDiscarded: the URLs of dropped hosts discarded
  // since the last call (DropHost's too).
  std::vector<FrontierUrl> TakeDiscarded() override;
  // A frontier that feeds this one refused `add` because IsDropped(add.host):
  // kept for TakeDiscarded as Add's own refusal is, unless the Sieve has
  // (probably) seen it (a duplicate then). Counts nothing. Thread-safe.
  void NoteRefused(const FrontierAdd& add);

  FrontierStats stats() const override;
  FrontierFilterStats filter_stats() const override;
  // The first disk error of the Sieve's store or the host queues on disk.
  absl::Status status() const override;
  // The Sieve's own counters (filter estimated count and FPR, spill, lossless
  // mode), for the study.
  SieveStats sieve_stats() const { return sieve_->stats(); }
  // Installs the Sieve's capacity warning (see Sieve::OnCapacityExceeded): the
  // filter's estimated count passed expected_urls (and each doubling). Runs on
  // the thread whose Add crossed the threshold.
  void OnCapacityExceeded(CapacityCallback callback) {
    sieve_->OnCapacityExceeded(std::move(callback));
  }

  // Adds the Sieve's state ("sieve/...": filter, in-RAM queue, counters, and
  // the store's RocksDB checkpoint "sieve/store/", which holds the spilled
  // queue, lossless fingerprints and the host queues on disk) and the
  // Frontier's own ("frontier.state": RAM host queues with the URLs in flight
  // at their heads, page counts, crawl delays, dropped hosts, counters), as one
  // instant. The locks are held only while the in-memory parts are encoded and
  // the store's files are hard-linked (its write-ahead log copied, no memtable
  // flush); the files are written after.
  [[nodiscard]] absl::Status Checkpoint(SnapshotWriter& snapshot) override;
  // Checkpoint into a new snapshot under `dir`, committed (SnapshotWriter).
  [[nodiscard]] absl::Status Checkpoint(const std::filesystem::path& dir);

 private:
  Frontier(FrontierOptions options, std::unique_ptr<Sieve> sieve);
  // InvalidArgument names the first bad Frontier option (the Sieve checks its
  // own).
  static absl::Status Validate(const FrontierOptions& options);

  // Puts back the URLs whose lease (lease_timeout) ran out by `now`.
  void ExpireLeases(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What Next and PeekNext do before choosing: forgets idle hosts, wakes the
  // hosts whose delay is over and, while none is ready, pulls from the Sieve.
  // True when the host budget stopped the pulls with URLs left in the Sieve.
  bool PrepareReady(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Next's answer when no host is ready: how long until one is, or why none
  // will be.
  NextUrl NotReady(absl::Time now) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What the end of a request to `host` at `now` does to its politeness, for
  // Done and EndHostRequest alike: its delay from `now` (none for
  // kNotFetched), a success's adaptive delay and reset of the back-off, a
  // 429/503's or transient error's back-off (at least Retry-After), a failed
  // connection counted (no back-off). Returns whether that failure made the
  // host unreachable. Counts nothing in FrontierStats but hosts_unreachable.
  bool ApplyOutcome(HostState& host, const FetchOutcome& outcome,
                    absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // After a throttle or transient-error answer (the back-off is
  // ApplyOutcome's): requeues `entry` behind the host's other URLs, within
  // its retry limit.
  UrlFate RetryOrGiveUp(HostState& host, QueuedUrl entry, bool throttled)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The host answered: it is reachable.
  static void ClearUnreachable(HostState& host);
  // A failed connection to `host` (FetchOutcome::connection_failed): counts
  // it and, at unreachable_after in a row, marks the host unreachable.
  // Returns whether it now is.
  bool CountConnectionFailure(HostState& host, const FetchOutcome& outcome,
                              absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Discards `host`'s queued URLs and refuses new ones. Returns how many.
  uint64_t DropHostLocked(HostState& host) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Keeps `url` of dropped host `host` for TakeDiscarded.
  void NoteDiscarded(std::string_view host, QueuedUrl url);

  // Moves due revisits into the head of their hosts' queues, behind the
  // revisits already there (HostTable::PushRevisit), as far as revisit_share
  // allows.
  void ReleaseDueRevisits(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
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
  bool OverBudget() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The active hosts' own state fills the budget: a pull could add one more.
  bool HostsOverBudget() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Forgets idle hosts with nothing worth keeping and parks the others, so
  // the host table does not grow without bound.
  void ForgetIdleHosts(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Lets ForgetIdleHosts see idle `host` once its delays are past.
  void ForgetLater(const HostState& host) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // IsDropped's answer from the set in RAM alone (hosts not parked on disk).
  bool IsDroppedInRam(std::string_view host) const;
  // The cumulative counters in snapshot order (FrontierTotals), and back.
  std::vector<uint64_t> SnapshotCounters() const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RestoreCounters(const std::vector<uint64_t>& counters)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const FrontierOptions options_;
  const std::unique_ptr<Sieve> sieve_;
  // When a host's URLs in the Sieve come out (FrontierUrl::host_due_again).
  const std::unique_ptr<internal::SieveWait> sieve_wait_;

  // std::mutex rather than absl::Mutex: Debian's prebuilt Abseil carries no
  // ThreadSanitizer annotations, so TSan could not see absl::Mutex's ordering.
  mutable std::shared_mutex dropped_mu_;
  absl::flat_hash_set<std::string> dropped_hosts_ ABSL_GUARDED_BY(dropped_mu_);
  // Add calls refused because their host was dropped (Add does not take mu_).
  std::atomic<uint64_t> refused_for_dropped_host_{0};
  // For TakeDiscarded. Taken after mu_ (never before) and alone by Add.
  std::mutex discarded_mu_;
  std::vector<FrontierUrl> discarded_ ABSL_GUARDED_BY(discarded_mu_);

  // Parked hosts on disk (frontier/internal/parked_store.h): written under
  // mu_, asked by IsDropped from any thread.
  const std::unique_ptr<ParkedStore> parked_;
  mutable std::mutex mu_;
  // The host table, schedule, queues on disk and URLs in flight
  // (frontier/internal/frontier_hosts.h).
  const std::unique_ptr<FrontierHosts> hosts_ ABSL_PT_GUARDED_BY(mu_);
  // Hosts that went idle, with the time after which they may be forgotten.
  // A min-heap by time, so one host blocked for long holds back no other.
  std::priority_queue<std::pair<absl::Time, std::string>,
                      std::vector<std::pair<absl::Time, std::string>>,
                      std::greater<>>
      idle_hosts_ ABSL_GUARDED_BY(mu_);
  // Revisits waiting for their due time (Revisit), earliest first.
  struct DueRevisit {
    absl::Time due;
    uint64_t order = 0;  // Ties in due time go in the order they came.
    std::string host;
    std::string url;
    std::string metadata;
    uint32_t depth = 0;
    bool operator>(const DueRevisit& o) const {
      return due != o.due ? due > o.due : order > o.order;
    }
  };
  std::priority_queue<DueRevisit, std::vector<DueRevisit>, std::greater<>>
      revisits_ ABSL_GUARDED_BY(mu_);
  uint64_t revisit_order_ ABSL_GUARDED_BY(mu_) = 0;
  // Revisits released into host queues and not yet handed out, and this
  // process's dispatches (for revisit_share).
  uint64_t revisits_queued_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t revisits_dispatched_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t dispatched_here_ ABSL_GUARDED_BY(mu_) = 0;
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mu_);
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 1;
  uint64_t hosts_active_ ABSL_GUARDED_BY(mu_) = 0;
  FrontierStats counters_ ABSL_GUARDED_BY(mu_);
  // The first error of the host queues on disk.
  absl::Status overflow_status_ ABSL_GUARDED_BY(mu_);
  // UrlRecords' store, made on the first call. After sieve_ (whose store it
  // points into), so it goes first.
  std::mutex url_records_mu_;
  std::unique_ptr<UrlRecordStore> url_records_ ABSL_GUARDED_BY(url_records_mu_);
};

}  // namespace sieve

#endif  // SIEVE_FRONTIER_FRONTIER_H_
