// Shards and their leases against a real redis-server on loopback.
#include "frontier/cluster/shard_leases.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "tests/cluster/redis_server.h"

namespace sieve::cluster {
namespace {

using ::sieve::testing::RedisServer;

TEST(ShardOfTest, IsStableAndSpreadsHosts) {
  EXPECT_EQ(ShardOf("a.example", 256), ShardOf("a.example", 256));
  std::vector<int> per_shard(8, 0);
  for (int i = 0; i < 8000; ++i) {
    uint32_t s = ShardOf(absl::StrCat("host", i, ".example"), 8);
    ASSERT_LT(s, 8u);
    ++per_shard[s];
  }
  for (int n : per_shard) EXPECT_NEAR(n, 1000, 150);
}

class ShardLeasesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SIEVE_SKIP_WITHOUT_REDIS();
    auto server = RedisServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    for (auto* c : {&a_, &b_}) {
      auto client = RedisClient::Connect(server_->endpoint(), {});
      ASSERT_TRUE(client.ok()) << client.status();
      *c = *std::move(client);
    }
  }

  ShardLeases Worker(RedisClient& client, const char* id,
                     absl::Duration ttl = absl::Seconds(30)) {
    ShardLeases leases(client, keys_, id, 8, ttl);
    EXPECT_TRUE(leases.Init().ok());
    return leases;
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<RedisClient> a_;
  std::unique_ptr<RedisClient> b_;
  ClusterKeys keys_ = *ClusterKeys::ForCrawl("t");
};

TEST_F(ShardLeasesTest, TheFirstWorkerFixesTheShardCount) {
  absl::StatusOr<uint32_t> first = OpenShardCount(*a_, keys_, 16);
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<uint32_t> second = OpenShardCount(*b_, keys_, 64);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, 16u);
  EXPECT_FALSE(OpenShardCount(*a_, keys_, 0).ok());
}

TEST_F(ShardLeasesTest, GivesAShardToOneWorkerAtATime) {
  ShardLeases w1 = Worker(*a_, "w1");
  ShardLeases w2 = Worker(*b_, "w2");
  EXPECT_EQ(w1.Acquire(3).value_or(false), true);
  EXPECT_EQ(w2.Acquire(3).value_or(true), false);
  EXPECT_TRUE(w1.Holds(3));
  EXPECT_FALSE(w2.Holds(3));
  absl::StatusOr<RedisReply> ttl = a_->Command({"PTTL", keys_.Lease(3)});
  ASSERT_TRUE(ttl.ok());
  EXPECT_GT(ttl->integer, 0);
  EXPECT_LE(ttl->integer, 30'000);
}

TEST_F(ShardLeasesTest, ReleasedShardsCanBeTakenAtOnce) {
  ShardLeases w1 = Worker(*a_, "w1");
  ShardLeases w2 = Worker(*b_, "w2");
  ASSERT_TRUE(w1.Acquire(1).value_or(false));
  ASSERT_TRUE(w1.Acquire(2).value_or(false));
  ASSERT_TRUE(w1.ReleaseAll().ok());
  EXPECT_TRUE(w1.held().empty());
  EXPECT_TRUE(w2.Acquire(1).value_or(false));
  EXPECT_TRUE(w2.Acquire(2).value_or(false));
}

TEST_F(ShardLeasesTest, RenewExtendsHeldLeasesAndReportsLostOnes) {
  ShardLeases w1 = Worker(*a_, "w1");
  ShardLeases w2 = Worker(*b_, "w2");
  ASSERT_TRUE(w1.Acquire(1).value_or(false));
  ASSERT_TRUE(w1.Acquire(2).value_or(false));
  ASSERT_TRUE(a_->Command({"PEXPIRE", keys_.Lease(1), "5000"}).ok());
  // Shard 2's lease is gone (as on expiry) and w2 takes it.
  ASSERT_TRUE(a_->Command({"DEL", keys_.Lease(2)}).ok());
  ASSERT_TRUE(w2.Acquire(2).value_or(false));

  absl::StatusOr<std::vector<uint32_t>> lost = w1.Renew();
  ASSERT_TRUE(lost.ok()) << lost.status();
  EXPECT_EQ(*lost, std::vector<uint32_t>{2});
  EXPECT_EQ(w1.held(), std::vector<uint32_t>{1});
  absl::StatusOr<RedisReply> ttl = a_->Command({"PTTL", keys_.Lease(1)});
  ASSERT_TRUE(ttl.ok());
  EXPECT_GT(ttl->integer, 5000) << "renewed to the 30 s ttl";
  EXPECT_TRUE(w2.Holds(2));
}

TEST_F(ShardLeasesTest, AStaleOwnerCannotReleaseItsSuccessorsLease) {
  ShardLeases w1 = Worker(*a_, "w1");
  ShardLeases w2 = Worker(*b_, "w2");
  ASSERT_TRUE(w1.Acquire(4).value_or(false));
  const std::string old_value = w1.LeaseValue(4);
  ASSERT_TRUE(a_->Command({"DEL", keys_.Lease(4)}).ok());
  ASSERT_TRUE(w2.Acquire(4).value_or(false));
  // w1 has not noticed yet; its release must not touch w2's lease.
  ASSERT_TRUE(w1.Release(4).ok());
  absl::StatusOr<RedisReply> owner = a_->Command({"GET", keys_.Lease(4)});
  ASSERT_TRUE(owner.ok());
  EXPECT_EQ(owner->str, w2.LeaseValue(4));
  // Fencing tokens only grow.
  auto token = [](const std::string& v) {
    return std::stoll(v.substr(v.find('/') + 1));
  };
  EXPECT_GT(token(w2.LeaseValue(4)), token(old_value));
}

TEST_F(ShardLeasesTest, ALeaseNotRenewedExpires) {
  ShardLeases w1 = Worker(*a_, "w1", absl::Milliseconds(50));
  ShardLeases w2 = Worker(*b_, "w2");
  ASSERT_TRUE(w1.Acquire(5).value_or(false));
  bool taken = false;
  // Bounded: 500 tries 10 ms apart; the lease lasts 50 ms.
  for (int i = 0; i < 500 && !taken; ++i) {
    taken = w2.Acquire(5).value_or(false);
    if (!taken) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(taken);
  absl::StatusOr<std::vector<uint32_t>> lost = w1.Renew();
  ASSERT_TRUE(lost.ok());
  EXPECT_EQ(*lost, std::vector<uint32_t>{5});
}

TEST_F(ShardLeasesTest, TargetSplitsShardsOverLiveWorkers) {
  ShardLeases w1 = Worker(*a_, "w1");
  ShardLeases w2 = Worker(*b_, "w2");
  const absl::Time now = absl::Now();
  ASSERT_TRUE(w1.Heartbeat(now).ok());
  EXPECT_EQ(w1.Target(now).value_or(0), 8u);
  ASSERT_TRUE(w2.Heartbeat(now).ok());
  EXPECT_EQ(w1.Target(now).value_or(0), 4u);
  ShardLeases w3 = Worker(*a_, "w3");
  ASSERT_TRUE(w3.Heartbeat(now).ok());
  EXPECT_EQ(w1.Target(now).value_or(0), 3u);
  // A worker silent for longer than the ttl no longer counts.
  EXPECT_EQ(w1.Target(now + absl::Seconds(31)).value_or(0), 8u);
  ASSERT_TRUE(w3.Leave().ok());
  EXPECT_EQ(w1.Target(now).value_or(0), 4u);
}

}  // namespace
}  // namespace sieve::cluster
