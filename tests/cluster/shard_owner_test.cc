// ShardOwner's decisions (take, keep, release, take over) between two workers
// of one crawl, against a real redis-server on loopback.
#include "frontier/cluster/shard_owner.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/cluster/redis_test.h"

namespace sieve::cluster {
namespace {

constexpr uint32_t kShards = 8;

// One worker's pieces, as RedisFrontier builds them.
struct Worker {
  std::unique_ptr<RedisClient> client;
  std::unique_ptr<ShardLeases> leases;
  std::unique_ptr<ShardQueue> queue;
  std::unique_ptr<AckLedger> acks;
  std::unique_ptr<ShardOwner> owner;
  // Entries handed to the caller at take-over, per shard.
  std::map<uint32_t, size_t> fed;

  absl::Status Upkeep() {
    return owner->Upkeep(
        absl::Now(), [this](uint32_t shard, std::vector<StreamEntry> claimed) {
          fed[shard] += claimed.size();
          return absl::OkStatus();
        });
  }
  std::set<uint32_t> held() const {
    std::vector<uint32_t> h = leases->held();
    return {h.begin(), h.end()};
  }
};

class ShardOwnerTest : public ::sieve::testing::RedisTest {
 protected:
  std::unique_ptr<Worker> Start(const std::string& id) {
    auto w = std::make_unique<Worker>();
    auto client = RedisClient::Connect(redis_->endpoint(), {});
    EXPECT_TRUE(client.ok()) << client.status();
    if (!client.ok()) return nullptr;
    w->client = *std::move(client);
    w->leases = std::make_unique<ShardLeases>(*w->client, keys_, id, kShards,
                                              absl::Seconds(10));
    w->queue = std::make_unique<ShardQueue>(*w->client, keys_);
    w->acks = std::make_unique<AckLedger>(*w->queue, *w->leases);
    w->owner = std::make_unique<ShardOwner>(
        *w->client, keys_, *w->leases, *w->queue, *w->acks,
        ShardOwnerOptions{.work_dir = work_ / id});
    EXPECT_TRUE(w->leases->Init().ok());
    EXPECT_TRUE(w->queue->Init().ok());
    return w;
  }

  bool MarkedClean(uint32_t shard) {
    absl::StatusOr<RedisReply> r =
        client_->Command({"EXISTS", keys_.Clean(shard)});
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() && r->integer == 1;
  }

  ClusterKeys keys_ = *ClusterKeys::ForCrawl("t");
};

TEST_F(ShardOwnerTest, SplitsTheShardsAndHandsTheSurplusOverClean) {
  std::unique_ptr<Worker> w1 = Start("w1");
  ASSERT_NE(w1, nullptr);
  ASSERT_TRUE(w1->Upkeep().ok());
  EXPECT_EQ(w1->held().size(), kShards) << "alone: every shard";
  EXPECT_EQ(w1->owner->shards().size(), kShards);
  for (const auto& [s, shard] : w1->owner->shards()) {
    EXPECT_NE(shard.local, nullptr);
    EXPECT_TRUE(shard.handing_out());
  }

  std::unique_ptr<Worker> w2 = Start("w2");
  ASSERT_NE(w2, nullptr);
  ASSERT_TRUE(w2->Upkeep().ok());
  EXPECT_TRUE(w2->held().empty()) << "every lease is w1's";
  // w1 sees two live workers: its idle surplus goes at once, marked clean.
  ASSERT_TRUE(w1->Upkeep().ok());
  EXPECT_EQ(w1->held().size(), kShards / 2);
  EXPECT_EQ(w1->owner->shards().size(), kShards / 2);
  for (uint32_t s = 0; s < kShards; ++s)
    EXPECT_EQ(MarkedClean(s), !w1->held().contains(s)) << s;

  ASSERT_TRUE(w2->Upkeep().ok());
  EXPECT_EQ(w2->held().size(), kShards / 2);
  for (uint32_t s : w2->held()) {
    EXPECT_FALSE(w1->held().contains(s)) << s;
    EXPECT_FALSE(MarkedClean(s)) << "the mark is taken with the shard";
  }
  EXPECT_EQ(w2->owner->reclaimed(), 0u) << "let go with nothing in flight";
}

TEST_F(ShardOwnerTest, ATakeOverClaimsAndCountsWhatTheLastOwnerRead) {
  std::unique_ptr<Worker> w1 = Start("w1");
  ASSERT_NE(w1, nullptr);
  ASSERT_TRUE(w1->Upkeep().ok());
  std::vector<QueuedUrl> urls;
  for (int i = 0; i < 3; ++i)
    urls.push_back(
        {.shard = 5, .url = {absl::StrCat("http://a/", i), "a", 0, ""}});
  ASSERT_TRUE(w1->queue->Push(urls).ok());
  absl::StatusOr<std::vector<StreamEntry>> read =
      w1->queue->Read(5, w1->leases->LeaseValue(5), "w1", 10);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 3u);
  // w1 stops dead: its leases expire, its heartbeat goes stale.
  for (uint32_t s = 0; s < kShards; ++s)
    ASSERT_TRUE(client_->Command({"DEL", keys_.Lease(s)}).ok());
  ASSERT_TRUE(w1->leases->Leave().ok());

  std::unique_ptr<Worker> w2 = Start("w2");
  ASSERT_NE(w2, nullptr);
  ASSERT_TRUE(w2->Upkeep().ok());
  EXPECT_EQ(w2->held().size(), kShards);
  EXPECT_EQ(w2->fed[5], 3u) << "w1's unacknowledged entries, fed again";
  EXPECT_EQ(w2->owner->reclaimed(), 3u);

  // w1 wakes up: its lost leases are renewed no more, their shards dropped.
  ASSERT_TRUE(w1->Upkeep().ok());
  EXPECT_TRUE(w1->held().empty());
  EXPECT_TRUE(w1->owner->shards().empty());
}

TEST_F(ShardOwnerTest, ABusySurplusShardDrainsAndGoesWhenIdle) {
  std::unique_ptr<Worker> w1 = Start("w1");
  ASSERT_NE(w1, nullptr);
  ASSERT_TRUE(w1->Upkeep().ok());
  for (auto& [s, shard] : w1->owner->shards()) shard.in_flight = 1;
  // Shard 0 (drained first: no hosts, ties by number) has an entry w1 read
  // and did not fetch.
  ASSERT_TRUE(
      w1->queue->Push({{.shard = 0, .url = {"http://c/", "c", 0, ""}}}).ok());
  ASSERT_TRUE(w1->queue->Read(0, w1->leases->LeaseValue(0), "w1", 10).ok());
  std::unique_ptr<Worker> w2 = Start("w2");
  ASSERT_NE(w2, nullptr);
  ASSERT_TRUE(w2->Upkeep().ok());

  ASSERT_TRUE(w1->Upkeep().ok());
  std::set<uint32_t> draining;
  for (const auto& [s, shard] : w1->owner->shards()) {
    if (!shard.handing_out()) draining.insert(s);
  }
  EXPECT_EQ(draining.size(), kShards / 2);
  EXPECT_EQ(w1->held().size(), kShards) << "kept while a fetch is out";
  ASSERT_TRUE(w1->owner->ReleaseIdle().ok());
  EXPECT_EQ(w1->held().size(), kShards);

  for (uint32_t s : draining) w1->owner->shards().at(s).in_flight = 0;
  ASSERT_TRUE(w1->owner->ReleaseIdle().ok());
  EXPECT_EQ(w1->held().size(), kShards / 2);
  for (uint32_t s : draining) EXPECT_FALSE(w1->held().contains(s)) << s;
  ASSERT_TRUE(w2->Upkeep().ok());
  EXPECT_EQ(w2->held(), draining);
  EXPECT_EQ(w2->fed[0], 1u) << "claimed from w1";
  EXPECT_EQ(w2->owner->reclaimed(), 0u) << "not fetched: let go clean";
}

TEST_F(ShardOwnerTest, LeavingMarksOnlyIdleShardsClean) {
  std::unique_ptr<Worker> w1 = Start("w1");
  ASSERT_NE(w1, nullptr);
  ASSERT_TRUE(w1->Upkeep().ok());
  ASSERT_TRUE(
      w1->queue->Push({{.shard = 2, .url = {"http://b/", "b", 0, ""}}}).ok());
  ASSERT_TRUE(w1->queue->Read(2, w1->leases->LeaseValue(2), "w1", 10).ok());
  w1->owner->shards().at(2).in_flight = 1;  // Its URL is being fetched.

  ASSERT_TRUE(w1->owner->ReleaseAll().ok());
  EXPECT_TRUE(w1->held().empty());
  EXPECT_TRUE(w1->owner->shards().empty());
  for (uint32_t s = 0; s < kShards; ++s) EXPECT_EQ(MarkedClean(s), s != 2);
  ASSERT_TRUE(w1->owner->Leave().ok());
  absl::StatusOr<RedisReply> live =
      client_->Command({"ZSCORE", keys_.Workers(), "w1"});
  ASSERT_TRUE(live.ok());
  EXPECT_TRUE(live->is_nil()) << "out of the live set";

  std::unique_ptr<Worker> w2 = Start("w2");
  ASSERT_NE(w2, nullptr);
  ASSERT_TRUE(w2->Upkeep().ok());
  EXPECT_EQ(w2->held().size(), kShards);
  EXPECT_EQ(w2->owner->reclaimed(), 1u) << "shard 2's URL may be fetched twice";
}

}  // namespace
}  // namespace sieve::cluster
