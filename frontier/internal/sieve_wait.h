// frontier/internal/sieve_wait.h: how long until a host's URLs waiting in the
// Sieve are handed out, so the crawl keeps a connection open only for a host
// due again soon (FrontierUrl::host_due_again).
//
// The per-host queues stay small and the bulk of the URLs waits in the Sieve
// (Frontier::PrepareReady), so a host whose queue is empty may still have
// URLs a few seconds back in the Sieve (a 1,000-host crawl) or minutes back
// (the unbounded web: a new host's own links wait behind millions). The
// Sieve is a FIFO: a URL leaves it once every URL pushed before it has. So it
// is enough to know, per host, the ordinal of the newest URL pushed for it:
// while that is above the pops so far, the host has URLs in the Sieve, and
// they are all out after (ordinal - pops) more pops, at the rate the Sieve is
// being drained. A host with none there may still be linked by the page
// being fetched: its wait is then that of a URL pushed now, the Sieve's lag.
// (Whether a host is done cannot be known before its last page is parsed, so
// a host done keeps its connection while the lag is short, as before.)
//
// The ordinals sit in a fixed table indexed by a hash of the host, so memory
// does not grow with the hosts seen (kSlots x 8 bytes = 512 KiB). A slot
// shared by two hosts keeps the newer ordinal: the estimate errs towards
// "later" for the older host, never towards "none pending" while one is.
// Pushes from several threads take their ordinals in an order that may
// differ from the Sieve's by the pushes running at once: an estimate.
// Starts empty on a restored frontier: the URLs of the restored Sieve count
// as none pending until their hosts are pushed again.
//
// Example (Frontier's use):
//   SieveWait wait(/*queued=*/0);
//   wait.Pushed("a.test");                  // Frontier::Add, each URL queued
//   wait.Popped(now);                        // Frontier::PullOne
//   absl::Duration d = wait.WaitOf("a.test", now);  // Frontier::Next
//
// Internal to sieve::Frontier. Pushed is thread-safe; Popped and WaitOf run
// under the Frontier's lock. O(1) each.
#ifndef SIEVE_FRONTIER_INTERNAL_SIEVE_WAIT_H_
#define SIEVE_FRONTIER_INTERNAL_SIEVE_WAIT_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/time/time.h"

namespace sieve::internal {

class SieveWait {
 public:
  static constexpr size_t kSlots = size_t{1} << 16;
  // The drain rate is measured over this long (and the last full window's
  // rate is used until the next one ends).
  static constexpr absl::Duration kRateWindow = absl::Seconds(10);

  // `queued`: records in the Sieve now (a restored one's); they leave first.
  explicit SieveWait(uint64_t queued);

  // A URL of `host` was queued in the Sieve (after every URL queued before).
  void Pushed(std::string_view host);
  // The Sieve handed out its oldest record at `now`.
  void Popped(absl::Time now);
  // How long until every URL of `host` now in the Sieve has been handed out
  // (or, with none there, a URL of it pushed now: the page being fetched may
  // link to its own host), at the drain rate measured. ZeroDuration when the
  // Sieve is empty or no rate is measured yet (the first second of pops);
  // InfiniteDuration when the Sieve holds URLs and is not being drained.
  absl::Duration WaitOf(std::string_view host, absl::Time now) const;

 private:
  std::atomic<uint64_t>& SlotOf(std::string_view host) const;

  // Ordinal of the newest URL pushed per slot; 0 = none.
  const std::unique_ptr<std::array<std::atomic<uint64_t>, kSlots>> slots_;
  std::atomic<uint64_t> pushed_;
  uint64_t popped_ = 0;
  absl::Time window_start_ = absl::InfinitePast();
  uint64_t window_pops_ = 0;
  double pops_per_second_ = -1;  // < 0: not measured yet.
};

}  // namespace sieve::internal

#endif  // SIEVE_FRONTIER_INTERNAL_SIEVE_WAIT_H_
