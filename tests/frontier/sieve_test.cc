// The Sieve's contract: FIFO order, duplicates dropped, capacity warning, every
// filter kind.
#include "frontier/sieve.h"

#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;

std::string Url(int i) {
  return "http://host" + std::to_string(i % 7) + ".test/page/" +
         std::to_string(i);
}

class SieveKindTest : public ::testing::TestWithParam<FilterKind> {
 protected:
  SieveOptions Options(uint64_t expected) const {
    return SieveOptions{
        .expected_urls = expected, .fp_rate = 0.01, .filter_kind = GetParam()};
  }
};

TEST_P(SieveKindTest, PopsUrlsInTheOrderTheyWerePushed) {
  Sieve s(Options(10'000));
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(s.Push(Url(i))) << i;
  EXPECT_EQ(s.size(), 1000u);
  for (int i = 0; i < 1000; ++i) ASSERT_THAT(s.Pop(), Optional(Url(i)));
  EXPECT_EQ(s.Pop(), std::nullopt);
  EXPECT_EQ(s.size(), 0u);
}

TEST_P(SieveKindTest, DropsAUrlItHasSeen) {
  Sieve s(Options(1000));
  EXPECT_TRUE(s.Push("http://a/"));
  EXPECT_FALSE(s.Push("http://a/"));
  EXPECT_EQ(s.Pop(), "http://a/");
  // Still seen after it left the queue: the filter remembers, not the queue.
  EXPECT_FALSE(s.Push("http://a/"));
  EXPECT_TRUE(s.MaybeSeen("http://a/"));
  EXPECT_FALSE(s.MaybeSeen("http://b/"));
  const SieveStats stats = s.stats();
  EXPECT_EQ(stats.pushed, 3u);
  EXPECT_EQ(stats.queued, 1u);
  EXPECT_EQ(stats.dropped_as_seen, 2u);
  EXPECT_EQ(stats.popped, 1u);
  EXPECT_EQ(s.filter().kind(), GetParam());
}

TEST_P(SieveKindTest, CapacityWarningFiresPastExpectedAndAgainAtTwice) {
  constexpr uint64_t kExpected = 2000;
  Sieve s(Options(kExpected));
  std::vector<CapacityEvent> events;
  s.OnCapacityExceeded([&](const CapacityEvent& e) {
    events.push_back(e);
    EXPECT_GE(s.size(), 1u);  // The callback may call back into the Sieve.
  });
  int pushed = 0;
  auto push_until = [&](uint64_t n) {
    for (; pushed < static_cast<int>(n); ++pushed) s.Push(Url(pushed));
  };
  push_until(kExpected * 9 / 10);
  EXPECT_TRUE(events.empty()) << "fired at " << events[0].estimated_count;
  push_until(kExpected * 3 / 2);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].capacity, kExpected);
  EXPECT_GT(events[0].estimated_count, kExpected);
  EXPECT_GT(events[0].estimated_fp_rate, 0.0);
  push_until(kExpected * 19 / 10);
  EXPECT_EQ(events.size(), 1u);
  push_until(kExpected * 5 / 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_GT(events[1].estimated_count, 2 * kExpected);
}

TEST_P(SieveKindTest, PayloadComesBackWithItsUrl) {
  Sieve s(Options(1000));
  EXPECT_TRUE(s.Push("http://a/", "depth=1"));
  EXPECT_TRUE(s.Push("http://b/"));
  std::optional<SieveEntry> a = s.PopEntry();
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->url, "http://a/");
  EXPECT_EQ(a->payload, "depth=1");
  std::optional<SieveEntry> b = s.PopEntry();
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->url, "http://b/");
  EXPECT_EQ(b->payload, "");
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, SieveKindTest,
    ::testing::Values(FilterKind::kClassic, FilterKind::kBlocked,
                      FilterKind::kCounting, FilterKind::kScalable),
    [](const ::testing::TestParamInfo<FilterKind>& param_info) {
      return std::string(FilterKindName(param_info.param));
    });

TEST_P(SieveKindTest, PushManyAnswersAndQueuesAsPushDoes) {
  // Batches with repeats inside and across them, past the filter's capacity
  // (so the scalable kind grows in the middle of a batch).
  Sieve one(Options(500)), many(Options(500));
  std::mt19937_64 rng(7);
  for (int batch = 0; batch < 200; ++batch) {
    std::vector<std::string> urls, payloads;
    for (int i = 0; i < 16; ++i) {
      urls.push_back(Url(static_cast<int>(rng() % 2000)));
      payloads.push_back("p" + std::to_string(batch * 16 + i));
    }
    const std::vector<std::string_view> url_views(urls.begin(), urls.end());
    const std::vector<std::string_view> payload_views(payloads.begin(),
                                                      payloads.end());
    bool queued[16];
    many.PushMany(url_views, payload_views, queued);
    for (int i = 0; i < 16; ++i) {
      ASSERT_EQ(queued[i], one.Push(urls[i], payloads[i]))
          << "batch " << batch << " url " << i;
    }
  }
  EXPECT_EQ(many.stats().pushed, one.stats().pushed);
  EXPECT_EQ(many.stats().queued, one.stats().queued);
  while (std::optional<SieveEntry> a = one.PopEntry()) {
    std::optional<SieveEntry> b = many.PopEntry();
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(b->url, a->url);
    EXPECT_EQ(b->payload, a->payload);
  }
  EXPECT_EQ(many.PopEntry(), std::nullopt);
}

TEST(SieveTest, CreateRejectsBadOptions) {
  EXPECT_EQ(Sieve::Create({.expected_urls = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Sieve::Create({.fp_rate = 1.5}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Sieve::Create({.expected_urls = 10}).ok());
}

TEST(SieveTest, AnEmptyUrlIsAUrlLikeAnyOther) {
  Sieve s(SieveOptions{.expected_urls = 100});
  EXPECT_TRUE(s.Push(""));
  EXPECT_FALSE(s.Push(""));
  EXPECT_THAT(s.Pop(), Optional(std::string()));
}

TEST(SieveTest, AQueueWithinItsBudgetNeverTouchesDisk) {
  Sieve s(SieveOptions{.expected_urls = 1000, .memory_budget_bytes = 1 << 20});
  for (int i = 0; i < 1000; ++i) s.Push(Url(i));
  const SieveStats stats = s.stats();
  EXPECT_EQ(stats.spilled, 0u);
  EXPECT_EQ(stats.store_bytes_on_disk, 0u);
  EXPECT_GT(stats.queue_bytes_in_memory, 1000u * 30);
}

}  // namespace
}  // namespace sieve
