// The order in which a RedisFrontier worker hands out the URLs of all the
// shards it holds, against a real redis-server on loopback.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontier/cluster/redis_frontier.h"
#include "gmock/gmock.h"
#include "tests/cluster/redis_server.h"

namespace sieve::cluster {
namespace {

using ::sieve::testing::RedisServer;
using ::testing::ElementsAreArray;

TEST(RedisFrontierOrderTest, HandsOutTheUrlQueuedFirstAcrossAllItsShards) {
  SIEVE_SKIP_WITHOUT_REDIS();
  auto redis = RedisServer::Start();
  ASSERT_TRUE(redis.ok()) << redis.status();
  const std::filesystem::path work =
      std::filesystem::temp_directory_path() /
      absl::StrCat("sieve-cluster-order-test-", getpid());
  std::filesystem::create_directories(work);
  RedisFrontierOptions o;
  o.endpoint = (*redis)->endpoint();
  o.crawl_id = "order";
  o.worker_id = "w1";
  o.shards = 12;
  o.filter = {.expected_urls = 10'000, .fp_rate = 0.001};
  o.politeness.min_delay = absl::ZeroDuration();
  o.work_dir = work;
  auto f = RedisFrontier::Create(o);
  ASSERT_TRUE(f.ok()) << f.status();

  // One URL on each of 12 hosts, which fall on the shards in another order
  // than this. Stream ids order URLs to the millisecond, so they are queued
  // 2 ms apart.
  std::vector<std::string> added;
  for (int h = 0; h < 12; ++h) {
    const std::string host = absl::StrCat("h", h, ".test");
    added.push_back(absl::StrCat("http://", host, "/"));
    ASSERT_TRUE((*f)->Add(added.back(), host, 0));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // The lone worker takes every shard; nothing is done, so each Next hands
  // out another host's URL: the oldest of all the worker's shards.
  std::vector<std::string> served;
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (served.size() < added.size() && absl::Now() < deadline) {
    NextUrl next = (*f)->Next(absl::Now());
    if (next.state == NextUrl::kReady) {
      served.push_back(next.url.url);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  EXPECT_EQ((*f)->held_shards().size(), 12u);
  EXPECT_THAT(served, ElementsAreArray(added));
  EXPECT_TRUE((*f)->Shutdown().ok());
  std::error_code ignored;
  std::filesystem::remove_all(work, ignored);
}

}  // namespace
}  // namespace sieve::cluster
