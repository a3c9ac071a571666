// frontier/cluster/keys.h: the names of every Redis key of one crawl.
//
// Every name carries a hash tag ({...}) so that each command and script
// touches keys of one Redis Cluster slot only:
//   - sieve:{ID}:meta          hash: shard count, filter geometry (fixed when
//                              the crawl is created)
//   - sieve:{ID}:fence         counter: fencing tokens of leases
//   - sieve:{ID}:workers       sorted set: worker id -> last heartbeat (ms)
//   - sieve:{ID}:stats         hash: worker id -> its counters (WorkerStats)
//   - sieve:{ID}:load          sorted set: worker id -> its hosts with work
//   - sieve:{ID}:rate          string: when the crawl's next request may
//                              start (CrawlRate, crawl_rate.h)
//   - sieve:{ID:s<j>}:f<i>     string: bits of shard j's filter key i
//   - sieve:{ID:s<j>}:n        counter: URLs shard j's filter took as new
//   - sieve:{ID:s<j>}:lease    string "WORKER/TOKEN": owner of shard j
//   - sieve:{ID:s<j>}:q        stream + consumer group "w": shard j's queue
//   - sieve:{ID:s<j>}:clean    string: shard j was let go with nothing in
//                              flight (its next owner counts no take-over)
// Each shard has its own tag, so shards spread over a Redis Cluster's slots;
// a shard's lease, queue and filter keys share it, so a fenced write (check
// the lease, then touch the queue) and a URL's test-and-set with its XADD
// are each one script on one slot.
//
// Example:
//   absl::StatusOr<sieve::cluster::ClusterKeys> keys =
//       sieve::cluster::ClusterKeys::ForCrawl("news-2026");
//   std::string q = keys->Queue(7);  // "sieve:{news-2026:s7}:q"
#ifndef SIEVE_FRONTIER_CLUSTER_KEYS_H_
#define SIEVE_FRONTIER_CLUSTER_KEYS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace sieve::cluster {

class ClusterKeys {
 public:
  // InvalidArgument unless `crawl_id` is 1..64 of [A-Za-z0-9._-].
  static absl::StatusOr<ClusterKeys> ForCrawl(std::string_view crawl_id);

  const std::string& crawl_id() const { return id_; }
  std::string Meta() const;
  std::string Fence() const;
  std::string Workers() const;
  std::string Load() const;
  std::string Rate() const;
  std::string FilterBits(uint32_t shard, uint32_t key) const;
  std::string FilterCount(uint32_t shard) const;
  std::string Lease(uint32_t shard) const;
  std::string Queue(uint32_t shard) const;
  std::string Stats() const;
  std::string Clean(uint32_t shard) const;

 private:
  explicit ClusterKeys(std::string id) : id_(std::move(id)) {}
  std::string id_;
};

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_KEYS_H_
