// frontier/cluster/redis_bloom_filter.h: the crawl's seen-set, a blocked Bloom
// filter (filter/blocked_bloom_filter.h) whose bits live in Redis, shared by
// every worker.
//
// Layout: split by shard, so that a URL's test-and-set and the XADD of its
// entry to its host's shard stream are one script on one Redis Cluster slot
// (keys.h). Each shard j has a blocked filter of its own, sized for
// capacity * shard_headroom / shards URLs (BloomMath::OptimalBlockedParams),
// with the hashing of the single-process blocked filter: XXH3-128 of the URL,
// the low half picks one of the shard's B 512-bit blocks, the high half the k
// bits in it. A shard's blocks are cut into keys sieve:{ID:s<j>}:f<i> of at
// most max_key_bytes (Redis refuses strings past proto-max-bulk-len, 512 MB by
// default): block b lives in key b / blocks_per_key. All of one URL's bits
// are in one key and one block.
//
// Sizing: a shard's fill is its hosts' URLs, so shards fill unevenly when few
// hosts hold most URLs. shard_headroom (default 1.25) sizes each shard for
// 25 % more than an even share: 1.55 bytes per expected URL at 1 % instead of
// 1.24; with an even spread the rate at `capacity` URLs is then ~0.5 %, and a
// shard 25 % above its share still answers at about 1 %. Each shard holds at
// least min_shard_urls (1,024).
//
// Surprises first:
//   - Test-and-set is one EVALSHA per URL (k SETBITs and, when a bit was
//     clear, an INCR of the shard's counter, in one script: atomic), pipelined
//     in batches of 1,000 URLs.
//   - The geometry (and the shard count) is fixed by the first worker to open
//     the crawl (stored in the crawl's meta hash); later workers use the
//     stored one whatever their options say.
//   - If the connection breaks after a batch was sent, the batch may have run:
//     repeating it would call its new URLs seen. AddMany therefore does not
//     retry; the caller decides (see docs/cluster.md, "Faults").
//   - Open creates every key at its full length (all the filter's memory is
//     taken at once, and not twice over as growing strings would).
//   - The estimated count is the sum of the per-shard counters: URLs the
//     filter took as new (exact count of new answers; a false positive is
//     not counted). The estimated rate is the shards' rates weighted by their
//     counts (the rate a new URL meets, uneven fill included).
//
// Cost: Redis memory bits/8 bytes (1.55 bytes per expected URL at 1 % with
// the default headroom); one round trip per 1,000 URLs; ~k+1 Redis
// operations per URL inside the script.
//
// Example:
//   auto filter = sieve::cluster::RedisBloomFilter::Open(
//       client, keys, {.expected_urls = 10'000'000, .fp_rate = 0.01},
//       /*shards=*/256);
//   std::vector<std::string> urls = {"http://a/x", "http://b/y"};
//   std::vector<std::string> hosts = {"a", "b"};
//   absl::StatusOr<std::vector<bool>> fresh = filter->AddMany(urls, hosts);
#ifndef SIEVE_FRONTIER_CLUSTER_REDIS_BLOOM_FILTER_H_
#define SIEVE_FRONTIER_CLUSTER_REDIS_BLOOM_FILTER_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontier/cluster/keys.h"
#include "frontier/cluster/redis_client.h"
#include "frontier/crawl_frontier.h"

namespace sieve::cluster {

struct RedisBloomOptions {
  uint64_t expected_urls = 10'000'000;
  double fp_rate = 0.01;
  // Largest Redis string of the filter plus 64 bytes (left for Redis's
  // string header, so a power of two fits its allocator class); a multiple
  // of 64, at least 128. 256 MiB leaves room under Redis's 512 MB limit.
  uint64_t max_key_bytes = uint64_t{256} << 20;
  // Each shard's filter is sized for expected_urls * shard_headroom / shards.
  // REQUIRES: >= 1.
  double shard_headroom = 1.25;
  // Each shard's filter holds at least this many URLs: a crawl of few hosts
  // over many shards puts a whole host in one shard (1,024 URLs: 1.3 KB of
  // bits at 1 %, so 256 shards cost at least 325 KB).
  uint64_t min_shard_urls = 1024;
  size_t batch_size = 1000;
};

class RedisBloomFilter {
 public:
  // Creates the crawl's filter geometry in Redis (or reads the one stored)
  // and loads the scripts. `shards` is the crawl's shard count (ShardLeases;
  // the stored one wins). InvalidArgument on bad sizing; Redis errors as
  // their status. `client` must outlive the filter.
  static absl::StatusOr<RedisBloomFilter> Open(RedisClient& client,
                                               const ClusterKeys& keys,
                                               const RedisBloomOptions& options,
                                               uint32_t shards);

  // Test-and-set of each URL (hosts[i] is urls[i]'s host: it picks the
  // shard) in order: true where the URL was new (some bit was clear). A URL
  // twice in `urls` is new at most once. REQUIRES: equal lengths.
  absl::StatusOr<std::vector<bool>> AddMany(std::span<const std::string> urls,
                                            std::span<const std::string> hosts);
  // Test-and-set of `url` and, if it was new, XADD of the entry `fields`
  // (field, value, ...) to the stream of `host`'s shard, atomically: one
  // script, so no crash or lost reply can leave the URL marked seen but not
  // queued, and sending it again after a lost reply neither loses nor
  // repeats it. Returns whether the URL was new. One round trip; every key
  // the script touches is the shard's (one Redis Cluster slot).
  absl::StatusOr<bool> AddAndQueue(const std::string& url,
                                   const std::string& host,
                                   const std::vector<std::string>& fields);
  // AddAndQueue for each URL (fields[i] is urls[i]'s entry), in order, all in
  // one pipelined round trip: a page's links at once. A URL twice in `urls`
  // is new at most once. A lost reply fails the whole call; sending it again
  // is safe (see AddAndQueue). REQUIRES: equal lengths.
  absl::StatusOr<std::vector<bool>> AddAndQueueMany(
      std::span<const std::string> urls, std::span<const std::string> hosts,
      std::span<const std::vector<std::string>> fields);
  // Sends this filter's commands through `client` from now on (a second
  // connection, so one caller's wait for Redis holds up no other): loads the
  // scripts there. `client` must outlive the filter.
  absl::Status UseClient(RedisClient& client);
  // Test only: true where the URL may have been added.
  absl::StatusOr<std::vector<bool>> MayContainMany(
      std::span<const std::string> urls, std::span<const std::string> hosts);

  // Capacity, estimated count (sum of the per-key counters) and the blocked
  // filter's false-positive rate at that count. One round trip.
  absl::StatusOr<FrontierFilterStats> Stats();

  // Bits over all shards.
  uint64_t bits() const { return bits_ * shards_; }
  uint64_t bits_per_shard() const { return bits_; }
  uint32_t hashes() const { return hashes_; }
  uint64_t capacity() const { return capacity_; }
  uint32_t shards() const { return shards_; }
  // Keys over all shards.
  uint32_t key_count() const { return keys_per_shard_ * shards_; }
  uint32_t keys_per_shard() const { return keys_per_shard_; }

 private:
  RedisBloomFilter() = default;
  // Creates every missing filter key at its full length.
  absl::Status Presize();
  // The shard of `host`, the key index inside it and the k bit offsets
  // inside that key, as strings.
  void Locate(const std::string& url, const std::string& host, uint32_t& shard,
              uint32_t& key, std::vector<std::string>& args) const;
  // The EVALSHA of AddAndQueue for one URL.
  std::vector<std::string> AddAndQueueCommand(
      const std::string& url, const std::string& host,
      const std::vector<std::string>& fields) const;
  absl::StatusOr<std::vector<bool>> Run(std::span<const std::string> urls,
                                        std::span<const std::string> hosts,
                                        const std::string& sha, bool add);

  RedisClient* client_ = nullptr;
  ClusterKeys keys_ = *ClusterKeys::ForCrawl("x");
  uint64_t bits_ = 0;  // Per shard.
  uint32_t hashes_ = 0;
  uint64_t capacity_ = 0;
  uint32_t shards_ = 0;
  uint64_t blocks_ = 0;  // Per shard.
  uint64_t blocks_per_key_ = 0;
  uint32_t keys_per_shard_ = 0;
  size_t batch_size_ = 1000;
  std::string add_sha_{};
  std::string test_sha_{};
  std::string add_and_queue_sha_{};
};

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_REDIS_BLOOM_FILTER_H_
