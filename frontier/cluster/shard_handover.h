// frontier/cluster/shard_handover.h: which shard a worker of a shared crawl
// hands to the worker with the fewest hosts with work.
//
// Shards are spread by count (ShardLeases::Target), but a shard's work is its
// hosts', and hosts fall on shards unevenly: with 64 hosts over 4 workers one
// worker may own 11 hosts and another 21. A host is fetched at most
// `per_host` at a time (one page per delay), so a worker with 21 hosts and 8
// fetch slots moves each host at 8/21 of the speed of one with 8: the crawl
// lasts as long as its most loaded worker (measured: 4 workers at 3.0x one).
// So each worker publishes its hosts with work (sieve:{ID}:load), and a worker
// with clearly more than the least loaded one hands it a shard:
//   - only if some of its hosts wait for a fetch slot (more hosts with work
//     than it fetches at once), or it holds more shards than its share: a
//     host is fetched no faster by another worker, and a shard handed over
//     pauses its hosts for a few hundred ms (measured: near the crawl's end,
//     handovers between workers with free slots made the last hosts later);
//   - only if the gap is at least 2 hosts: a worker with 18 hosts and 8
//     slots next to one with 14 ends 28 % later (a gap of a quarter, the
//     rule before, left that; handovers are cheap since the receiver takes
//     the shard at its next balance step);
//   - the shard whose hosts come closest to half the gap, and fewer than the
//     gap (so the two end no further apart than they were).
// The giver stops handing that shard's URLs out, releases it once nothing of
// it is in flight or awaits its record, and adds the hosts to the other's
// published load (so a second giver does not pile onto the same worker; the
// receiver sees its load raised and takes the shard at once).
//
// A worker whose hosts with work cannot fill its fetch slots also reads its
// shards' streams further ahead (IsHungry): a stream is FIFO, and the URLs of
// a shard's other hosts may wait behind the ones already read.
//
// Example:
//   std::vector<ShardLoad> mine = {{.shard = 3, .hosts = 9},
//                                  {.shard = 5, .hosts = 4}};
//   ShardToGive(mine, /*their_hosts=*/4, /*hosts_at_once=*/8);  // 5: 13 - 4
//                                               // = 9, half is 4.5
//   IsHungry(mine, /*fetch_slots=*/8, /*per_host=*/1);  // false: 13 hosts
#ifndef SIEVE_FRONTIER_CLUSTER_SHARD_HANDOVER_H_
#define SIEVE_FRONTIER_CLUSTER_SHARD_HANDOVER_H_

#include <cstdint>
#include <optional>
#include <span>

namespace sieve::cluster {

struct ShardLoad {
  uint32_t shard = 0;
  uint64_t hosts = 0;  // Hosts with URLs queued or in flight.
};

// Hosts with work over all of `load`.
uint64_t HostsWithWork(std::span<const ShardLoad> load);

// True if the hosts with work of `load` cannot keep `fetch_slots` busy at
// `per_host` transfers each. Never with fetch_slots 0.
bool IsHungry(std::span<const ShardLoad> load, uint32_t fetch_slots,
              uint32_t per_host);

// The shard to hand to a worker with `their_hosts` hosts with work (see
// above), from a worker that fetches `hosts_at_once` hosts at once (its
// fetch slots over the transfers per host); none if all of its hosts fit,
// the gap is too small or no shard fits it.
std::optional<uint32_t> ShardToGive(std::span<const ShardLoad> mine,
                                    uint64_t their_hosts,
                                    uint64_t hosts_at_once);

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_SHARD_HANDOVER_H_
