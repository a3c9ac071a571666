#include "fetch/internal/start_queue.h"

#include <utility>

namespace sieve::fetch_internal {

void StartQueue::Push(std::unique_ptr<Transfer> transfer) {
  fifo_.push_back(std::move(transfer));
}

void StartQueue::PushFront(std::unique_ptr<Transfer> transfer) {
  fifo_.push_front(std::move(transfer));
}

std::unique_ptr<Transfer> StartQueue::PopStartable() {
  while (!ready_.empty() || !fifo_.empty()) {
    std::deque<std::unique_ptr<Transfer>>& from =
        ready_.empty() ? fifo_ : ready_;
    std::unique_ptr<Transfer> transfer = std::move(from.front());
    from.pop_front();
    if (per_host_ == 0) return transfer;
    Host& host = hosts_[transfer->host_key()];
    if (host.running < per_host_) {
      ++host.running;
      return transfer;
    }
    host.parked.push_back(std::move(transfer));
    ++parked_count_;
  }
  return nullptr;
}

void StartQueue::Release(const std::string& host_key) {
  if (per_host_ == 0) return;
  auto it = hosts_.find(host_key);
  if (it == hosts_.end()) return;
  Host& host = it->second;
  --host.running;
  if (!host.parked.empty()) {
    ready_.push_back(std::move(host.parked.front()));
    host.parked.pop_front();
    --parked_count_;
  }
  if (host.running == 0 && host.parked.empty()) hosts_.erase(it);
}

}  // namespace sieve::fetch_internal
