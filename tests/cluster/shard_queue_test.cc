// Per-shard streams with acknowledgement against a real redis-server.
#include "frontier/cluster/shard_queue.h"

#include <gtest/gtest.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "frontier/cluster/shard_leases.h"
#include "tests/cluster/redis_server.h"

namespace sieve::cluster {
namespace {

using ::sieve::testing::RedisServer;

class ShardQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SIEVE_SKIP_WITHOUT_REDIS();
    auto server = RedisServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    auto client = RedisClient::Connect(server_->endpoint(), {});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    queue_ = std::make_unique<ShardQueue>(*client_, keys_);
    ASSERT_TRUE(queue_->Init().ok());
  }

  absl::Status PushUrls(uint32_t shard, int n) {
    std::vector<QueuedUrl> urls;
    for (int i = 0; i < n; ++i) {
      urls.push_back({.shard = shard,
                      .url = {absl::StrCat("http://a.example/", i), "a.example",
                              static_cast<uint32_t>(i), "ref"}});
    }
    return queue_->Push(urls);
  }

  ShardCounts CountsOf(uint32_t shard) {
    absl::StatusOr<std::vector<ShardCounts>> c = queue_->Counts(shard + 1);
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? (*c)[shard] : ShardCounts{};
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<RedisClient> client_;
  ClusterKeys keys_ = *ClusterKeys::ForCrawl("t");
  std::unique_ptr<ShardQueue> queue_;
};

TEST(StreamOrderTest, OrdersIdsAsRedisDoes) {
  EXPECT_EQ(ParseStreamOrder("1700000000123-7"),
            (StreamOrder{.ms = 1700000000123, .seq = 7}));
  // By milliseconds first, then by sequence; as numbers, not as text.
  EXPECT_LT(ParseStreamOrder("999-5"), ParseStreamOrder("1000-0"));
  EXPECT_LT(ParseStreamOrder("1000-9"), ParseStreamOrder("1000-10"));
  // Malformed ids come after every real one.
  for (const char* bad : {"", "12", "-3", "12-", "12-x", "a-1", "1-2-3"}) {
    EXPECT_EQ(ParseStreamOrder(bad),
              (StreamOrder{.ms = UINT64_MAX, .seq = UINT64_MAX}))
        << bad;
  }
}

TEST_F(ShardQueueTest, DeliversEachEntryOnceAndForgetsItWhenAcknowledged) {
  ShardLeases w1(*client_, keys_, "w1", 4, absl::Seconds(30));
  ASSERT_TRUE(w1.Init().ok());
  ASSERT_TRUE(w1.Acquire(2).value_or(false));
  ASSERT_TRUE(PushUrls(2, 5).ok());

  absl::StatusOr<std::vector<StreamEntry>> first =
      queue_->Read(2, w1.LeaseValue(2), "w1", 3);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->size(), 3u);
  EXPECT_EQ((*first)[0].url.url, "http://a.example/0");
  EXPECT_EQ((*first)[1].url.host, "a.example");
  EXPECT_EQ((*first)[2].url.depth, 2u);
  EXPECT_EQ((*first)[2].url.metadata, "ref");
  absl::StatusOr<std::vector<StreamEntry>> rest =
      queue_->Read(2, w1.LeaseValue(2), "w1", 10);
  ASSERT_TRUE(rest.ok()) << rest.status();
  EXPECT_EQ(rest->size(), 2u);
  EXPECT_EQ(CountsOf(2).entries, 5u);
  EXPECT_EQ(CountsOf(2).pending, 5u);

  absl::StatusOr<uint64_t> acked =
      queue_->Ack(2, w1.LeaseValue(2), {(*first)[0].id, (*first)[1].id});
  ASSERT_TRUE(acked.ok()) << acked.status();
  EXPECT_EQ(*acked, 2u);
  EXPECT_EQ(CountsOf(2).entries, 3u) << "acknowledged entries are deleted";
  EXPECT_EQ(CountsOf(2).pending, 3u);
  absl::StatusOr<std::vector<StreamEntry>> none =
      queue_->Read(2, w1.LeaseValue(2), "w1", 10);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
}

TEST_F(ShardQueueTest, ANewOwnerClaimsWhatTheOldOneReadAndDidNotAcknowledge) {
  ShardLeases w1(*client_, keys_, "w1", 4, absl::Seconds(30));
  ShardLeases w2(*client_, keys_, "w2", 4, absl::Seconds(30));
  ASSERT_TRUE(w1.Init().ok());
  ASSERT_TRUE(w2.Init().ok());
  ASSERT_TRUE(w1.Acquire(1).value_or(false));
  ASSERT_TRUE(PushUrls(1, 6).ok());
  const std::string old_lease = w1.LeaseValue(1);
  absl::StatusOr<std::vector<StreamEntry>> read =
      queue_->Read(1, old_lease, "w1", 4);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 4u);
  ASSERT_TRUE(queue_->Ack(1, old_lease, {(*read)[0].id}).ok());

  // w1 dies: its lease expires (deleted here) and w2 takes the shard.
  ASSERT_TRUE(client_->Command({"DEL", keys_.Lease(1)}).ok());
  ASSERT_TRUE(w2.Acquire(1).value_or(false));
  absl::StatusOr<std::vector<StreamEntry>> claimed =
      queue_->Claim(1, w2.LeaseValue(1), "w2");
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  std::set<std::string> urls;
  for (const StreamEntry& e : *claimed) urls.insert(e.url.url);
  EXPECT_EQ(urls,
            (std::set<std::string>{"http://a.example/1", "http://a.example/2",
                                   "http://a.example/3"}));
  absl::StatusOr<std::vector<StreamEntry>> unread =
      queue_->Read(1, w2.LeaseValue(1), "w2", 10);
  ASSERT_TRUE(unread.ok()) << unread.status();
  EXPECT_EQ(unread->size(), 2u);

  // The old owner is fenced out: it can neither read nor acknowledge.
  EXPECT_EQ(queue_->Read(1, old_lease, "w1", 10).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(queue_->Ack(1, old_lease, {(*claimed)[0].id}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CountsOf(1).pending, 5u);

  std::vector<std::string> ids;
  for (const StreamEntry& e : *claimed) ids.push_back(e.id);
  for (const StreamEntry& e : *unread) ids.push_back(e.id);
  absl::StatusOr<uint64_t> acked = queue_->Ack(1, w2.LeaseValue(1), ids);
  ASSERT_TRUE(acked.ok()) << acked.status();
  EXPECT_EQ(*acked, 5u);
  EXPECT_EQ(CountsOf(1).entries, 0u);
  EXPECT_EQ(CountsOf(1).pending, 0u);
}

TEST_F(ShardQueueTest, CountsShardsNobodyReadYet) {
  ASSERT_TRUE(PushUrls(3, 2).ok());
  EXPECT_EQ(CountsOf(3).entries, 2u);
  EXPECT_EQ(CountsOf(3).pending, 0u);
  EXPECT_EQ(CountsOf(0).entries, 0u);
}

}  // namespace
}  // namespace sieve::cluster
