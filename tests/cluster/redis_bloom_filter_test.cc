// The seen-set in Redis against a real redis-server on loopback.
#include "frontier/cluster/redis_bloom_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "filter/blocked_bloom_filter.h"
#include "tests/cluster/redis_server.h"

namespace sieve::cluster {
namespace {

using ::sieve::testing::RedisServer;

class RedisBloomFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SIEVE_SKIP_WITHOUT_REDIS();
    auto server = RedisServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    auto client = RedisClient::Connect(server_->endpoint(), {});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<RedisClient> client_;
  ClusterKeys keys_ = *ClusterKeys::ForCrawl("t");
};

// URLs i in [from, to) spread over `hosts` hosts, and their hosts.
struct Batch {
  std::vector<std::string> urls;
  std::vector<std::string> hosts;
};
Batch Urls(const char* prefix, int from, int to, int hosts = 10'007) {
  Batch b;
  b.urls.reserve(to - from);
  b.hosts.reserve(to - from);
  for (int i = from; i < to; ++i) {
    b.hosts.push_back(absl::StrCat("h", i % hosts, ".example"));
    b.urls.push_back(absl::StrCat("http://", b.hosts.back(), "/", prefix, i));
  }
  return b;
}

// INFO memory's used_memory, in bytes.
int64_t UsedMemory(RedisClient& client) {
  absl::StatusOr<RedisReply> info = client.Command({"INFO", "memory"});
  if (!info.ok()) return -1;
  constexpr std::string_view kField = "used_memory:";
  size_t at = info->str.find(kField);
  if (at == std::string::npos) return -1;
  return std::stoll(info->str.substr(at + kField.size()));
}

TEST_F(RedisBloomFilterTest, SaysNewOnceAndSeenAfter) {
  auto f = RedisBloomFilter::Open(*client_, keys_, {.expected_urls = 1000},
                                  /*shards=*/4);
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<std::string> urls = {"http://a/", "http://b/", "http://a/"};
  std::vector<std::string> hosts = {"a", "b", "a"};
  absl::StatusOr<std::vector<bool>> fresh = f->AddMany(urls, hosts);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_EQ(*fresh, (std::vector<bool>{true, true, false}));
  fresh = f->AddMany(urls, hosts);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_EQ(*fresh, (std::vector<bool>{false, false, false}));
  absl::StatusOr<FrontierFilterStats> stats = f->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->estimated_count, 2);
  EXPECT_EQ(stats->capacity, 1000u);
  // 1,000 * 1.25 / 4 is under the floor: each shard holds 1,024.
  EXPECT_EQ(f->bits_per_shard(),
            BlockedBloomFilter::ForCapacity(1024, 0.01).bit_count());
}

TEST_F(RedisBloomFilterTest, LaterWorkersUseTheGeometryTheFirstStored) {
  auto first = RedisBloomFilter::Open(
      *client_, keys_, {.expected_urls = 5000, .fp_rate = 0.01}, /*shards=*/8);
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = RedisBloomFilter::Open(
      *client_, keys_, {.expected_urls = 90000, .fp_rate = 0.001},
      /*shards=*/3);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->bits(), first->bits());
  EXPECT_EQ(second->hashes(), first->hashes());
  EXPECT_EQ(second->capacity(), 5000u);
  EXPECT_EQ(second->shards(), 8u);
  std::vector<std::string> url = {"http://x/"};
  std::vector<std::string> host = {"x"};
  ASSERT_TRUE(first->AddMany(url, host).ok());
  absl::StatusOr<std::vector<bool>> seen = second->MayContainMany(url, host);
  ASSERT_TRUE(seen.ok()) << seen.status();
  EXPECT_TRUE((*seen)[0]);
}

TEST_F(RedisBloomFilterTest, SplitOverShardsAndKeysHasTheSingleProcessRate) {
  // 10^6 URLs of 10,007 hosts at 1 % over 16 shards, each sized for 1.25x
  // its even share (97 KB of bits) and cut into keys of 16 KiB less Redis's
  // string header: 7 keys a shard.
  constexpr int kN = 1'000'000;
  constexpr uint32_t kShards = 16;
  const int64_t memory_before = UsedMemory(*client_);
  auto f = RedisBloomFilter::Open(
      *client_, keys_,
      {.expected_urls = kN, .fp_rate = 0.01, .max_key_bytes = 16 << 10},
      kShards);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_GE(f->keys_per_shard(), 6u);
  EXPECT_EQ(f->key_count(), f->keys_per_shard() * kShards);
  // The single-process filter of the same memory: 1.25 x kN at 1 %.
  BlockedBloomFilter local = BlockedBloomFilter::ForCapacity(kN * 5 / 4, 0.01);
  EXPECT_NEAR(static_cast<double>(f->bits()),
              static_cast<double>(local.bit_count()),
              0.01 * static_cast<double>(local.bit_count()));

  for (int from = 0; from < kN; from += 100'000) {
    Batch b = Urls("in", from, from + 100'000);
    ASSERT_TRUE(f->AddMany(b.urls, b.hosts).ok());
    for (const std::string& u : b.urls) local.Add(u);
  }
  // Redis memory per seen URL (docs/cluster.md): the bit strings, ~1.55
  // bytes with the headroom.
  const double bytes_per_url =
      static_cast<double>(UsedMemory(*client_) - memory_before) / kN;
  EXPECT_LT(bytes_per_url, 2.0);
  int redis_fp = 0;
  int local_fp = 0;
  for (int from = 0; from < kN; from += 100'000) {
    Batch probes = Urls("out", from, from + 100'000);
    absl::StatusOr<std::vector<bool>> seen =
        f->MayContainMany(probes.urls, probes.hosts);
    ASSERT_TRUE(seen.ok()) << seen.status();
    for (size_t i = 0; i < probes.urls.size(); ++i) {
      redis_fp += (*seen)[i] ? 1 : 0;
      local_fp += local.MayContain(probes.urls[i]) ? 1 : 0;
    }
  }
  const double redis_rate = static_cast<double>(redis_fp) / kN;
  const double local_rate = static_cast<double>(local_fp) / kN;
  EXPECT_NEAR(redis_rate, local_rate, 0.1 * local_rate);
  // Sized for 1.25 x kN: under the 1 % asked for at kN.
  EXPECT_LT(redis_rate, 0.01);

  absl::StatusOr<FrontierFilterStats> stats = f->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  // False positives during the adds are not counted as new.
  EXPECT_NEAR(stats->estimated_count, kN, 0.01 * kN);
  EXPECT_NEAR(stats->estimated_fp_rate, redis_rate, 0.1 * redis_rate);

  // Every filter key holds bits and none is longer than the maximum.
  for (uint32_t j = 0; j < kShards; ++j) {
    for (uint32_t k = 0; k < f->keys_per_shard(); ++k) {
      absl::StatusOr<RedisReply> len =
          client_->Command({"STRLEN", keys_.FilterBits(j, k)});
      ASSERT_TRUE(len.ok()) << len.status();
      EXPECT_GT(len->integer, 0) << j << " " << k;
      EXPECT_LE(len->integer, 16 << 10) << j << " " << k;
    }
  }
  ::testing::Test::RecordProperty("redis_fp_rate", std::to_string(redis_rate));
  ::testing::Test::RecordProperty("local_fp_rate", std::to_string(local_rate));
  std::printf(
      "FPR over %d URLs: redis %.5f, local %.5f, keys %u, %.3f bytes/URL\n", kN,
      redis_rate, local_rate, f->key_count(), bytes_per_url);
}

TEST_F(RedisBloomFilterTest, ReportsTheRateOfAShardFilledPastItsShare) {
  // Every URL of one host: one shard of 16 takes them all, 12.8 times what
  // it was sized for; the shared count alone (1,600 of 1,600) would look
  // fine, the weighted rate does not.
  auto f = RedisBloomFilter::Open(
      *client_, keys_,
      {.expected_urls = 1600, .fp_rate = 0.01, .min_shard_urls = 1},
      /*shards=*/16);
  ASSERT_TRUE(f.ok()) << f.status();
  Batch b = Urls("in", 0, 1600, /*hosts=*/1);
  ASSERT_TRUE(f->AddMany(b.urls, b.hosts).ok());
  absl::StatusOr<FrontierFilterStats> stats = f->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_LE(stats->estimated_count, 1600);
  EXPECT_GT(stats->estimated_fp_rate, 0.3);
}

}  // namespace
}  // namespace sieve::cluster
