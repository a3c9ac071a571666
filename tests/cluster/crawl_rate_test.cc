// CrawlRate (frontier/cluster/crawl_rate.h) against a real redis-server: the
// crawl-wide rate's slots, taken by two workers' connections.
#include "frontier/cluster/crawl_rate.h"

#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "tests/cluster/redis_test.h"

namespace sieve::cluster {
namespace {

class CrawlRateTest : public sieve::testing::RedisTest {};

TEST_F(CrawlRateTest, SlotsAreOneIntervalApartWhicheverWorkerTakesThem) {
  absl::StatusOr<ClusterKeys> keys = ClusterKeys::ForCrawl("rate");
  ASSERT_TRUE(keys.ok());
  auto other = RedisClient::Connect(redis_->endpoint(), {});
  ASSERT_TRUE(other.ok()) << other.status();
  absl::StatusOr<CrawlRate> a = CrawlRate::Open(*client_, *keys, 10);
  absl::StatusOr<CrawlRate> b = CrawlRate::Open(**other, *keys, 10);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();

  absl::StatusOr<absl::Duration> first = a->TryTake();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, absl::ZeroDuration());
  // The other worker, at once: the crawl's next slot is 100 ms on.
  absl::StatusOr<absl::Duration> wait = b->TryTake();
  ASSERT_TRUE(wait.ok()) << wait.status();
  EXPECT_GT(*wait, absl::ZeroDuration());
  EXPECT_LE(*wait, absl::Milliseconds(100));
  // Nothing was taken by asking: the first worker is told the same.
  absl::StatusOr<absl::Duration> again = a->TryTake();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_GT(*again, absl::ZeroDuration());
  EXPECT_LE(*again, *wait);
  absl::SleepFor(*again);
  absl::StatusOr<absl::Duration> taken = b->TryTake();
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_EQ(*taken, absl::ZeroDuration());
}

TEST_F(CrawlRateTest, RejectsARateOutsideItsBounds) {
  absl::StatusOr<ClusterKeys> keys = ClusterKeys::ForCrawl("rate");
  ASSERT_TRUE(keys.ok());
  for (double bad : {0.0, -1.0, 2e6}) {
    EXPECT_EQ(CrawlRate::Open(*client_, *keys, bad).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

}  // namespace
}  // namespace sieve::cluster
