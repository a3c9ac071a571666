// frontier/internal/host_schedule.h: which host the Frontier fetches next. Two
// ordered sets of the hosts that have queued URLs and a free in-flight slot:
//   ready    allowed now, ordered by the seq of their head URL (oldest first:
//            breadth-first across hosts, as close to the Sieve's FIFO as
//            politeness allows);
//   waiting  held back by a delay or back-off, ordered by the time they become
//            allowed.
// A host with an empty queue, all its slots in flight, or dropped is in
// neither set, so it costs nothing until Add or Done changes that. This is
// Mercator's back-queue heap (Heydon & Najork 1999) with the ready hosts kept
// apart, so a host waiting on its delay never holds a slot while another host
// is ready.
//
// Surprises first:
//   - Not thread-safe: the Frontier calls it under its own mutex.
//   - Holds HostState pointers: Remove a host before erasing it from the
//     HostTable.
//
// Example:
//   sieve::HostSchedule schedule;
//   schedule.Update(host, now, max_in_flight);  // After any change to host.
//   schedule.PromoteDue(now);
//   if (sieve::HostState* h = schedule.PopReady()) {
//     // Dispatch h->queue.front(), then Update(*h, ...) again.
//   }
#ifndef SIEVE_FRONTIER_INTERNAL_HOST_SCHEDULE_H_
#define SIEVE_FRONTIER_INTERNAL_HOST_SCHEDULE_H_

#include <cstdint>
#include <optional>
#include <set>
#include <tuple>

#include "absl/time/time.h"
#include "frontier/internal/host_table.h"

namespace sieve {

class HostSchedule {
 public:
  // Puts `host` where its state says: nowhere when it has no work
  // (HostState::HasWork), ready when host.ready_at() <= now, else waiting. Call
  // after every change to the host's queue, in-flight count or times. Cost:
  // O(log hosts).
  void Update(HostState& host, absl::Time now, int max_in_flight);
  // Takes `host` out of the schedule. Cost: O(log hosts).
  void Remove(HostState& host);

  // Moves every waiting host whose time has come to the ready set. Cost:
  // O(moved · log hosts).
  void PromoteDue(absl::Time now);
  // Removes and returns the ready host whose head URL is oldest; nullptr when
  // none is ready. The caller dispatches from it and then calls Update. Cost:
  // O(log hosts).
  HostState* PopReady();
  // The host PopReady would return, left in place; nullptr when none is ready.
  // Cost: O(1).
  const HostState* PeekReady() const;
  // When the first waiting host becomes allowed; nullopt when none waits.
  std::optional<absl::Time> NextWakeup() const;

  size_t ready_count() const { return ready_.size(); }
  size_t waiting_count() const { return waiting_.size(); }

 private:
  // Keys end in the host id, unique, so two hosts never collide and ties break
  // by age.
  using ReadyKey = std::tuple<uint64_t, uint64_t, HostState*>;  // head seq, id
  using WaitingKey =
      std::tuple<absl::Time, uint64_t, HostState*>;  // ready_at, id
  std::set<ReadyKey> ready_;
  std::set<WaitingKey> waiting_;
};

}  // namespace sieve

#endif  // SIEVE_FRONTIER_INTERNAL_HOST_SCHEDULE_H_
