// frontier/cluster/shard_leases.h: which worker owns which shard of a crawl.
//
// Hosts map to a fixed number of shards (ShardOf: a stable hash of the host,
// XXH3-64, reduced to [0, shards)); the count is stored in the crawl's meta
// hash by the first worker and read by every later one. A worker fetches a
// shard's hosts only while it holds the shard's lease: the key
// sieve:{ID:s<j>}:lease set with SET NX PX ttl to "WORKER/TOKEN", where TOKEN
// comes from INCR sieve:{ID}:fence, so every grant of a lease carries a token
// larger than all earlier ones (a fencing token, Kleppmann 2016, "How to do
// distributed locking").
//
// Surprises first:
//   - Renew, Release and every fenced write are Lua scripts that first check
//     the lease still holds this worker's exact value: a worker whose lease
//     expired (paused, partitioned) and was taken by another cannot renew it,
//     release it, or acknowledge entries of that shard.
//   - The caller renews: call Renew well within the ttl (a third of it is the
//     usual choice). Nothing here runs a thread.
//   - Target(): shards / live workers, rounded up; live workers are those whose
//     heartbeat (Heartbeat(), a sorted-set score) is younger than the ttl.
//
// Cost: one round trip per call; Renew pipelines one script per held shard.
//
// Example:
//   sieve::cluster::ShardLeases leases(client, keys, "w1", /*shards=*/256,
//                                      absl::Seconds(10));
//   leases.Heartbeat(absl::Now());
//   absl::StatusOr<bool> got = leases.Acquire(7);
//   ... every ttl/3: leases.Renew(); lost shards come back ...
//   leases.ReleaseAll();
#ifndef SIEVE_FRONTIER_CLUSTER_SHARD_LEASES_H_
#define SIEVE_FRONTIER_CLUSTER_SHARD_LEASES_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "frontier/cluster/keys.h"
#include "frontier/cluster/redis_client.h"

namespace sieve::cluster {

// The shard of `host` among `shards`: stable across runs, machines, versions.
uint32_t ShardOf(std::string_view host, uint32_t shards);

// Stores `shards` as the crawl's shard count unless one is stored; returns the
// stored count (the first worker's). InvalidArgument for 0.
absl::StatusOr<uint32_t> OpenShardCount(RedisClient& client,
                                        const ClusterKeys& keys,
                                        uint32_t shards);

class ShardLeases {
 public:
  // `client` must outlive the object. `worker_id` must not contain '/'.
  ShardLeases(RedisClient& client, ClusterKeys keys, std::string worker_id,
              uint32_t shards, absl::Duration ttl);

  // Loads the scripts. Call once before anything else.
  absl::Status Init();

  // Takes shard's lease if no one holds it: true if taken (or already ours).
  absl::StatusOr<bool> Acquire(uint32_t shard);
  // Extends every held lease by the ttl; returns the shards whose lease was
  // lost (expired, or taken by another worker) and forgets them.
  absl::StatusOr<std::vector<uint32_t>> Renew();
  // Gives shard's lease up at once (only if it is still ours).
  absl::Status Release(uint32_t shard);
  absl::Status ReleaseAll();

  // Records this worker as alive at `now`.
  absl::Status Heartbeat(absl::Time now);
  // Removes this worker from the live set (on exit).
  absl::Status Leave();
  // How many shards this worker should hold: ceil(shards / live workers).
  absl::StatusOr<uint32_t> Target(absl::Time now);

  // The exact lease value ("WORKER/TOKEN") of a held shard; empty if not held.
  std::string LeaseValue(uint32_t shard) const;
  bool Holds(uint32_t shard) const { return held_.count(shard) != 0; }
  std::vector<uint32_t> held() const;
  uint32_t shards() const { return shards_; }
  const std::string& worker_id() const { return worker_id_; }
  absl::Duration ttl() const { return ttl_; }

 private:
  RedisClient* client_;
  ClusterKeys keys_;
  std::string worker_id_;
  uint32_t shards_;
  absl::Duration ttl_;
  std::map<uint32_t, std::string> held_{};  // shard -> lease value
  std::string renew_sha_{};
  std::string release_sha_{};
};

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_SHARD_LEASES_H_
