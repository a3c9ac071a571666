// frontier/cluster/redis_frontier.h: RedisFrontier, the CrawlFrontier of one
// worker of a crawl shared through Redis (docs/cluster.md). Many processes
// (`sieve crawl --cluster ...`) each run one; together they crawl as one.
//
// How it works:
//   - Add: the URL goes through the shared seen-set (RedisBloomFilter) and, if
//     new, is appended to the stream of its host's shard, in one script
//     (RedisBloomFilter::AddAndQueue), so no crash loses it between the two.
//   - The worker holds leases on about shards / live workers shards
//     (ShardOwner, shard_owner.h, over ShardLeases). For each held shard it
//     keeps a local sieve::Frontier (per-host delay, in-flight cap,
//     Crawl-delay, back-off, retries), fed from the shard's stream; a host
//     lives in one shard, so only one worker ever fetches it.
//   - Next: of the URLs its shards may fetch now, the one queued first,
//     crawl-wide (by stream id): a worker is breadth-first across all its
//     hosts, as one process's Frontier is.
//   - Done: the local frontier decides the URL's fate; a finished or given-up
//     URL's stream entry is acknowledged and deleted, at once, or when
//     RecordWritten(url) is called if options.ack_after_record (a kNotFetched
//     URL, which gets no record, at once). A failed acknowledgement is tried
//     again at the next Next; the crawl is not finished before it succeeds.
//   - On taking a shard, the entries its previous owner read and did not
//     acknowledge are claimed (XAUTOCLAIM) and fetched again; they are counted
//     in reclaimed() unless the previous owner let the shard go with nothing
//     in flight (it marks the shard clean: nothing of it was fetched).
//   - Balance: the target is ceil(shards / live workers). A worker above it
//     stops taking URLs from its surplus shards (those with least in flight)
//     and releases each as soon as nothing of it is in flight, so a worker
//     that started first gives the later ones their share within one upkeep
//     and one fetch.
//   - Load (with fetch_slots): each worker publishes its hosts with work; one
//     with clearly more than the least loaded hands that one a shard
//     (shard_handover.h), so the crawl is not as slow as its worker with most
//     hosts.
//   - Rate (with max_requests_per_second): before handing out a URL, Next
//     takes the crawl's next request slot in Redis (CrawlRate); until it
//     comes, Next answers kWait. So the workers together start no more
//     requests per second than the crawl's cap.
//   - Next returns kEmpty only when no shard of the crawl has an entry left
//     (queued or pending, at any worker) and this worker has nothing in
//     flight.
//
// Surprises first:
//   - Every method but Add and AddMany takes one mutex and may make Redis
//     round trips (bounded by the client's timeouts; a broken connection is
//     tried once per call, and Next answers kWait until Redis is back). Add
//     and AddMany: 1 pipelined round trip for the whole batch, on a
//     connection of their own, without that mutex; through transient errors
//     more, 100 ms apart, for up to 20 s, holding no lock while they wait.
//   - Lease upkeep (heartbeat, renew, rebalance, load balance) runs inside
//     Next, at most every lease_ttl / 3 of `now`. A refill runs in every Next
//     that finds shards' local queues low: one pipelined round trip for all
//     of them. A shard this worker's Add just queued to is read at once.
//   - A shard whose lease is lost is dropped from this worker at once: its
//     queued URLs are the new owner's; Done for a URL of it still in flight
//     returns kFinished (its record is written; the new owner may fetch it
//     again).
//   - A shard just taken over waits politeness.min_delay before its first
//     fetch: its previous owner may have fetched one of its hosts just before
//     letting it go.
//   - Checkpoint writes nothing: the crawl's state is in Redis.
//   - A Redis error inside Next makes Next return kWait (retry later); after
//     one, the worker claims its own pending entries again (a read whose reply
//     was lost is not lost). An Add whose reply was lost is sent again (its
//     script is atomic: the URL is queued once either way). Connection errors, timeouts and fenced writes are
//     transient: status() stays OK and last_error() has them; any other error
//     (e.g. Redis out of memory) is reported by status().
//   - Every upkeep publishes the worker's counters (WorkerStats) in the
//     crawl's stats hash for `sieve cluster status`.
//
// Example:
//   auto f = sieve::cluster::RedisFrontier::Create(options);
//   (*f)->Add("http://a.example/", "a.example", 0);
//   ... drive it as any CrawlFrontier ...
//   (*f)->Shutdown();  // releases the leases at once
#ifndef SIEVE_FRONTIER_CLUSTER_REDIS_FRONTIER_H_
#define SIEVE_FRONTIER_CLUSTER_REDIS_FRONTIER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "frontier/cluster/ack_ledger.h"
#include "frontier/cluster/crawl_rate.h"
#include "frontier/cluster/keys.h"
#include "frontier/cluster/redis_bloom_filter.h"
#include "frontier/cluster/redis_client.h"
#include "frontier/cluster/shard_leases.h"
#include "frontier/cluster/shard_owner.h"
#include "frontier/cluster/shard_queue.h"
#include "frontier/crawl_frontier.h"
#include "frontier/frontier.h"

namespace sieve::cluster {

struct RedisFrontierOptions {
  RedisEndpoint endpoint{};
  RedisClientOptions client{};
  std::string crawl_id{};
  // Unique among the crawl's live workers; no '/'.
  std::string worker_id{};
  // Used only by the worker that creates the crawl.
  uint32_t shards = 256;
  // What every worker of the crawl must share, one "key = value" a line
  // (crawl_settings.h): the first worker stores it; Create fails with
  // FailedPrecondition when the crawl's differs. Empty: not checked.
  // Default: empty.
  std::string shared_settings{};
  RedisBloomOptions filter{};
  absl::Duration lease_ttl = absl::Seconds(10);
  // Per-host rules of each shard's local frontier.
  PolitenessOptions politeness{};
  // Requests per second of the whole crawl, every worker together: Next
  // hands out no URL before the crawl's next slot (CrawlRate, crawl_rate.h;
  // one more round trip per URL). 0: no crawl-wide cap. REQUIRES: 0 or
  // (0, 10^6]. Default: 0.
  double max_requests_per_second = 0;
  uint64_t max_urls_per_host = 0;
  // Refill a shard's local queue from its stream when it holds fewer URLs.
  uint32_t refill_below = 64;
  uint32_t refill_count = 256;
  // While the worker's hosts with work cannot fill fetch_slots, refill a
  // shard's local queue while it holds fewer URLs than this: the stream is
  // FIFO, and the URLs of the shard's other hosts may wait behind those read.
  // Bounds the entries a worker holds per shard (plus refill_count).
  uint32_t refill_hungry_below = 4096;
  // After a read that found fewer than refill_count new entries, the shard's
  // stream is not read again for this long (a worker's own links reach it
  // through Redis, so this bounds how soon they are fetched); after reads
  // that found none, twice as long each time, up to 16 times.
  absl::Duration refill_poll = absl::Milliseconds(50);
  // How long Next asks the loop to wait while other workers hold the work;
  // also the step of the load balance and of the end-of-crawl check. 100 ms:
  // 4 workers of the benchmark (docs/cluster.md) ran 546-574 pages/s
  // against 500-560 with 200 ms, for 0.3 more commands a page.
  absl::Duration idle_poll = absl::Milliseconds(100);
  // Pages the crawl loop fetches at once. Non-zero: shards are also spread by
  // hosts with work (shard_handover.h), and a worker whose hosts with work
  // cannot fill them (politeness.max_in_flight_per_host each) reads its
  // streams further ahead (refill_hungry_below). 0: by count only.
  uint32_t fetch_slots = 0;
  // Acknowledge a finished URL's entry only at RecordWritten(url) rather than
  // in Done.
  bool ack_after_record = false;
  // Scratch directory of the local frontiers (their disk spill).
  std::filesystem::path work_dir{};
};

class RedisFrontier final : public CrawlFrontier {
 public:
  // Connects, creates the crawl's filter and shard count in Redis (or reads
  // them), registers the worker. InvalidArgument for bad options; Redis
  // errors as their status.
  static absl::StatusOr<std::unique_ptr<RedisFrontier>> Create(
      RedisFrontierOptions options);
  ~RedisFrontier() override;

  bool Add(std::string_view url, std::string_view host, uint32_t depth,
           std::string_view metadata = {}) override;
  // One pipelined round trip for all of `urls` (one script call each), on a
  // connection of its own: an AddMany waiting for Redis holds up no Next or
  // Done. The shared seen-set tests each one's dedup_key when set, else its
  // URL (a shard's local frontier hands one URL out at most once while
  // its worker holds the shard).
  void AddMany(std::span<const FrontierAdd> urls,
               std::span<bool> queued) override;
  NextUrl Next(absl::Time now) override;
  // Every owned shard's local Frontier's (each the owner of its hosts' cap).
  std::vector<FrontierUrl> TakeDiscarded() override;
  absl::StatusOr<UrlFate> Done(std::string_view url,
                               const FetchOutcome& outcome,
                               absl::Time now) override;
  void SetCrawlDelay(std::string_view host, absl::Duration delay) override;
  absl::Status Checkpoint(SnapshotWriter& snapshot) override;
  FrontierStats stats() const override;
  FrontierFilterStats filter_stats() const override;
  absl::Status status() const override;

  // With options.ack_after_record: the record of `url` (finished by Done) is
  // written; acknowledges its entry (tried again at Next if Redis fails now).
  // NotFound if no such URL waits.
  absl::Status RecordWritten(std::string_view url) override;
  // Releases every lease and leaves the live set. Call on exit.
  absl::Status Shutdown();

  std::vector<uint32_t> held_shards() const;
  // Entries claimed from a former owner (possibly fetched twice).
  uint64_t reclaimed() const;
  // Redis commands sent so far.
  uint64_t redis_commands() const;
  // The last Redis error, transient ones included; OK if none.
  absl::Status last_error() const;

 private:
  explicit RedisFrontier(RedisFrontierOptions options)
      : options_(std::move(options)) {}
  absl::Status Open();
  // ShardOwner's upkeep (leases, taking, releasing), then the filter's
  // counters and this worker's (Publish).
  absl::Status Upkeep(absl::Time now);
  absl::Status Feed(uint32_t shard, std::vector<StreamEntry> entries);
  absl::Status Refill(absl::Time now);
  // `host` of `shard` reached its page cap (its local frontier discarded its
  // queued URLs): acknowledges their entries, none of them fetched.
  void FinishDroppedHost(uint32_t shard, const std::string& host);
  // Claims this worker's own pending entries of every held shard again.
  absl::Status Resync();
  absl::Status Publish(absl::Time now);
  absl::StatusOr<bool> CrawlFinished();
  void Note(const absl::Status& s);
  // A URL Add could not queue: records the error, makes it fatal; false.
  bool Lost(const absl::Status& s, const std::string& url);

  RedisFrontierOptions options_;
  mutable std::mutex mu_;
  std::unique_ptr<RedisClient> client_;
  std::unique_ptr<ClusterKeys> keys_;
  std::unique_ptr<RedisBloomFilter> filter_;
  // Adds go through a connection of their own, under add_mu_ only (never
  // mu_ while Redis is asked): add_filter_ is filter_ on add_client_.
  std::mutex add_mu_;
  std::unique_ptr<RedisClient> add_client_;
  std::unique_ptr<RedisBloomFilter> add_filter_;
  std::unique_ptr<ShardLeases> leases_;
  std::unique_ptr<ShardQueue> queue_;
  // Set when options_.max_requests_per_second > 0.
  std::optional<CrawlRate> rate_;
  // URLs handed out by Next: url -> shard.
  absl::flat_hash_map<std::string, uint32_t> in_flight_{};
  // Finished URLs waiting for RecordWritten; acknowledgements to send again.
  std::unique_ptr<AckLedger> acks_;
  // The shards this worker holds, each with its local frontier.
  std::unique_ptr<ShardOwner> owner_;
  bool resync_ = false;
  bool stopped_ = false;
  uint64_t pages_ = 0;  // Entries acknowledged after their record.
  absl::Time started_ = absl::Now();
  absl::Time last_publish_ = absl::InfinitePast();
  uint64_t last_publish_pages_ = 0;
  absl::Time next_upkeep_ = absl::InfinitePast();
  absl::Time next_finish_check_ = absl::InfinitePast();
  // What this worker counts itself (added, duplicates: the shared filter's
  // answers; dispatched, done); the rest comes from the shards' frontiers
  // (ShardOwner::LocalStats), reclaimed from ShardOwner.
  FrontierStats counters_{};
  FrontierFilterStats filter_stats_{};
  absl::Time next_balance_ = absl::InfinitePast();
  absl::Status last_error_{};
  absl::Status fatal_error_{};
};

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_REDIS_FRONTIER_H_
