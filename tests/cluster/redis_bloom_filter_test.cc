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

std::vector<std::string> Urls(const char* prefix, int from, int to) {
  std::vector<std::string> urls;
  urls.reserve(to - from);
  for (int i = from; i < to; ++i)
    urls.push_back(absl::StrCat("http://h", i % 97, ".example/", prefix, i));
  return urls;
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
  auto f = RedisBloomFilter::Open(*client_, keys_, {.expected_urls = 1000});
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<std::string> urls = {"http://a/", "http://b/", "http://a/"};
  absl::StatusOr<std::vector<bool>> fresh = f->AddMany(urls);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_EQ(*fresh, (std::vector<bool>{true, true, false}));
  fresh = f->AddMany(urls);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_EQ(*fresh, (std::vector<bool>{false, false, false}));
  absl::StatusOr<FrontierFilterStats> stats = f->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->estimated_count, 2);
  EXPECT_EQ(stats->capacity, 1000u);
}

TEST_F(RedisBloomFilterTest, LaterWorkersUseTheGeometryTheFirstStored) {
  auto first = RedisBloomFilter::Open(*client_, keys_,
                                      {.expected_urls = 5000, .fp_rate = 0.01});
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = RedisBloomFilter::Open(
      *client_, keys_, {.expected_urls = 90000, .fp_rate = 0.001});
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->bits(), first->bits());
  EXPECT_EQ(second->hashes(), first->hashes());
  EXPECT_EQ(second->capacity(), 5000u);
  std::vector<std::string> url = {"http://x/"};
  ASSERT_TRUE(first->AddMany(url).ok());
  absl::StatusOr<std::vector<bool>> seen = second->MayContainMany(url);
  ASSERT_TRUE(seen.ok()) << seen.status();
  EXPECT_TRUE((*seen)[0]);
}

TEST_F(RedisBloomFilterTest, SplitOverKeysHasTheSingleProcessFilterRate) {
  // 10^6 URLs at 1 %: 1.24 MB of bits; 128 KiB keys make it 10 keys.
  constexpr int kN = 1'000'000;
  const int64_t memory_before = UsedMemory(*client_);
  auto f = RedisBloomFilter::Open(
      *client_, keys_,
      {.expected_urls = kN, .fp_rate = 0.01, .max_key_bytes = 128 << 10});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_GE(f->key_count(), 9u);
  BlockedBloomFilter local = BlockedBloomFilter::ForCapacity(kN, 0.01);
  EXPECT_EQ(f->bits(), local.bit_count());

  for (int from = 0; from < kN; from += 100'000) {
    std::vector<std::string> urls = Urls("in", from, from + 100'000);
    ASSERT_TRUE(f->AddMany(urls).ok());
    for (const std::string& u : urls) local.Add(u);
  }
  // Redis memory per seen URL (docs/cluster.md): the bit strings, ~1.24 bytes.
  const double bytes_per_url =
      static_cast<double>(UsedMemory(*client_) - memory_before) / kN;
  EXPECT_LT(bytes_per_url, 2.0);
  int redis_fp = 0;
  int local_fp = 0;
  for (int from = 0; from < kN; from += 100'000) {
    std::vector<std::string> probes = Urls("out", from, from + 100'000);
    absl::StatusOr<std::vector<bool>> seen = f->MayContainMany(probes);
    ASSERT_TRUE(seen.ok()) << seen.status();
    for (size_t i = 0; i < probes.size(); ++i) {
      redis_fp += (*seen)[i] ? 1 : 0;
      local_fp += local.MayContain(probes[i]) ? 1 : 0;
    }
  }
  const double redis_rate = static_cast<double>(redis_fp) / kN;
  const double local_rate = static_cast<double>(local_fp) / kN;
  EXPECT_NEAR(redis_rate, local_rate, 0.1 * local_rate);
  // Same geometry and hashing: the same URLs collide (only the bit order
  // inside a byte differs, a bijection), so the counts agree exactly.
  EXPECT_EQ(redis_fp, local_fp);
  EXPECT_NEAR(redis_rate, 0.01, 0.002);

  absl::StatusOr<FrontierFilterStats> stats = f->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  // False positives during the adds are not counted as new.
  EXPECT_NEAR(stats->estimated_count, kN, 0.01 * kN);

  // Every filter key holds bits and none is longer than the maximum.
  for (uint32_t k = 0; k < f->key_count(); ++k) {
    absl::StatusOr<RedisReply> len =
        client_->Command({"STRLEN", keys_.FilterBits(k)});
    ASSERT_TRUE(len.ok()) << len.status();
    EXPECT_GT(len->integer, 0) << k;
    EXPECT_LE(len->integer, 128 << 10) << k;
  }
  ::testing::Test::RecordProperty("redis_fp_rate", std::to_string(redis_rate));
  ::testing::Test::RecordProperty("local_fp_rate", std::to_string(local_rate));
  std::printf(
      "FPR over %d URLs: redis %.5f, local %.5f, keys %u, %.3f bytes/URL\n", kN,
      redis_rate, local_rate, f->key_count(), bytes_per_url);
}

}  // namespace
}  // namespace sieve::cluster
