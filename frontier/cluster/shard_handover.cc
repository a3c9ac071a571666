#include "frontier/cluster/shard_handover.h"

#include <algorithm>

namespace sieve::cluster {

uint64_t HostsWithWork(std::span<const ShardLoad> load) {
  uint64_t n = 0;
  for (const ShardLoad& l : load) n += l.hosts;
  return n;
}

bool IsHungry(std::span<const ShardLoad> load, uint32_t fetch_slots,
              uint32_t per_host) {
  return fetch_slots > 0 &&
         HostsWithWork(load) * std::max<uint32_t>(per_host, 1) < fetch_slots;
}

std::optional<uint32_t> ShardToGive(std::span<const ShardLoad> mine,
                                    uint64_t their_hosts,
                                    uint64_t hosts_at_once) {
  const uint64_t hosts = HostsWithWork(mine);
  if (hosts <= hosts_at_once || hosts <= their_hosts) return std::nullopt;
  const uint64_t gap = hosts - their_hosts;
  if (gap < 2) return std::nullopt;
  std::optional<uint32_t> best;
  uint64_t best_miss = 0;
  for (const ShardLoad& l : mine) {
    if (l.hosts == 0 || l.hosts >= gap) continue;
    // |2h - gap|: how far the two end from even.
    const uint64_t miss =
        2 * l.hosts > gap ? 2 * l.hosts - gap : gap - 2 * l.hosts;
    if (!best.has_value() || miss < best_miss) {
      best = l.shard;
      best_miss = miss;
    }
  }
  return best;
}

}  // namespace sieve::cluster
