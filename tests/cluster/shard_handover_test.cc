#include "frontier/cluster/shard_handover.h"

#include <vector>

#include "gtest/gtest.h"

namespace sieve::cluster {
namespace {

TEST(ShardHandoverTest, AWorkerWithFewerHostsThanSlotsIsHungry) {
  std::vector<ShardLoad> load = {{.shard = 1, .hosts = 3},
                                 {.shard = 2, .hosts = 4}};
  EXPECT_TRUE(IsHungry(load, /*fetch_slots=*/8, /*per_host=*/1));
  EXPECT_FALSE(IsHungry(load, /*fetch_slots=*/7, /*per_host=*/1));
  // Two connections per host: 7 hosts fill 14 slots.
  EXPECT_FALSE(IsHungry(load, /*fetch_slots=*/14, /*per_host=*/2));
  EXPECT_FALSE(IsHungry({}, /*fetch_slots=*/0, /*per_host=*/1));
}

TEST(ShardHandoverTest, GivesTheShardThatEvensTheTwoOut) {
  std::vector<ShardLoad> mine = {{.shard = 1, .hosts = 6},
                                 {.shard = 2, .hosts = 9},
                                 {.shard = 3, .hosts = 4},
                                 {.shard = 4, .hosts = 0}};
  // 19 against 7: a gap of 12; shard 1's 6 hosts make it 13 and 13.
  EXPECT_EQ(ShardToGive(mine, /*their_hosts=*/7, /*hosts_at_once=*/8), 1u);
  // 19 against 0: shard 2's 9 make it 10 and 9.
  EXPECT_EQ(ShardToGive(mine, /*their_hosts=*/0, /*hosts_at_once=*/8), 2u);
}

TEST(ShardHandoverTest, GivesNothingOverAGapOfOneHost) {
  std::vector<ShardLoad> mine = {{.shard = 1, .hosts = 10},
                                 {.shard = 2, .hosts = 10},
                                 {.shard = 3, .hosts = 1}};
  // 21 against 20: moving a host would only swap who has more.
  EXPECT_EQ(ShardToGive(mine, /*their_hosts=*/20, /*hosts_at_once=*/8),
            std::nullopt);
  // 21 against 17: shard 3's host makes it 20 and 18.
  EXPECT_EQ(ShardToGive(mine, /*their_hosts=*/17, /*hosts_at_once=*/8), 3u);
  // Against more than it has, or the same.
  EXPECT_EQ(ShardToGive(mine, /*their_hosts=*/21, /*hosts_at_once=*/8),
            std::nullopt);
  EXPECT_EQ(ShardToGive(mine, /*their_hosts=*/30, /*hosts_at_once=*/8),
            std::nullopt);
}

TEST(ShardHandoverTest, GivesNoShardAsLargeAsTheGap) {
  // 12 against 4: the one shard holds 12 hosts, and giving it would leave
  // the two as far apart as before (0 against 16) or worse.
  std::vector<ShardLoad> one = {{.shard = 1, .hosts = 12}};
  EXPECT_EQ(ShardToGive(one, /*their_hosts=*/4, /*hosts_at_once=*/8),
            std::nullopt);
  // A shard without hosts with work helps no one.
  std::vector<ShardLoad> idle = {{.shard = 1, .hosts = 20},
                                 {.shard = 2, .hosts = 0}};
  EXPECT_EQ(ShardToGive(idle, /*their_hosts=*/0, /*hosts_at_once=*/8),
            std::nullopt);
}

TEST(ShardHandoverTest, GivesNothingWhenAllItsHostsFitItsSlots) {
  // 8 hosts against 0, but all 8 are fetched at once: another worker would
  // fetch them no faster.
  std::vector<ShardLoad> mine = {{.shard = 1, .hosts = 4},
                                 {.shard = 2, .hosts = 4}};
  EXPECT_EQ(ShardToGive(mine, /*their_hosts=*/0, /*hosts_at_once=*/8),
            std::nullopt);
  // With 6 slots two of them wait: shard 1 goes.
  EXPECT_EQ(ShardToGive(mine, /*their_hosts=*/0, /*hosts_at_once=*/6), 1u);
}

}  // namespace
}  // namespace sieve::cluster
