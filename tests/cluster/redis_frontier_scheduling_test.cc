// Which URL a RedisFrontier worker hands out next, and what it publishes of
// its load, against a real redis-server on loopback.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontier/cluster/keys.h"
#include "frontier/cluster/redis_frontier.h"
#include "gmock/gmock.h"
#include "tests/cluster/redis_test.h"

namespace sieve::cluster {
namespace {

using ::testing::ElementsAreArray;

class RedisFrontierSchedulingTest : public ::sieve::testing::RedisTest {
 protected:
  std::unique_ptr<RedisFrontier> Worker(const std::string& id,
                                        uint32_t fetch_slots) {
    RedisFrontierOptions o;
    o.endpoint = redis_->endpoint();
    o.crawl_id = "scheduling";
    o.worker_id = id;
    o.shards = 12;
    o.filter = {.expected_urls = 10'000, .fp_rate = 0.001};
    o.lease_ttl = absl::Milliseconds(300);
    o.idle_poll = absl::Milliseconds(20);
    o.politeness.min_delay = absl::ZeroDuration();
    o.fetch_slots = fetch_slots;
    o.work_dir = work_;
    auto f = RedisFrontier::Create(o);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? *std::move(f) : nullptr;
  }
};

TEST_F(RedisFrontierSchedulingTest,
       HandsOutTheUrlQueuedFirstAcrossAllItsShards) {
  std::unique_ptr<RedisFrontier> f = Worker("w1", /*fetch_slots=*/0);
  ASSERT_NE(f, nullptr);
  // One URL on each of 12 hosts, which fall on the shards in another order
  // than this. Stream ids order URLs to the millisecond, so they are queued
  // 2 ms apart.
  std::vector<std::string> added;
  for (int h = 0; h < 12; ++h) {
    const std::string host = absl::StrCat("h", h, ".test");
    added.push_back(absl::StrCat("http://", host, "/"));
    ASSERT_TRUE(f->Add(added.back(), host, 0));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // The lone worker takes every shard; nothing is done, so each Next hands
  // out another host's URL: the oldest of all the worker's shards.
  std::vector<std::string> served;
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (served.size() < added.size() && absl::Now() < deadline) {
    NextUrl next = f->Next(absl::Now());
    if (next.state == NextUrl::kReady) {
      served.push_back(next.url.url);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  EXPECT_EQ(f->held_shards().size(), 12u);
  EXPECT_THAT(served, ElementsAreArray(added));
  EXPECT_TRUE(f->Shutdown().ok());
}

TEST_F(RedisFrontierSchedulingTest, ForgetsTheLoadOfAWorkerThatStoppedDead) {
  std::unique_ptr<RedisFrontier> alive = Worker("alive", /*fetch_slots=*/8);
  std::unique_ptr<RedisFrontier> dead = Worker("dead", /*fetch_slots=*/8);
  ASSERT_NE(alive, nullptr);
  ASSERT_NE(dead, nullptr);
  auto client = RedisClient::Connect(redis_->endpoint(), {});
  ASSERT_TRUE(client.ok()) << client.status();
  const std::string load = ClusterKeys::ForCrawl("scheduling")->Load();
  auto load_of = [&](const std::string& worker) {
    absl::StatusOr<RedisReply> r = (*client)->Command({"ZSCORE", load, worker});
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->str : "";
  };
  // Both publish their load...
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while ((load_of("alive").empty() || load_of("dead").empty()) &&
         absl::Now() < deadline) {
    alive->Next(absl::Now());
    dead->Next(absl::Now());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_FALSE(load_of("dead").empty());
  // ...then "dead" stops without Shutdown; once its heartbeat is older than
  // the lease, the live one's balance removes its entry.
  while (!load_of("dead").empty() && absl::Now() < deadline) {
    alive->Next(absl::Now());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(load_of("dead"), "");
  EXPECT_FALSE(load_of("alive").empty());
}

}  // namespace
}  // namespace sieve::cluster
