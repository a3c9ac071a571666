// The one list of FrontierStats' fields (SIEVE_FRONTIER_STATS in
// frontier/frontier_stats.h) and what is built on it: the counters a
// checkpoint saves and restores, and the sum over a worker's shards.
#include "frontier/frontier_stats.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace sieve {
namespace {

// Every field a different value: field i is 100 + i.
FrontierStats Numbered() {
  FrontierStats s;
  uint64_t next = 100;
#define SIEVE_SET(name, kind) s.name = next++;
  SIEVE_FRONTIER_STATS(SIEVE_SET)
#undef SIEVE_SET
  return s;
}

TEST(FrontierStatsTest, ACheckpointKeepsEveryCumulativeCounterAndNoGauge) {
  const FrontierStats before = Numbered();
  const std::vector<uint64_t> saved = FrontierTotals(before);
  FrontierStats after;
  RestoreFrontierTotals(saved, after);
  size_t totals = 0;
#define SIEVE_CHECK(name, kind)                                   \
  if (FrontierCounterKind::kind == FrontierCounterKind::kTotal) { \
    ++totals;                                                     \
    EXPECT_EQ(after.name, before.name) << #name;                  \
  } else {                                                        \
    EXPECT_EQ(after.name, 0u) << #name;                           \
  }
  SIEVE_FRONTIER_STATS(SIEVE_CHECK)
#undef SIEVE_CHECK
  EXPECT_EQ(saved.size(), totals);
  // The two the old hand-written list forgot or could not hold.
  EXPECT_EQ(after.overflow_errors, before.overflow_errors);
  EXPECT_EQ(after.budget_stalls, before.budget_stalls);
}

TEST(FrontierStatsTest, CountersSavedByTheOldElevenSlotListLoadInPlace) {
  // frontier.state version 2 as written before the list: dispatched, done,
  // succeeded, throttled, failed, dropped_urls, crawl_delays_capped,
  // budget_stalls, refused (Add calls of dropped hosts), retried, given_up.
  const std::vector<uint64_t> old = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  FrontierStats s;
  s.overflow_errors = 77;  // Not in the old list: left alone.
  RestoreFrontierTotals(old, s);
  EXPECT_EQ(s.dispatched, 1u);
  EXPECT_EQ(s.done, 2u);
  EXPECT_EQ(s.succeeded, 3u);
  EXPECT_EQ(s.throttled, 4u);
  EXPECT_EQ(s.failed, 5u);
  EXPECT_EQ(s.dropped_urls, 6u);
  EXPECT_EQ(s.crawl_delays_capped, 7u);
  EXPECT_EQ(s.budget_stalls, 8u);
  EXPECT_EQ(s.refused_urls, 9u);
  EXPECT_EQ(s.retried, 10u);
  EXPECT_EQ(s.given_up, 11u);
  EXPECT_EQ(s.overflow_errors, 77u);
  EXPECT_EQ(s.reclaimed, 0u);
}

TEST(FrontierStatsTest, ALongerListFromANewerVersionLoadsWhatItKnows) {
  std::vector<uint64_t> saved = FrontierTotals(Numbered());
  saved.push_back(999);
  FrontierStats s;
  RestoreFrontierTotals(saved, s);
  EXPECT_EQ(s.reclaimed, Numbered().reclaimed);
}

TEST(FrontierStatsTest, TheSumOverShardsAddsEveryField) {
  const FrontierStats one = Numbered();
  FrontierStats sum = one;
  AddFrontierStats(one, sum);
#define SIEVE_CHECK(name, kind) EXPECT_EQ(sum.name, 2 * one.name) << #name;
  SIEVE_FRONTIER_STATS(SIEVE_CHECK)
#undef SIEVE_CHECK
}

TEST(FrontierStatsTest, AShardLetGoLeavesItsTotalsNotItsGauges) {
  FrontierStats retired;
  AddFrontierStats(Numbered(), retired, /*totals_only=*/true);
  EXPECT_EQ(retired.queued, 0u);
  EXPECT_EQ(retired.in_flight, 0u);
  EXPECT_EQ(retired.budget_stalls, Numbered().budget_stalls);
  EXPECT_EQ(retired.given_up, Numbered().given_up);
}

}  // namespace
}  // namespace sieve
