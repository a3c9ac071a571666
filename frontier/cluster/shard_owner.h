// frontier/cluster/shard_owner.h: ShardOwner, which shards of a shared crawl
// one RedisFrontier worker owns, and each owned shard's local sieve::Frontier.
//
// What it decides (docs/cluster.md):
//   - Take: at each Upkeep, up to the target (ShardLeases::Target, one more
//     while this worker is the least loaded or was handed a shard) it takes
//     free shards (no lease: never taken, released, or expired), starting at a
//     place of its own so workers do not race for one shard. Taking a shard
//     builds its local Frontier and claims the entries its previous owner read
//     and did not acknowledge (ShardQueue::Claim); they are handed to the
//     caller's `feed` and counted in reclaimed() unless the previous owner
//     marked the shard clean (let go with nothing in flight).
//   - Keep: Upkeep renews every lease first and forgets the shards whose lease
//     was lost (their local Frontier with it), then records the heartbeat.
//   - Balance (with fetch_slots): publishes this worker's hosts with work and
//     hands a shard to a clearly less loaded worker (shard_handover.h).
//   - Release: above the target, a shard stops handing out URLs (draining) and
//     is let go, marked clean, once nothing of it is in flight or awaits its
//     record (ReleaseIdle); a shard handed over (giving) likewise.
//
// Contract: the caller (RedisFrontier) moves URLs through the owned shards:
// it feeds their local frontiers, hands their URLs out and keeps each
// OwnedShard's URL fields (ids, hosts, in_flight, reads), which the owner
// reads to weigh a shard's load; it may change an entry of shards(), never add
// or erase one. A shard not handing_out() gives no URL out.
//
// Thread-safety: none; RedisFrontier calls it under its mutex. Nothing here
// sleeps: every wait is a Redis round trip, bounded by the client's timeouts.
//
// Cost: Upkeep makes up to 4 round trips (Renew pipelines one script per
// held shard; the free leases are found in one pipeline over every shard),
// plus 2 per free lease tried, 2 or more per shard taken (its claim) and 2
// per shard let go; Balance 1-3; ReleaseIdle 2 per shard let go. In memory:
// O(shards held), each with AckLedger::AwaitsRecordOf's O(URLs awaiting).
//
// Example (RedisFrontier::Open and Next, simplified):
//   ShardOwner owner(client, keys, leases, queue, acks, {.fetch_slots = 8});
//   auto feed = [&](uint32_t shard, std::vector<StreamEntry> claimed) {
//     return FeedLocalFrontier(shard, std::move(claimed));
//   };
//   owner.Upkeep(absl::Now(), feed);  // every lease_ttl / 3
//   owner.Balance(absl::Now());        // every idle_poll
//   owner.ReleaseIdle();               // at every Next
//   for (auto& [shard, s] : owner.shards())
//     if (s.handing_out()) ... s.local->PeekNext(now) ...
//   owner.ReleaseAll();  // on exit, then owner.Leave()
#ifndef SIEVE_FRONTIER_CLUSTER_SHARD_OWNER_H_
#define SIEVE_FRONTIER_CLUSTER_SHARD_OWNER_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "frontier/cluster/ack_ledger.h"
#include "frontier/cluster/keys.h"
#include "frontier/cluster/redis_client.h"
#include "frontier/cluster/shard_leases.h"
#include "frontier/cluster/shard_queue.h"
#include "frontier/frontier.h"

namespace sieve::cluster {

// One shard this worker owns.
struct OwnedShard {
  // A URL fed to `local` and not finished yet.
  struct Fed {
    std::string id;
    std::string host;
    StreamOrder order;  // Of `id`: Next hands out the oldest first.
  };
  // Per-host rules of the shard's hosts; built when the shard is taken.
  std::unique_ptr<Frontier> local;

  // The caller's (the URLs' way through the shard):
  // URLs fed to `local` and not yet finished: url -> stream id and host.
  absl::flat_hash_map<std::string, Fed> ids;
  // Hosts with URLs in `ids` -> how many (the shard's hosts with work).
  absl::flat_hash_map<std::string, uint32_t> hosts;
  uint64_t in_flight = 0;
  // Its stream is read again no sooner (RedisFrontierOptions::refill_poll).
  absl::Time next_read = absl::InfinitePast();
  // Its stream was read at least once since it was taken.
  bool read = false;
  // Reads in a row that found its stream empty (see refill_poll).
  int empty_reads = 0;

  // The owner's:
  // Taken over at most now: its previous owner may have just fetched one of
  // its hosts, so none is fetched before this (take time + min_delay).
  absl::Time not_before = absl::InfinitePast();
  // Above the target: no new URL is handed out; released when idle.
  bool draining = false;
  // Handed to a less loaded worker: as draining, until released.
  bool giving = false;

  // Neither draining nor given away: its URLs may be handed out.
  bool handing_out() const { return !draining && !giving; }
};

struct ShardOwnerOptions {
  // Per-host rules of every owned shard's local Frontier. Default: {}.
  PolitenessOptions politeness{};
  // Page cap per host of the local frontiers; 0: none. Default: 0.
  uint64_t max_urls_per_host = 0;
  // Pages the crawl loop fetches at once (RedisFrontierOptions::fetch_slots).
  // Non-zero: Balance hands shards to less loaded workers and Rebalance keeps
  // one shard with hosts above the target for it. Default: 0 (by count only).
  uint32_t fetch_slots = 0;
  // Scratch directory of the local frontiers (their disk spill).
  // Default: empty (the local Frontier's own default).
  std::filesystem::path work_dir{};
};

class ShardOwner {
 public:
  // Hands the entries claimed from a shard's previous owner, at take-over, to
  // the caller's local frontier; an error stops the Upkeep.
  using FeedClaimed = absl::FunctionRef<absl::Status(
      uint32_t shard, std::vector<StreamEntry> claimed)>;

  // `client`, `leases`, `queue` and `acks` must outlive the owner; `leases`
  // is this worker's, initialised (ShardLeases::Init) before the first call.
  ShardOwner(RedisClient& client, ClusterKeys keys, ShardLeases& leases,
             ShardQueue& queue, const AckLedger& acks,
             ShardOwnerOptions options);

  // Renews the leases (drops the lost shards), records the heartbeat, takes
  // free shards up to the target and drains or releases those above it.
  // Stops at the first error (what was done so far stays done).
  absl::Status Upkeep(absl::Time now, FeedClaimed feed);
  // The load balance step (see above); with fetch_slots 0 it only updates
  // WantsShard. Sets the shard to give as giving.
  absl::Status Balance(absl::Time now);
  // An Upkeep now would take a shard: this worker is the least loaded with
  // fetch slots to spare, or a busier one handed it a shard (until then).
  bool WantsShard(absl::Time now) const {
    return (least_loaded_ && hungry_) || now < handed_until_;
  }
  // Releases the draining and giving shards with nothing in flight and
  // nothing awaiting its record.
  absl::Status ReleaseIdle();

  // On exit: marks the shards with nothing in flight or awaiting its record
  // clean, releases every lease, and forgets every shard (their local
  // counters with them). Returns the first error; does it all regardless.
  absl::Status ReleaseAll();
  // Leaves the live set and the load set. After ReleaseAll.
  absl::Status Leave();

  // The shards owned, by number. See the contract above.
  std::map<uint32_t, OwnedShard>& shards() { return shards_; }
  const std::map<uint32_t, OwnedShard>& shards() const { return shards_; }

  // Entries claimed from a former owner (possibly fetched twice).
  uint64_t reclaimed() const { return reclaimed_; }
  // The local frontiers' counters: every owned shard's, plus the totals of
  // the shards let go.
  FrontierStats LocalStats() const;
  // Every local frontier's TakeDiscarded, with those of the shards let go
  // since the last call.
  std::vector<FrontierUrl> TakeDiscarded();

 private:
  absl::Status Take(uint32_t shard, absl::Time now, FeedClaimed feed);
  // Forgets `shard`, keeping its local frontier's totals and discards.
  void Drop(uint32_t shard);
  absl::Status Rebalance(uint32_t target);
  absl::Status ReleaseShard(uint32_t shard);
  // Marks `shard` let go with nothing in flight, while still ours: the next
  // owner counts no take-over (the mark outlives a lease or two, in case no
  // one takes the shard at once).
  absl::Status MarkClean(uint32_t shard);

  RedisClient* client_;
  ClusterKeys keys_;
  ShardLeases* leases_;
  ShardQueue* queue_;
  const AckLedger* acks_;
  ShardOwnerOptions options_;
  std::map<uint32_t, OwnedShard> shards_{};
  uint64_t reclaimed_ = 0;
  FrontierStats retired_{};  // kTotal counters of the shards let go.
  // TakeDiscarded's URLs of the shards let go, not yet taken.
  std::vector<FrontierUrl> retired_discarded_{};
  // Shards this worker should hold at the last upkeep: ShardLeases::Target,
  // plus one while it is the least loaded or was handed a shard.
  uint32_t target_ = 0;
  // No live worker had fewer hosts with work at the last Balance.
  bool least_loaded_ = false;
  // Its hosts with work could not fill its fetch slots at the last Balance.
  bool hungry_ = false;
  // The load it published at the last Balance.
  uint64_t published_ = 0;
  // A busier worker handed it a shard (it raised this worker's published
  // load): until it takes one, or until then, an Upkeep at every Balance
  // looks for it, one shard above the target.
  absl::Time handed_until_ = absl::InfinitePast();
  // Shards handed to a less loaded worker: not taken back before then.
  absl::flat_hash_map<uint32_t, absl::Time> given_{};
};

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_SHARD_OWNER_H_
