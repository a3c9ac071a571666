// crawler/loop/stop_control.cc: when and why a run ends (see stop_control.h).
#include "crawler/loop/stop_control.h"

namespace sieve {

void StopControl::Start(absl::Time now) {
  deadline_ = options_.max_run_time == absl::InfiniteDuration()
                  ? absl::InfiniteFuture()
                  : now + options_.max_run_time;
}

void StopControl::Stop(StopReason reason, absl::Time now) {
  if (reason_.has_value()) return;
  reason_ = reason;
  grace_end_ = now + options_.grace;
}

bool StopControl::Check(absl::Time now) {
  if (stopping()) return false;
  if (requested_.load()) {
    Stop(StopReason::kInterrupted, now);
  } else if (now >= deadline_) {
    Stop(StopReason::kMaxRunTime, now);
  }
  return stopping();
}

void StopControl::Fail(const absl::Status& status) {
  if (!status.ok() && fatal_.ok()) fatal_ = status;
}

}  // namespace sieve
