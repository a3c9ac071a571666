#include "frontier/internal/host_schedule.h"

namespace sieve {

void HostSchedule::Remove(HostState& host) {
  switch (host.slot) {
    case HostSlot::kReady:
      ready_.erase(ReadyKey{host.slot_seq, host.id, &host});
      break;
    case HostSlot::kWaiting:
      waiting_.erase(WaitingKey{host.slot_time, host.id, &host});
      break;
    case HostSlot::kNone:
      break;
  }
  host.slot = HostSlot::kNone;
}

void HostSchedule::Update(HostState& host, absl::Time now, int max_in_flight) {
  Remove(host);
  if (!host.HasWork(max_in_flight)) return;
  const absl::Time at = host.ready_at();
  if (at <= now) {
    host.slot = HostSlot::kReady;
    host.slot_seq = host.queue.front().seq;
    ready_.emplace(host.slot_seq, host.id, &host);
  } else {
    host.slot = HostSlot::kWaiting;
    host.slot_time = at;
    waiting_.emplace(at, host.id, &host);
  }
}

void HostSchedule::PromoteDue(absl::Time now) {
  while (!waiting_.empty() && std::get<0>(*waiting_.begin()) <= now) {
    HostState* host = std::get<2>(*waiting_.begin());
    waiting_.erase(waiting_.begin());
    host->slot = HostSlot::kReady;
    host->slot_seq = host->queue.front().seq;
    ready_.emplace(host->slot_seq, host->id, host);
  }
}

HostState* HostSchedule::PopReady() {
  if (ready_.empty()) return nullptr;
  HostState* host = std::get<2>(*ready_.begin());
  ready_.erase(ready_.begin());
  host->slot = HostSlot::kNone;
  return host;
}

const HostState* HostSchedule::PeekReady() const {
  return ready_.empty() ? nullptr : std::get<2>(*ready_.begin());
}

std::optional<absl::Time> HostSchedule::NextWakeup() const {
  if (waiting_.empty()) return std::nullopt;
  return std::get<0>(*waiting_.begin());
}

}  // namespace sieve
