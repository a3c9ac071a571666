// How the streams of the shards a RedisFrontier worker holds reach their local
// Frontiers: reading them (Refill, in one pipeline for every shard due),
// claiming this worker's own pending entries again after an error (Resync),
// and feeding what was read (Feed). Taking, keeping and letting go of shards
// is ShardOwner's (frontier/cluster/shard_owner.h); the rest of the URLs' way
// in frontier/cluster/redis_frontier.cc and redis_frontier_adds.cc.
#include <algorithm>
#include <string>
#include <vector>

#include "frontier/cluster/redis_frontier.h"
#include "frontier/cluster/shard_handover.h"

namespace sieve::cluster {

absl::Status RedisFrontier::Feed(uint32_t shard,
                                 std::vector<StreamEntry> entries) {
  OwnedShard& s = owner_->shards().at(shard);
  for (StreamEntry& e : entries) {
    // Already queued or in flight here, or awaiting its record.
    if (s.ids.contains(e.url.url) || acks_->AwaitsRecord(e.url.url)) continue;
    if (!s.local->Add(e.url.url, e.url.host, e.url.depth, e.url.metadata)) {
      // Finished here before (its acknowledgement failed) or its host is past
      // its page cap: nothing left to do for it.
      if (absl::Status st = acks_->Ack({.shard = shard, .id = e.id}); !st.ok())
        return st;
      continue;
    }
    ++s.hosts[e.url.host];
    const StreamOrder order = ParseStreamOrder(e.id);
    s.ids.emplace(std::move(e.url.url),
                  OwnedShard::Fed{.id = std::move(e.id),
                                  .host = std::move(e.url.host),
                                  .order = order});
  }
  return absl::OkStatus();
}

absl::Status RedisFrontier::Resync() {
  for (auto& [s, shard] : owner_->shards()) {
    absl::StatusOr<std::vector<StreamEntry>> mine =
        queue_->Claim(s, leases_->LeaseValue(s), leases_->worker_id());
    if (!mine.ok()) return mine.status();
    if (absl::Status st = Feed(s, *std::move(mine)); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status RedisFrontier::Refill(absl::Time now) {
  // A stream is FIFO: the URLs of a shard's other hosts may wait behind the
  // ones read. While this worker's hosts with work cannot fill its fetch
  // slots, its shards are read further (up to refill_hungry_below each).
  std::vector<ShardLoad> load;
  for (const auto& [s, shard] : owner_->shards()) {
    if (shard.handing_out())
      load.push_back({.shard = s, .hosts = shard.hosts.size()});
  }
  const uint32_t per_host = static_cast<uint32_t>(
      std::max(1, options_.politeness.max_in_flight_per_host));
  const uint64_t below = IsHungry(load, options_.fetch_slots, per_host)
                             ? options_.refill_hungry_below
                             : options_.refill_below;
  // Every shard due is read in one round trip: with many shards held, one
  // round trip each would keep the crawl loop waiting in Next.
  std::vector<uint32_t> due;
  std::vector<std::string> leases;
  for (auto& [s, shard] : owner_->shards()) {
    if (!shard.handing_out() || now < shard.next_read ||
        shard.local->stats().queued >= below)
      continue;
    shard.read = true;
    due.push_back(s);
    leases.push_back(leases_->LeaseValue(s));
  }
  absl::StatusOr<std::vector<absl::StatusOr<std::vector<StreamEntry>>>> got =
      queue_->ReadMany(due, leases, leases_->worker_id(),
                       options_.refill_count);
  if (!got.ok()) return got.status();
  absl::Status first;
  for (size_t i = 0; i < due.size(); ++i) {
    absl::StatusOr<std::vector<StreamEntry>>& entries = (*got)[i];
    if (!entries.ok()) {
      first.Update(entries.status());
      continue;
    }
    // The stream is drained for now: not read again before refill_poll,
    // doubled after each read that found nothing, up to 16 times (a crawl
    // of many shards and few hosts reads its empty ones less).
    OwnedShard& shard = owner_->shards().at(due[i]);
    if (entries->empty()) {
      shard.empty_reads = std::min(shard.empty_reads + 1, 5);
    } else {
      shard.empty_reads = 0;
    }
    if (entries->size() < options_.refill_count)
      shard.next_read = now + options_.refill_poll *
                                  (1 << std::max(0, shard.empty_reads - 1));
    first.Update(Feed(due[i], *std::move(entries)));
  }
  return first;
}

}  // namespace sieve::cluster
