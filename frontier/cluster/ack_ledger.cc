#include "frontier/cluster/ack_ledger.h"

#include <utility>

#include "frontier/cluster/redis_errors.h"

namespace sieve::cluster {

void AckLedger::AwaitRecord(std::string url, Entry entry) {
  awaiting_[std::move(url)] = std::move(entry);
}

std::optional<AckLedger::Entry> AckLedger::TakeAwaiting(std::string_view url) {
  auto it = awaiting_.find(std::string(url));
  if (it == awaiting_.end()) return std::nullopt;
  Entry entry = std::move(it->second);
  awaiting_.erase(it);
  return entry;
}

bool AckLedger::AwaitsRecord(std::string_view url) const {
  return awaiting_.contains(std::string(url));
}

bool AckLedger::AwaitsRecordOf(uint32_t shard) const {
  for (const auto& [url, entry] : awaiting_) {
    if (entry.shard == shard) return true;
  }
  return false;
}

absl::Status AckLedger::Ack(const Entry& entry) {
  return queue_->Ack(entry.shard, leases_->LeaseValue(entry.shard), {entry.id})
      .status();
}

absl::Status AckLedger::AckOrKeep(Entry entry) {
  absl::Status s = Ack(entry);
  // Fenced: the shard is another's now, who fetches the URL again.
  if (!s.ok() && IsTransientRedisError(s) && !IsFenced(s))
    kept_.push_back(std::move(entry));
  return s;
}

absl::Status AckLedger::Retry() {
  std::vector<Entry> kept = std::move(kept_);
  kept_.clear();
  absl::Status worst;
  for (Entry& entry : kept) {
    if (!leases_->Holds(entry.shard)) continue;
    absl::Status s = AckOrKeep(std::move(entry));
    // A fatal error outranks a transient one.
    if (!s.ok() && (worst.ok() || (IsTransientRedisError(worst) &&
                                   !IsTransientRedisError(s))))
      worst = s;
  }
  return worst;
}

}  // namespace sieve::cluster
