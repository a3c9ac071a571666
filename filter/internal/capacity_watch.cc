#include "filter/internal/capacity_watch.h"

#include <utility>

namespace sieve::filter_internal {

void CapacityWatch::Install(CapacityCallback callback, uint64_t capacity,
                            MeasureForCount measure_for_count) {
  state_ = std::make_unique<State>();
  state_->callback = std::move(callback);
  state_->capacity = capacity;
  state_->measure_for_count = std::move(measure_for_count);
  const double first = static_cast<double>(capacity);
  state_->next_count.store(first, std::memory_order_relaxed);
  state_->next_measure.store(state_->measure_for_count(first),
                             std::memory_order_relaxed);
}

void CapacityWatch::Fire(const CapacityEvent& event) {
  CapacityCallback callback;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    double next = state_->next_count.load(std::memory_order_relaxed);
    if (!(event.estimated_count > next))
      return;  // another thread fired this threshold first
    // One report per crossing; a jump past several doublings (UnionWith, a late
    // Install) reports once and moves on to the next doubling above the current
    // count.
    while (event.estimated_count > next) next *= 2;
    state_->next_count.store(next, std::memory_order_relaxed);
    state_->next_measure.store(state_->measure_for_count(next),
                               std::memory_order_relaxed);
    callback = state_->callback;
  }
  if (callback) callback(event);
}

}  // namespace sieve::filter_internal
