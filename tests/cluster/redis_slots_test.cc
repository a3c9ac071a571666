// Slots and redirections of Redis Cluster (frontier/cluster/redis_slots.h),
// against the values the Redis Cluster Specification gives.
#include "frontier/cluster/redis_slots.h"

#include <gtest/gtest.h>

namespace sieve::cluster {
namespace {

TEST(RedisSlotsTest, KeySlotIsCrc16XmodemOfTheHashTag) {
  // The specification's CRC16 check value: "123456789" -> 0x31C3.
  EXPECT_EQ(KeySlot("123456789"), 0x31C3 % kClusterSlots);
  EXPECT_EQ(KeySlot("foo"), 12182);
  EXPECT_EQ(KeySlot("{user1000}.following"), KeySlot("{user1000}.followers"));
  EXPECT_EQ(KeySlot("sieve:{site:s3}:q"), KeySlot("site:s3"));
  // "{}" hashes the whole key; only the first '{' counts.
  EXPECT_NE(KeySlot("foo{}{bar}"), KeySlot("bar"));
  EXPECT_EQ(KeySlot("foo{{bar}}zap"), KeySlot("{bar"));
}

TEST(RedisSlotsTest, CommandKeyFollowsTheTable) {
  EXPECT_EQ(CommandKey({"GET", "k"}), "k");
  EXPECT_EQ(CommandKey({"evalsha", "abc", "2", "k1", "k2"}), "k1");
  EXPECT_EQ(CommandKey({"EVAL", "return 1", "0"}), std::nullopt);
  EXPECT_EQ(CommandKey({"SCRIPT", "LOAD", "return 1"}), std::nullopt);
  EXPECT_EQ(CommandKey({"PING"}), std::nullopt);
}

TEST(RedisSlotsTest, ParsesMovedAndAskOnly) {
  std::optional<Redirect> moved = ParseRedirect("MOVED 3999 127.0.0.1:6381");
  ASSERT_TRUE(moved.has_value());
  EXPECT_FALSE(moved->ask);
  EXPECT_EQ(moved->slot, 3999);
  EXPECT_EQ(moved->host, "127.0.0.1");
  EXPECT_EQ(moved->port, 6381);
  std::optional<Redirect> ask = ParseRedirect("ASK 1 ::1:7000");
  ASSERT_TRUE(ask.has_value());
  EXPECT_TRUE(ask->ask);
  EXPECT_EQ(ask->host, "::1");
  EXPECT_FALSE(ParseRedirect("ERR wrong").has_value());
  EXPECT_FALSE(ParseRedirect("MOVED 99999 h:1").has_value());
  EXPECT_FALSE(ParseRedirect("MOVED 1 h:0").has_value());
  EXPECT_FALSE(ParseRedirect("MOVED x h:1").has_value());
}

}  // namespace
}  // namespace sieve::cluster
