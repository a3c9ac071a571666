#include "frontier/internal/sieve_wait.h"

#include "filter/key_hash.h"

namespace sieve::internal {

SieveWait::SieveWait(uint64_t queued)
    : slots_(std::make_unique<std::array<std::atomic<uint64_t>, kSlots>>()),
      pushed_(queued) {}

std::atomic<uint64_t>& SieveWait::SlotOf(std::string_view host) const {
  return (*slots_)[Fingerprint64(host) % kSlots];
}

void SieveWait::Pushed(std::string_view host) {
  const uint64_t ordinal = pushed_.fetch_add(1, std::memory_order_relaxed) + 1;
  SlotOf(host).store(ordinal, std::memory_order_relaxed);
}

void SieveWait::Popped(absl::Time now) {
  ++popped_;
  if (window_start_ == absl::InfinitePast()) {
    window_start_ = now;
    window_pops_ = popped_;
  } else if (const absl::Duration elapsed = now - window_start_;
             elapsed >= kRateWindow) {
    pops_per_second_ = static_cast<double>(popped_ - window_pops_) /
                       absl::ToDoubleSeconds(elapsed);
    window_start_ = now;
    window_pops_ = popped_;
  }
}

absl::Duration SieveWait::WaitOf(std::string_view host, absl::Time now) const {
  const uint64_t newest = SlotOf(host).load(std::memory_order_relaxed);
  // Its newest URL in the Sieve, else one pushed now (a link the page being
  // fetched may hold).
  const uint64_t last =
      newest > popped_ ? newest : pushed_.load(std::memory_order_relaxed);
  if (last <= popped_) return absl::ZeroDuration();  // The Sieve is empty.
  double rate = pops_per_second_;
  if (rate < 0 && window_start_ != absl::InfinitePast() &&
      now - window_start_ >= absl::Seconds(1)) {
    // The first window, so far.
    rate = static_cast<double>(popped_ - window_pops_) /
           absl::ToDoubleSeconds(now - window_start_);
  }
  if (rate < 0) return absl::ZeroDuration();       // Not measured yet.
  if (rate == 0) return absl::InfiniteDuration();  // Not drained now.
  return absl::Seconds(static_cast<double>(last - popped_) / rate);
}

}  // namespace sieve::internal
