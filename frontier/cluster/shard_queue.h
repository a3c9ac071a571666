// frontier/cluster/shard_queue.h: the URLs of one crawl waiting in Redis, one
// Redis Stream per shard (sieve:{ID:s<j>}:q) with one consumer group ("w")
// whose consumers are the workers.
//
// An entry's life: Push (XADD, by any worker: links go to the shard of their
// host) -> Read by the shard's owner (XREADGROUP: the entry is now pending,
// delivered to that worker) -> Ack once its page record is written (XACK and
// XDEL in one script: Redis keeps only queued and pending URLs, not the
// crawl's history). When a worker takes a shard over, Claim moves every entry
// still pending (delivered to a dead or former owner) to it (XAUTOCLAIM).
//
// Surprises first:
//   - Read, Claim and Ack are fenced: each is one script that first checks the
//     shard's lease holds the caller's exact value (ShardLeases::LeaseValue)
//     and fails with FailedPrecondition ("FENCED") otherwise, so a worker that
//     lost a shard can neither take its entries nor acknowledge them.
//   - Push is not fenced and not deduplicated: the seen-set is the
//     RedisBloomFilter in front of it.
//   - Nothing blocks: Read returns what is there now (no BLOCK).
//
// Cost: one round trip per call; Push pipelines its entries.
//
// Example:
//   sieve::cluster::ShardQueue queue(client, keys);
//   queue.Push({{.shard = 7, .url = {"http://a/", "a", 0, ""}}});
//   auto got = queue.Read(7, leases.LeaseValue(7), "w1", 100);
//   ... fetch, write the record ...
//   queue.Ack(7, leases.LeaseValue(7), {(*got)[0].id});
#ifndef SIEVE_FRONTIER_CLUSTER_SHARD_QUEUE_H_
#define SIEVE_FRONTIER_CLUSTER_SHARD_QUEUE_H_

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "frontier/cluster/keys.h"
#include "frontier/cluster/redis_client.h"
#include "frontier/crawl_frontier.h"

namespace sieve::cluster {

// One URL bound for a shard's stream.
struct QueuedUrl {
  uint32_t shard = 0;
  FrontierUrl url{};
};

// One entry read from a stream: its id (for Ack) and its URL.
struct StreamEntry {
  std::string id{};
  FrontierUrl url{};
};

// A stream entry id "MS-SEQ" as Redis orders ids: by the milliseconds of the
// server's clock when it was added, then by its sequence within that
// millisecond. Ids of different streams of one Redis compare by when their
// URLs were queued (to the millisecond). A malformed id is {max, max}.
struct StreamOrder {
  uint64_t ms = 0;
  uint64_t seq = 0;
  auto operator<=>(const StreamOrder&) const = default;
};
StreamOrder ParseStreamOrder(std::string_view id);

// A shard's counts: entries in the stream (not yet acknowledged) and, of
// them, those delivered to some worker and not acknowledged.
struct ShardCounts {
  uint64_t entries = 0;
  uint64_t pending = 0;
};

class ShardQueue {
 public:
  // `client` must outlive the queue.
  ShardQueue(RedisClient& client, ClusterKeys keys)
      : client_(&client), keys_(std::move(keys)) {}

  // Loads the scripts. Call once before anything else.
  absl::Status Init();

  // The fields and values of `url`'s stream entry, as Push writes them.
  static std::vector<std::string> EntryFields(const FrontierUrl& url);

  // Appends each URL to its shard's stream (XADD), pipelined.
  absl::Status Push(const std::vector<QueuedUrl>& urls);

  // Up to `count` entries of `shard` never delivered before, now pending for
  // `consumer`. `lease` is the caller's lease value of the shard (fenced).
  absl::StatusOr<std::vector<StreamEntry>> Read(uint32_t shard,
                                                const std::string& lease,
                                                const std::string& consumer,
                                                uint32_t count);

  // Read of several shards in one round trip (a script each, pipelined): for
  // each of `shards` (with `leases`, the same length), its entries or its
  // error (FENCED: the lease is not ours). The outer status is the
  // connection's.
  absl::StatusOr<std::vector<absl::StatusOr<std::vector<StreamEntry>>>>
  ReadMany(const std::vector<uint32_t>& shards,
           const std::vector<std::string>& leases, const std::string& consumer,
           uint32_t count);

  // Every entry of `shard` pending for any consumer, now pending for
  // `consumer` (XAUTOCLAIM from 0-0 with min-idle 0, repeated to the end of
  // the stream). Fenced.
  absl::StatusOr<std::vector<StreamEntry>> Claim(uint32_t shard,
                                                 const std::string& lease,
                                                 const std::string& consumer);

  // Acknowledges and deletes `ids` of `shard`. Fenced. Returns how many were
  // acknowledged (an id already acknowledged counts 0).
  absl::StatusOr<uint64_t> Ack(uint32_t shard, const std::string& lease,
                               const std::vector<std::string>& ids);

  // Entries and pending entries of every shard in [0, shards): one pipelined
  // round trip.
  absl::StatusOr<std::vector<ShardCounts>> Counts(uint32_t shards);

 private:
  RedisClient* client_;
  ClusterKeys keys_;
  std::string read_sha_{};
  std::string claim_sha_{};
  std::string ack_sha_{};
};

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_SHARD_QUEUE_H_
