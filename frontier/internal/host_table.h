// frontier/internal/host_table.h: the Frontier's per-host state (each host's
// FIFO of URLs taken from the Sieve, its requests in flight, when it may next
// be fetched, its politeness state) and the table that owns them, counting the
// bytes they hold.
//
// Surprises first:
//   - Not thread-safe: the Frontier calls it under its own mutex.
//   - HostState pointers stay valid until Erase (node-based map), so the
//     schedule and the in-flight map can hold them.
//   - Memory is an estimate: string bytes plus a fixed per-entry overhead
//     (kQueuedUrlOverhead).
//   - An idle host whose state is still worth keeping (a page count, a
//     robots.txt Crawl-delay, a drop) can be parked: its full HostState
//     (about 1 KB with its empty deque) is replaced by a ParkedHost of about
//     160 bytes, and GetOrCreate brings it back. Past `max_parked_in_memory`
//     parked hosts, half of them go to disk in one batch (ParkedStore, when
//     the table has one): RAM holds at most that many, whatever the hosts
//     seen (bench/frontier/many_hosts_bench.cc measures the bytes).
//
// Example:
//   sieve::HostTable hosts;
//   sieve::HostState& h = hosts.GetOrCreate("example.com");
//   hosts.PushBack(h, {.url = "http://example.com/", .seq = 1});
//   sieve::QueuedUrl u = hosts.PopFront(h);
#ifndef SIEVE_FRONTIER_INTERNAL_HOST_TABLE_H_
#define SIEVE_FRONTIER_INTERNAL_HOST_TABLE_H_

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "frontier/politeness.h"

namespace sieve {

// Debian's Abseil 20220623 has its own absl::string_view (not
// std::string_view): this converts at the calls into Abseil (StrCat, hash-map
// lookups).
inline absl::string_view AbslView(std::string_view s) {
  return {s.data(), s.size()};
}

// One URL waiting in a host queue (or in flight).
struct QueuedUrl {
  std::string url{};
  std::string metadata{};
  uint32_t depth = 0;
  // 429/503 answers this URL has had; see
  // PolitenessOptions::max_throttle_retries.
  uint32_t throttle_retries = 0;
  // Transient errors this URL has had; see
  // PolitenessOptions::max_error_retries.
  uint32_t error_retries = 0;
  // Counted in its host's urls_dispatched (set on its first dispatch), so a
  // retry or a deferred URL is not counted twice against max_urls_per_host.
  bool counted = false;
  // Queued by Frontier::Revisit (not saved: a restored revisit is queued
  // again by its owner's history).
  bool revisit = false;
  // Order in which the URL left the Sieve's FIFO (or was queued again for a
  // retry); the schedule serves the ready host whose head has the smallest
  // seq, which keeps the crawl close to breadth-first across hosts.
  uint64_t seq = 0;

  bool retried() const { return throttle_retries > 0 || error_retries > 0; }
};

// Estimated bytes of one QueuedUrl beyond its strings' characters (struct,
// deque slot, heap headers). Used for the Frontier's in-memory budget.
inline constexpr uint64_t kQueuedUrlOverhead = sizeof(QueuedUrl) + 32;

// Estimated heap bytes of one live HostState (the struct, its empty deque's map
// and first block, the map node, a short name): about 900 measured by
// bench/frontier/many_hosts_bench.cc. The Frontier counts live hosts at this
// much against host_queue_memory_bytes.
inline constexpr uint64_t kHostStateBytes = 1024;

// Where HostState::renders_without_links stops counting (a checkpoint keeps
// it in 7 bits).
inline constexpr uint32_t kMaxRendersWithoutLinks = 100;

// Where a host sits in the HostSchedule.
enum class HostSlot : uint8_t { kNone, kReady, kWaiting };

struct HostState {
  std::string name;
  uint64_t id =
      0;  // Creation order; breaks ties in the schedule deterministically.
  std::deque<QueuedUrl> queue;
  // Newer URLs of this host kept on disk (HostOverflow) once the RAM budget is
  // full. Invariant: queue.empty() implies overflow_count == 0 (the queue is
  // refilled as it empties).
  uint64_t overflow_count = 0;
  int in_flight = 0;
  // Earliest start of the next request by politeness delay (min delay,
  // Crawl-delay, adaptive).
  absl::Time next_allowed = absl::InfinitePast();
  // Start of the last request handed out (to re-apply a Crawl-delay learnt
  // meanwhile).
  absl::Time last_start = absl::InfinitePast();
  // Set by 429/503 back-off or Frontier::BlockHost.
  absl::Time blocked_until = absl::InfinitePast();
  HostPoliteness politeness;
  // URLs handed out for the first time (FrontierOptions::max_urls_per_host),
  // less those finished without a request (kNotFetched).
  uint64_t urls_dispatched = 0;
  // DropHost was called: queued URLs are discarded and new ones are refused.
  bool dropped = false;
  // Until then the host is unreachable (PolitenessOptions::unreachable_after):
  // its URLs are handed out unfetched with the last failure's code and cause.
  absl::Time unreachable_until = absl::InfinitePast();
  std::string unreachable_error;
  std::string unreachable_detail;

  // Renders of this host's pages in a row that added no link
  // (CrawlFrontier::NoteRender), at most kMaxRendersWithoutLinks.
  uint8_t renders_without_links = 0;

  // Counted in the Frontier's active hosts (URLs queued in RAM or on disk, or
  // requests in flight).
  bool active = false;

  // HostSchedule bookkeeping: which set the host is in and under which key.
  HostSlot slot = HostSlot::kNone;
  absl::Time slot_time;
  uint64_t slot_seq = 0;

  absl::Time ready_at() const { return std::max(next_allowed, blocked_until); }
  bool unreachable(absl::Time now) const { return now < unreachable_until; }
  // True when nothing but the clock stands between this host and a fetch. A
  // dropped host's queue holds only URLs already counted against its page
  // cap (deferred for its robots.txt), and those are still fetched.
  bool HasWork(int max_in_flight) const {
    return !queue.empty() && (!dropped || queue.front().counted) &&
           in_flight < max_in_flight;
  }
};

// What an idle host keeps once parked (HostTable::Park).
struct ParkedHost {
  uint64_t id = 0;
  uint64_t urls_dispatched = 0;
  absl::Duration crawl_delay = absl::ZeroDuration();
  bool crawl_delay_capped = false;
  bool dropped = false;  // HostState::dropped
  uint8_t renders_without_links = 0;
};

class ParkedStore;

class HostTable {
 public:
  // Parked hosts all in RAM.
  HostTable() = default;
  // Past `max_parked_in_memory` (REQUIRES: >= 2) parked hosts in RAM, half of
  // them go to `disk` (not owned; outlives the table). `revived_dropped` is
  // called with the name of each dropped host GetOrCreate brings back from
  // disk (the owner of the set of dropped hosts in RAM adds it again; see
  // TakeSpilledDropped for the other way).
  HostTable(ParkedStore* disk, uint64_t max_parked_in_memory,
            std::function<void(const std::string&)> revived_dropped)
      : disk_(disk),
        max_parked_in_memory_(max_parked_in_memory),
        revived_dropped_(std::move(revived_dropped)) {}
  HostTable(const HostTable&) = delete;
  HostTable& operator=(const HostTable&) = delete;

  // The state of `host`, created (empty, never fetched) on first use, or
  // brought back with its id, page count, Crawl-delay and drop when it was
  // parked. Cost: one or two hash lookups, and a disk read (a Bloom filter
  // probe for most hosts) once some parked hosts went to disk.
  HostState& GetOrCreate(std::string_view host);
  // For restoring a checkpoint: creates `host` with id `id` (ids handed out
  // later are larger). REQUIRES: `host` unknown, `id` unused.
  HostState& CreateWithId(std::string_view host, uint64_t id);
  // nullptr when the host is unknown or parked.
  HostState* Find(std::string_view host);
  const HostState* Find(std::string_view host) const;
  // Forgets `host`. REQUIRES: its queue is empty, nothing in flight, not in the
  // schedule.
  void Erase(std::string_view host);
  // Replaces `host`'s state by its ParkedHost (id, urls_dispatched,
  // Crawl-delay, dropped; everything else is what a fresh HostState holds).
  // REQUIRES: as Erase, and no back-off pending (next_allowed and
  // blocked_until past, no throttle streak): those are not kept. Cost: O(1)
  // amortised (a spill to disk writes half the parked hosts at once).
  void Park(std::string_view host);
  // The dropped hosts that went to disk since the last call (the Frontier's
  // set of dropped hosts in RAM forgets them; ParkedStore::IsDropped answers).
  std::vector<std::string> TakeSpilledDropped() {
    return std::exchange(spilled_dropped_, {});
  }
  // The first disk error of the parked hosts (a host whose record could not
  // be written stays in RAM; one that could not be read starts afresh).
  const absl::Status& status() const { return status_; }
  // After a restore: host ids handed out from now on are at least `id`.
  void ReserveIds(uint64_t id) { next_id_ = std::max(next_id_, id); }

  // Queue operations that keep the byte count in step. PushBack puts a fresh
  // URL ahead of the retried ones at the back of the queue (QueuedUrl::
  // retried), so a retry waits behind every fresh URL of its host.
  void PushBack(HostState& host, QueuedUrl url);
  void PushFront(HostState& host, QueuedUrl url);
  // A revisit come due: behind the revisits at the head of the host's queue,
  // ahead of its fresh URLs, so a host's revisits leave in the order they
  // came due. Cost: O(revisits queued at the head).
  void PushRevisit(HostState& host, QueuedUrl url);
  QueuedUrl PopFront(HostState& host);  // REQUIRES: !host.queue.empty().
  // Empties the host's queue; returns how many URLs it held.
  uint64_t Clear(HostState& host);

  uint64_t queued_urls() const { return queued_urls_; }
  uint64_t queued_bytes() const { return queued_bytes_; }
  uint64_t host_count() const { return hosts_.size(); }
  // Parked hosts in RAM, and on disk.
  uint64_t parked_count() const { return parked_.size(); }
  uint64_t parked_on_disk() const;

  // Visits every host (unordered). Cost: O(hosts).
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const auto& [name, state] : hosts_) fn(state);
  }
  // Visits every parked host in RAM as fn(name, ParkedHost) (unordered).
  // Cost: O(parked hosts in RAM).
  template <typename Fn>
  void ForEachParked(Fn&& fn) const {
    for (const auto& [name, parked] : parked_) fn(name, parked);
  }

  static uint64_t BytesOf(const QueuedUrl& url) {
    return url.url.size() + url.metadata.size() + kQueuedUrlOverhead;
  }

 private:
  absl::node_hash_map<std::string, HostState> hosts_;
  // Writes half of parked_ to disk_.
  void SpillParked();

  absl::flat_hash_map<std::string, ParkedHost> parked_;
  ParkedStore* const disk_ = nullptr;
  const uint64_t max_parked_in_memory_ = UINT64_MAX;
  std::vector<std::string> spilled_dropped_;
  const std::function<void(const std::string&)> revived_dropped_;
  absl::Status status_;
  uint64_t next_id_ = 1;
  uint64_t queued_urls_ = 0;
  uint64_t queued_bytes_ = 0;
};

}  // namespace sieve

#endif  // SIEVE_FRONTIER_INTERNAL_HOST_TABLE_H_
