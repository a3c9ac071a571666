// filter/internal/capacity_watch.h: fires a filter's CapacityCallback once when
// its estimated count first exceeds the designed capacity, and once more at
// each further doubling.
//
// Fast path: one compare of a cheap fill measure (set bits, or items inserted)
// against the smallest measure at which the next threshold can be crossed; only
// past it is the estimate computed. Safe to call from several threads at once;
// the callback runs outside the lock, on the thread whose Add crossed the
// threshold, exactly once per threshold.
#ifndef SIEVE_FILTER_INTERNAL_CAPACITY_WATCH_H_
#define SIEVE_FILTER_INTERNAL_CAPACITY_WATCH_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>

#include "filter/filter.h"

namespace sieve::filter_internal {

class CapacityWatch {
 public:
  // Smallest fill measure at which the estimated count can exceed `count`;
  // UINT64_MAX if never.
  using MeasureForCount = std::function<uint64_t(double count)>;

  // Starts watching; the first threshold is `capacity`. Replaces an earlier
  // callback.
  void Install(CapacityCallback callback, uint64_t capacity,
               MeasureForCount measure_for_count);

  // Call after the fill measure grows to `measure`. `estimate_count()` returns
  // the current estimated count; `make_event(count)` the event to report with
  // it. Past the next threshold's measure every call estimates the count (a
  // scalable filter's measure can run 10 % ahead of its count: ~10^6 calls at
  // 10^7 keys), so keep it cheap; make_event, which may estimate the rate
  // (costly for a blocked filter), runs only when a threshold is crossed.
  template <typename EstimateCount, typename MakeEvent>
  void Observe(uint64_t measure, EstimateCount&& estimate_count,
               MakeEvent&& make_event) {
    if (state_ == nullptr ||
        measure < state_->next_measure.load(std::memory_order_relaxed)) {
      return;
    }
    const double count = estimate_count();
    if (count > state_->next_count.load(std::memory_order_relaxed))
      Fire(make_event(count));
  }

 private:
  struct State {
    std::mutex mu;  // not absl::Mutex: invisible to TSan in Debian's build
    CapacityCallback callback;
    uint64_t capacity = 0;
    MeasureForCount measure_for_count;
    std::atomic<double> next_count{0};
    std::atomic<uint64_t> next_measure{std::numeric_limits<uint64_t>::max()};
  };
  void Fire(const CapacityEvent& event);

  std::unique_ptr<State> state_;
};

}  // namespace sieve::filter_internal

#endif  // SIEVE_FILTER_INTERNAL_CAPACITY_WATCH_H_
