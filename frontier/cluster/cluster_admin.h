// frontier/cluster/cluster_admin.h: looking at and feeding a crawl shared
// through Redis from outside its workers (`sieve cluster status`, `sieve
// cluster seed`). Neither joins the crawl: no heartbeat, no lease.
//
// Surprises first:
//   - Both fail with NotFound when no worker has created crawl ID in this
//     Redis (they never create one).
//   - ReadClusterStatus reads many keys, one by one and pipelined, not in one
//     transaction: the figures are a moment's, each a little apart.
//   - AddSeeds passes the URLs through the crawl's shared filter, so a URL
//     seen before (or a false positive of the filter) is not queued again.
//
// Cost: ReadClusterStatus about 6 round trips (3 pipelines of one command
// per shard); AddSeeds one round trip per URL (test-and-set and XADD in one
// script, RedisBloomFilter::AddAndQueue).
//
// Example:
//   auto client = sieve::cluster::RedisClient::Connect(endpoint, {});
//   auto keys = sieve::cluster::ClusterKeys::ForCrawl("news");
//   absl::StatusOr<sieve::cluster::ClusterStatus> s =
//       sieve::cluster::ReadClusterStatus(**client, *keys, absl::Now());
//   if (s.ok()) std::cout << s->queued << " queued\n";
#ifndef SIEVE_FRONTIER_CLUSTER_CLUSTER_ADMIN_H_
#define SIEVE_FRONTIER_CLUSTER_CLUSTER_ADMIN_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "frontier/cluster/keys.h"
#include "frontier/cluster/redis_client.h"
#include "frontier/cluster/shard_queue.h"
#include "frontier/cluster/worker_stats.h"
#include "frontier/crawl_frontier.h"

namespace sieve::cluster {

struct ShardStatus {
  std::string owner{};   // Worker id holding the lease; empty if none.
  uint64_t entries = 0;  // In the stream: queued and pending.
  uint64_t pending = 0;  // Read by a worker, not yet acknowledged.
};

struct ClusterStatus {
  std::string crawl_id{};
  uint32_t shard_count = 0;
  std::vector<ShardStatus> shards{};
  // Every worker that ever published counters; `live` set from heartbeats.
  std::vector<WorkerStats> workers{};
  uint64_t live_workers = 0;
  uint64_t queued = 0;     // Entries not yet read by any worker.
  uint64_t pending = 0;    // Entries read and not yet acknowledged.
  uint64_t pages = 0;      // Sum of the workers' pages.
  uint64_t reclaimed = 0;  // Sum of the workers' reclaimed.
  uint64_t commands = 0;   // Sum of the workers' Redis commands.
  FrontierFilterStats filter{};
};

// The state of crawl `keys` at `now`; a worker is live if its heartbeat is
// younger than its lease ttl.
absl::StatusOr<ClusterStatus> ReadClusterStatus(RedisClient& client,
                                                const ClusterKeys& keys,
                                                absl::Time now);

struct SeedUrl {
  std::string url{};   // Normalised absolute URL.
  std::string host{};  // Its host key, as the crawl's workers key it.
  std::string metadata{};
};

// Queues each URL new to the crawl's filter in its host's shard; returns how
// many were queued. `settings`: as a worker's shared_settings
// (crawl_settings.h), checked first: FailedPrecondition, nothing queued, if
// the crawl's differ.
absl::StatusOr<uint64_t> AddSeeds(RedisClient& client, const ClusterKeys& keys,
                                  const std::vector<SeedUrl>& seeds,
                                  std::string_view settings = {});

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_CLUSTER_ADMIN_H_
