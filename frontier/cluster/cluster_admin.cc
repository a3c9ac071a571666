#include "frontier/cluster/cluster_admin.h"

#include <algorithm>
#include <charconv>

#include "absl/strings/str_cat.h"
#include "frontier/cluster/crawl_settings.h"
#include "frontier/cluster/redis_bloom_filter.h"
#include "frontier/cluster/shard_leases.h"

namespace sieve::cluster {
namespace {

// The stored shard count, NotFound if no worker created the crawl.
absl::StatusOr<uint32_t> StoredShards(RedisClient& client,
                                      const ClusterKeys& keys) {
  absl::StatusOr<RedisReply> r =
      client.Command({"HGET", keys.Meta(), "shards"});
  if (!r.ok()) return r.status();
  if (r->is_nil())
    return absl::NotFoundError(absl::StrCat(
        "cluster: no crawl \"", keys.crawl_id(), "\" in this Redis"));
  uint32_t n = 0;
  const std::string& s = r->str;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size() || n == 0)
    return absl::DataLossError(
        absl::StrCat("cluster: bad shard count \"", s, "\" in ", keys.Meta()));
  return n;
}

}  // namespace

absl::StatusOr<ClusterStatus> ReadClusterStatus(RedisClient& client,
                                                const ClusterKeys& keys,
                                                absl::Time now) {
  absl::StatusOr<uint32_t> shards = StoredShards(client, keys);
  if (!shards.ok()) return shards.status();
  ClusterStatus out;
  out.crawl_id = keys.crawl_id();
  out.shard_count = *shards;
  out.shards.resize(*shards);

  std::vector<std::vector<std::string>> owners;
  for (uint32_t s = 0; s < *shards; ++s)
    owners.push_back({"GET", keys.Lease(s)});
  absl::StatusOr<std::vector<RedisReply>> leases = client.Pipeline(owners);
  if (!leases.ok()) return leases.status();
  for (uint32_t s = 0; s < *shards; ++s) {
    const RedisReply& r = (*leases)[s];
    if (r.type != RedisReply::kString) continue;
    // "WORKER/TOKEN": the worker id has no '/'.
    out.shards[s].owner = r.str.substr(0, r.str.rfind('/'));
  }

  ShardQueue queue(client, keys);
  absl::StatusOr<std::vector<ShardCounts>> counts = queue.Counts(*shards);
  if (!counts.ok()) return counts.status();
  for (uint32_t s = 0; s < *shards; ++s) {
    out.shards[s].entries = (*counts)[s].entries;
    out.shards[s].pending = (*counts)[s].pending;
    out.pending += (*counts)[s].pending;
    out.queued += (*counts)[s].entries -
                  std::min((*counts)[s].entries, (*counts)[s].pending);
  }

  absl::StatusOr<RedisReply> stats = client.Command({"HGETALL", keys.Stats()});
  if (!stats.ok()) return stats.status();
  absl::StatusOr<RedisReply> beats =
      client.Command({"ZRANGE", keys.Workers(), "0", "-1", "WITHSCORES"});
  if (!beats.ok()) return beats.status();
  const int64_t now_ms = absl::ToUnixMillis(now);
  for (size_t i = 0; i + 1 < stats->elements.size(); i += 2) {
    absl::StatusOr<WorkerStats> w =
        DecodeWorkerStats(stats->elements[i].str, stats->elements[i + 1].str);
    if (!w.ok()) return w.status();
    for (size_t j = 0; j + 1 < beats->elements.size(); j += 2) {
      if (beats->elements[j].str != w->worker_id) continue;
      int64_t beat = 0;
      const std::string& text = beats->elements[j + 1].str;
      std::from_chars(text.data(), text.data() + text.size(), beat);
      w->live = now_ms - beat < std::max<int64_t>(w->lease_ms, 1);
    }
    out.live_workers += w->live ? 1 : 0;
    out.pages += w->pages;
    out.reclaimed += w->reclaimed;
    out.commands += w->commands;
    out.workers.push_back(*std::move(w));
  }
  std::sort(out.workers.begin(), out.workers.end(),
            [](const WorkerStats& a, const WorkerStats& b) {
              return a.worker_id < b.worker_id;
            });

  // The geometry is stored: Open reads it (the options are not used).
  absl::StatusOr<RedisBloomFilter> filter =
      RedisBloomFilter::Open(client, keys, RedisBloomOptions{}, *shards);
  if (!filter.ok()) return filter.status();
  absl::StatusOr<FrontierFilterStats> fs = filter->Stats();
  if (!fs.ok()) return fs.status();
  out.filter = *fs;
  return out;
}

absl::StatusOr<uint64_t> AddSeeds(RedisClient& client, const ClusterKeys& keys,
                                  const std::vector<SeedUrl>& seeds,
                                  std::string_view settings) {
  absl::StatusOr<uint32_t> shards = StoredShards(client, keys);
  if (!shards.ok()) return shards.status();
  if (absl::Status s = CheckCrawlSettings(client, keys, settings); !s.ok())
    return s;
  absl::StatusOr<RedisBloomFilter> filter =
      RedisBloomFilter::Open(client, keys, RedisBloomOptions{}, *shards);
  if (!filter.ok()) return filter.status();
  uint64_t queued = 0;
  for (const SeedUrl& seed : seeds) {
    // One script per seed: a seed is never marked seen without its entry.
    absl::StatusOr<bool> fresh = filter->AddAndQueue(
        seed.url, seed.host,
        ShardQueue::EntryFields({seed.url, seed.host, 0, seed.metadata}));
    if (!fresh.ok()) return fresh.status();
    queued += *fresh ? 1 : 0;
  }
  return queued;
}

}  // namespace sieve::cluster
