#include "frontier/cluster/redis_bloom_filter.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "filter/bloom_math.h"
#include "filter/key_hash.h"
#include "frontier/cluster/shard_leases.h"

namespace sieve::cluster {
namespace {

constexpr uint64_t kBlockBits = BloomMath::kBlockBits;
// As BlockedBloomFilter::AddHash (filter/blocked_bloom_filter.cc): the probe
// state is the hash's high half, multiplied by 2^64 / golden ratio per probe;
// each probe is its top 9 bits.
constexpr uint64_t kProbeMultiplier = 0x9E3779B97F4A7C15ULL;

// KEYS[1] bits, KEYS[2] counter; ARGV bit offsets. Returns 1 if some bit was
// clear (the URL is new), after setting them all.
constexpr char kAddScript[] = R"lua(
local new = 0
for i = 1, #ARGV do
  if redis.call('SETBIT', KEYS[1], ARGV[i], 1) == 0 then new = 1 end
end
if new == 1 then redis.call('INCR', KEYS[2]) end
return new
)lua";

// KEYS[1] bits, KEYS[2] counter, KEYS[3] stream (all of one shard: one
// slot); ARGV[1] k, ARGV[2..k+1] bit
// offsets, then the entry's fields and values. As kAddScript, and if the URL
// was new, XADD of the entry, in the same step.
constexpr char kAddAndQueueScript[] = R"lua(
local k = tonumber(ARGV[1])
local new = 0
for i = 2, k + 1 do
  if redis.call('SETBIT', KEYS[1], ARGV[i], 1) == 0 then new = 1 end
end
if new == 1 then
  redis.call('INCR', KEYS[2])
  redis.call('XADD', KEYS[3], '*', unpack(ARGV, k + 2))
end
return new
)lua";

// KEYS[1] bits; ARGV bit offsets. Returns 1 if all are set.
constexpr char kTestScript[] = R"lua(
for i = 1, #ARGV do
  if redis.call('GETBIT', KEYS[1], ARGV[i]) == 0 then return 0 end
end
return 1
)lua";

// KEYS[1] meta hash; ARGV[1] geometry. Stores it unless one is there;
// returns the stored one.
constexpr char kGeometryScript[] = R"lua(
redis.call('HSETNX', KEYS[1], 'filter', ARGV[1])
return redis.call('HGET', KEYS[1], 'filter')
)lua";

// KEYS[1] bits; ARGV[1] length in bytes. Creates the key at its full length
// unless it exists. SETRANGE on a missing key allocates exactly that length;
// growing a string by SETBIT doubles its allocation (Redis's sds greedy
// growth) and would cost up to twice the memory.
constexpr char kPresizeScript[] = R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SETRANGE', KEYS[1], ARGV[1] - 1, '\0')
end
return 1
)lua";

bool ParseU64(std::string_view s, uint64_t& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

}  // namespace

absl::StatusOr<RedisBloomFilter> RedisBloomFilter::Open(
    RedisClient& client, const ClusterKeys& keys,
    const RedisBloomOptions& options, uint32_t shards) {
  if (options.max_key_bytes < 2 * kBlockBits / 8 || options.batch_size == 0 ||
      shards == 0 || !(options.shard_headroom >= 1.0)) {
    return absl::InvalidArgumentError(
        "cluster filter: max_key_bytes must be at least 128, the "
        "batch size and shard count must be positive and the headroom >= 1");
  }
  // Each shard's share of the crawl, with headroom for uneven fill, and at
  // least min_shard_urls (a small crawl over many shards: one host's URLs).
  const uint64_t per_shard = std::max<uint64_t>(
      std::max<uint64_t>(options.min_shard_urls, 1),
      static_cast<uint64_t>(
          std::ceil(static_cast<double>(options.expected_urls) *
                    options.shard_headroom / shards)));
  absl::StatusOr<BloomParams> params =
      BloomMath::OptimalBlockedParams(per_shard, options.fp_rate);
  if (!params.ok()) return params.status();
  // 64 bytes are left for Redis's string header: a key of max_key_bytes
  // would take the allocator's next size class (jemalloc: 25 % more for
  // 2^n + 16 bytes).
  const uint64_t blocks_per_key =
      (options.max_key_bytes - kBlockBits / 8) * 8 / kBlockBits;
  // "bits-per-shard k capacity blocks-per-key shards".
  const std::string wanted =
      absl::StrCat(params->bits, " ", params->hashes, " ",
                   options.expected_urls, " ", blocks_per_key, " ", shards);
  absl::StatusOr<std::string> geometry_sha =
      client.RegisterScript(kGeometryScript);
  if (!geometry_sha.ok()) return geometry_sha.status();
  absl::StatusOr<RedisReply> stored =
      client.Command({"EVALSHA", *geometry_sha, "1", keys.Meta(), wanted});
  if (!stored.ok()) return stored.status();

  RedisBloomFilter f;
  std::vector<std::string> parts = absl::StrSplit(stored->str, ' ');
  uint64_t hashes = 0;
  uint64_t stored_shards = 0;
  if (parts.size() != 5 || !ParseU64(parts[0], f.bits_) ||
      !ParseU64(parts[1], hashes) || !ParseU64(parts[2], f.capacity_) ||
      !ParseU64(parts[3], f.blocks_per_key_) ||
      !ParseU64(parts[4], stored_shards) || f.bits_ % kBlockBits != 0 ||
      f.bits_ == 0 || hashes == 0 || hashes > 64 || f.blocks_per_key_ == 0 ||
      stored_shards == 0 || stored_shards > (uint64_t{1} << 20)) {
    return absl::DataLossError(absl::StrCat(
        "cluster filter: bad geometry \"", stored->str, "\" in ", keys.Meta()));
  }
  f.hashes_ = static_cast<uint32_t>(hashes);
  f.shards_ = static_cast<uint32_t>(stored_shards);
  f.client_ = &client;
  f.keys_ = keys;
  f.blocks_ = f.bits_ / kBlockBits;
  f.keys_per_shard_ = static_cast<uint32_t>(
      (f.blocks_ + f.blocks_per_key_ - 1) / f.blocks_per_key_);
  f.batch_size_ = options.batch_size;
  absl::StatusOr<std::string> add = client.RegisterScript(kAddScript);
  if (!add.ok()) return add.status();
  absl::StatusOr<std::string> test = client.RegisterScript(kTestScript);
  if (!test.ok()) return test.status();
  absl::StatusOr<std::string> queue = client.RegisterScript(kAddAndQueueScript);
  if (!queue.ok()) return queue.status();
  f.add_sha_ = *add;
  f.test_sha_ = *test;
  f.add_and_queue_sha_ = *queue;
  if (absl::Status s = f.Presize(); !s.ok()) return s;
  return f;
}

absl::Status RedisBloomFilter::Presize() {
  absl::StatusOr<std::string> sha = client_->RegisterScript(kPresizeScript);
  if (!sha.ok()) return sha.status();
  std::vector<std::vector<std::string>> batch;
  const uint64_t total = uint64_t{keys_per_shard_} * shards_;
  for (uint64_t i = 0; i < total; ++i) {
    const uint32_t shard = static_cast<uint32_t>(i / keys_per_shard_);
    const uint32_t k = static_cast<uint32_t>(i % keys_per_shard_);
    const uint64_t blocks =
        std::min(blocks_per_key_, blocks_ - uint64_t{k} * blocks_per_key_);
    batch.push_back({"EVALSHA", *sha, "1", keys_.FilterBits(shard, k),
                     std::to_string(blocks * kBlockBits / 8)});
    if (batch.size() == batch_size_ || i + 1 == total) {
      absl::StatusOr<std::vector<RedisReply>> replies =
          client_->Pipeline(batch);
      if (!replies.ok()) return replies.status();
      for (const RedisReply& r : *replies) {
        if (r.is_error())
          return absl::FailedPreconditionError(
              absl::StrCat("cluster filter: redis: ", r.str));
      }
      batch.clear();
    }
  }
  return absl::OkStatus();
}

void RedisBloomFilter::Locate(const std::string& url, const std::string& host,
                              uint32_t& shard, uint32_t& key,
                              std::vector<std::string>& args) const {
  shard = ShardOf(host, shards_);
  const KeyHash hash = HashKey(url);
  const uint64_t block = ReduceToRange(hash.low, blocks_);
  key = static_cast<uint32_t>(block / blocks_per_key_);
  const uint64_t base = (block % blocks_per_key_) * kBlockBits;
  uint64_t state = hash.high;
  for (uint32_t i = 0; i < hashes_; ++i) {
    args.push_back(std::to_string(base + (state >> 55)));
    state *= kProbeMultiplier;
  }
}

absl::StatusOr<std::vector<bool>> RedisBloomFilter::Run(
    std::span<const std::string> urls, std::span<const std::string> hosts,
    const std::string& sha, bool add) {
  if (urls.size() != hosts.size())
    return absl::InvalidArgumentError("cluster filter: one host per URL");
  std::vector<bool> out;
  out.reserve(urls.size());
  std::vector<std::vector<std::string>> batch;
  for (size_t start = 0; start < urls.size(); start += batch_size_) {
    const size_t end = std::min(urls.size(), start + batch_size_);
    batch.clear();
    for (size_t i = start; i < end; ++i) {
      uint32_t shard = 0;
      uint32_t key = 0;
      std::vector<std::string> command = {"EVALSHA", sha, add ? "2" : "1"};
      command.reserve(5 + hashes_);
      // The key names go before the offsets; Locate appends the offsets.
      std::vector<std::string> offsets;
      Locate(urls[i], hosts[i], shard, key, offsets);
      command.push_back(keys_.FilterBits(shard, key));
      if (add) command.push_back(keys_.FilterCount(shard));
      for (std::string& o : offsets) command.push_back(std::move(o));
      batch.push_back(std::move(command));
    }
    absl::StatusOr<std::vector<RedisReply>> replies = client_->Pipeline(batch);
    if (!replies.ok()) return replies.status();
    for (const RedisReply& r : *replies) {
      if (r.is_error())
        return absl::FailedPreconditionError(
            absl::StrCat("cluster filter: redis: ", r.str));
      out.push_back(r.integer == 1);
    }
  }
  return out;
}

absl::StatusOr<std::vector<bool>> RedisBloomFilter::AddMany(
    std::span<const std::string> urls, std::span<const std::string> hosts) {
  return Run(urls, hosts, add_sha_, /*add=*/true);
}

std::vector<std::string> RedisBloomFilter::AddAndQueueCommand(
    const std::string& url, const std::string& host,
    const std::vector<std::string>& fields) const {
  uint32_t shard = 0;
  uint32_t key = 0;
  std::vector<std::string> offsets;
  Locate(url, host, shard, key, offsets);
  std::vector<std::string> command = {"EVALSHA",
                                      add_and_queue_sha_,
                                      "3",
                                      keys_.FilterBits(shard, key),
                                      keys_.FilterCount(shard),
                                      keys_.Queue(shard),
                                      std::to_string(offsets.size())};
  for (std::string& o : offsets) command.push_back(std::move(o));
  command.insert(command.end(), fields.begin(), fields.end());
  return command;
}

absl::StatusOr<bool> RedisBloomFilter::AddAndQueue(
    const std::string& url, const std::string& host,
    const std::vector<std::string>& fields) {
  absl::StatusOr<RedisReply> r =
      client_->Command(AddAndQueueCommand(url, host, fields));
  if (!r.ok()) return r.status();
  return r->integer == 1;
}

absl::StatusOr<std::vector<bool>> RedisBloomFilter::AddAndQueueMany(
    std::span<const std::string> urls, std::span<const std::string> hosts,
    std::span<const std::vector<std::string>> fields) {
  if (urls.size() != hosts.size() || urls.size() != fields.size())
    return absl::InvalidArgumentError(
        "cluster filter: one host and one entry per URL");
  std::vector<std::vector<std::string>> batch;
  batch.reserve(urls.size());
  for (size_t i = 0; i < urls.size(); ++i)
    batch.push_back(AddAndQueueCommand(urls[i], hosts[i], fields[i]));
  absl::StatusOr<std::vector<RedisReply>> replies = client_->Pipeline(batch);
  if (!replies.ok()) return replies.status();
  std::vector<bool> out;
  out.reserve(urls.size());
  for (const RedisReply& r : *replies) {
    if (r.is_error())
      return absl::FailedPreconditionError(absl::StrCat("redis: ", r.str));
    out.push_back(r.integer == 1);
  }
  return out;
}

absl::Status RedisBloomFilter::UseClient(RedisClient& client) {
  for (std::string_view body :
       {std::string_view(kAddScript), std::string_view(kTestScript),
        std::string_view(kAddAndQueueScript)}) {
    absl::StatusOr<std::string> sha = client.RegisterScript(body);
    if (!sha.ok()) return sha.status();
  }
  client_ = &client;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<bool>> RedisBloomFilter::MayContainMany(
    std::span<const std::string> urls, std::span<const std::string> hosts) {
  return Run(urls, hosts, test_sha_, /*add=*/false);
}

absl::StatusOr<FrontierFilterStats> RedisBloomFilter::Stats() {
  std::vector<std::vector<std::string>> gets;
  gets.reserve(shards_);
  for (uint32_t j = 0; j < shards_; ++j)
    gets.push_back({"GET", keys_.FilterCount(j)});
  absl::StatusOr<std::vector<RedisReply>> replies = client_->Pipeline(gets);
  if (!replies.ok()) return replies.status();
  uint64_t count = 0;
  double weighted_rate = 0;
  for (const RedisReply& r : *replies) {
    uint64_t n = 0;
    if (r.type != RedisReply::kString || !ParseU64(r.str, n)) continue;
    count += n;
    // The rate a URL of this shard meets, weighted by the shard's URLs.
    weighted_rate +=
        static_cast<double>(n) * BloomMath::BlockedFalsePositiveRate(
                                     bits_, hashes_, static_cast<double>(n));
  }
  FrontierFilterStats stats;
  stats.capacity = capacity_;
  stats.estimated_count = static_cast<double>(count);
  stats.estimated_fp_rate =
      count == 0 ? 0.0 : weighted_rate / static_cast<double>(count);
  return stats;
}

}  // namespace sieve::cluster
