#include "fetch/internal/idle_connections.h"

namespace sieve::fetch_internal {

bool IdleConnections::Start(const std::string& key, bool want_keep,
                            absl::Time now) {
  Expire(now);
  if (auto it = hosts_.find(key); it != hosts_.end()) {
    // curl reuses it: the slot passes to this transfer, or frees.
    --idle_;
    if (--it->second.idle == 0) hosts_.erase(it);
    if (want_keep) {
      ++reserved_;
      return true;
    }
    return false;
  }
  if (!want_keep || idle_ + reserved_ >= cap_) return false;
  ++reserved_;
  return true;
}

void IdleConnections::Finish(const std::string& key, bool kept_slot,
                             bool connection_kept, absl::Time now) {
  if (!kept_slot) return;
  --reserved_;
  if (!connection_kept) return;
  Host& host = hosts_[key];
  ++host.idle;
  host.since = now;
  ++idle_;
  order_.emplace_back(key, now);
}

void IdleConnections::Expire(absl::Time now) {
  while (!order_.empty() && now - order_.front().second >= max_idle_) {
    auto it = hosts_.find(order_.front().first);
    // Only the newest entry of a host stands for its connections: all of them
    // became idle at or before it.
    if (it != hosts_.end() && it->second.since == order_.front().second) {
      idle_ -= it->second.idle;
      hosts_.erase(it);
    }
    order_.pop_front();
  }
}

}  // namespace sieve::fetch_internal
