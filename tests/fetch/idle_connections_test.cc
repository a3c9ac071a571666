// Which transfers may keep their connections (fetch/internal/idle_connections.h):
// the slots, their reuse by the same host, and their ageing out.
#include "fetch/internal/idle_connections.h"

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace sieve::fetch_internal {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'000'000);

// Fetches `key` once at `now`: Start, then Finish with the connection kept.
bool FetchOnce(IdleConnections& idle, const std::string& key, absl::Time now) {
  const bool keep = idle.Start(key, true, now);
  idle.Finish(key, keep, /*connection_kept=*/true, now);
  return keep;
}

TEST(IdleConnectionsTest, TheFirstHostsTakeTheSlotsAndKeepThem) {
  IdleConnections idle(2, absl::Seconds(10));
  EXPECT_TRUE(FetchOnce(idle, "a:80", kStart));
  EXPECT_TRUE(FetchOnce(idle, "b:80", kStart));
  EXPECT_FALSE(FetchOnce(idle, "c:80", kStart));  // Full: c's is closed.
  EXPECT_EQ(idle.idle(), 2u);
  // a and b come back and keep theirs; c still finds no slot.
  for (int round = 1; round < 4; ++round) {
    const absl::Time now = kStart + absl::Seconds(round);
    EXPECT_TRUE(FetchOnce(idle, "a:80", now));
    EXPECT_TRUE(FetchOnce(idle, "b:80", now));
    EXPECT_FALSE(FetchOnce(idle, "c:80", now));
  }
  EXPECT_EQ(idle.idle(), 2u);
  EXPECT_EQ(idle.reserved(), 0u);
}

TEST(IdleConnectionsTest, RunningTransfersHoldTheirSlots) {
  IdleConnections idle(2, absl::Seconds(10));
  EXPECT_TRUE(idle.Start("a:80", true, kStart));
  EXPECT_TRUE(idle.Start("b:80", true, kStart));
  EXPECT_FALSE(idle.Start("c:80", true, kStart));  // Both slots reserved.
  idle.Finish("a:80", true, /*connection_kept=*/false, kStart);  // An error.
  EXPECT_TRUE(idle.Start("c:80", true, kStart));    // a's slot is free again.
  EXPECT_FALSE(idle.Start("d:80", false, kStart));  // Does not want one.
  EXPECT_EQ(idle.reserved(), 2u);
}

TEST(IdleConnectionsTest, ASlotFreesWhenItsConnectionAgesOut) {
  IdleConnections idle(1, absl::Seconds(10));
  EXPECT_TRUE(FetchOnce(idle, "a:80", kStart));
  EXPECT_FALSE(FetchOnce(idle, "b:80", kStart + absl::Seconds(9)));
  // a was idle 10 s: curl closed it, b takes the slot.
  EXPECT_TRUE(FetchOnce(idle, "b:80", kStart + absl::Seconds(10)));
  EXPECT_EQ(idle.idle(), 1u);
  // A host fetched again before its connection ages out keeps it.
  EXPECT_TRUE(FetchOnce(idle, "b:80", kStart + absl::Seconds(19)));
  EXPECT_FALSE(FetchOnce(idle, "a:80", kStart + absl::Seconds(25)));
}

TEST(IdleConnectionsTest, ATransferThatWantsNoSlotTakesItsHostsIdleOne) {
  IdleConnections idle(1, absl::Seconds(10));
  EXPECT_TRUE(FetchOnce(idle, "a:80", kStart));
  // It runs on a's idle connection, which curl then closes: the slot frees.
  EXPECT_FALSE(idle.Start("a:80", false, kStart));
  EXPECT_EQ(idle.idle(), 0u);
  EXPECT_TRUE(FetchOnce(idle, "b:80", kStart));
}

}  // namespace
}  // namespace sieve::fetch_internal
