// Lossless mode (verify_positives): the filter's "maybe seen" answers are
// confirmed against the exact fingerprint store, so even a filter wrong half
// the time loses no URL.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "frontier/sieve.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

std::string Url(int i) {
  return "http://site" + std::to_string(i % 101) +
         ".test/p?id=" + std::to_string(i);
}

TEST(SieveLosslessTest, ATinyFilterStillQueuesEveryDistinctUrlExactlyOnce) {
  constexpr int kUrls = 100'000;
  // Sized for fp_rate 0.5 at kUrls: one hash, 1.44 bits per URL; wrong about
  // half the time at the end.
  const test::ScopedTempDir work;
  Sieve s(SieveOptions{.expected_urls = kUrls,
                       .fp_rate = 0.5,
                       .verify_positives = true,
                       .work_dir = work});
  for (int i = 0; i < kUrls; ++i)
    ASSERT_TRUE(s.Push(Url(i))) << "lost URL " << i;
  // Every repeat is dropped: the store knows them all.
  for (int i = 0; i < kUrls; i += 3)
    ASSERT_FALSE(s.Push(Url(i))) << "duplicate " << i;
  const SieveStats stats = s.stats();
  EXPECT_EQ(stats.queued, static_cast<uint64_t>(kUrls));
  EXPECT_EQ(stats.size, static_cast<uint64_t>(kUrls));
  EXPECT_GT(stats.filter_estimated_fp_rate, 0.35);
  EXPECT_LT(stats.filter_estimated_fp_rate, 0.65);
  // Without the store, each of these would have been a lost URL. With FPR
  // rising from 0 to ~0.5 the filter errs on roughly a quarter to a third of
  // the new URLs.
  EXPECT_GT(stats.false_positives_caught, static_cast<uint64_t>(kUrls / 5));
  EXPECT_LT(stats.false_positives_caught, static_cast<uint64_t>(kUrls / 2));
  EXPECT_EQ(stats.store_lookups,
            stats.false_positives_caught + stats.dropped_as_seen);
  std::printf(
      "lossless: %llu of %d new URLs were filter false positives, caught by "
      "the store; "
      "final filter FPR %.3f\n",
      static_cast<unsigned long long>(stats.false_positives_caught), kUrls,
      stats.filter_estimated_fp_rate);
  ::testing::Test::RecordProperty("false_positives_caught",
                                  std::to_string(stats.false_positives_caught));
  for (int i = 0; i < kUrls; ++i) ASSERT_EQ(s.Pop(), Url(i));
  EXPECT_EQ(s.Pop(), std::nullopt);
  EXPECT_TRUE(s.status().ok()) << s.status();
}

TEST(SieveLosslessTest, PushManyLosesNothingEither) {
  constexpr int kUrls = 20'000;
  const test::ScopedTempDir work;
  Sieve s(SieveOptions{.expected_urls = kUrls,
                       .fp_rate = 0.5,
                       .verify_positives = true,
                       .work_dir = work});
  // Batches of 100 in which every URL comes twice.
  for (int first = 0; first < kUrls; first += 50) {
    std::vector<std::string> urls;
    for (int i = first; i < first + 50; ++i) urls.push_back(Url(i));
    for (int i = first; i < first + 50; ++i) urls.push_back(Url(i));
    const std::vector<std::string_view> views(urls.begin(), urls.end());
    const std::vector<std::string_view> payloads(urls.size());
    bool queued[100];
    s.PushMany(views, payloads, queued);
    for (int i = 0; i < 100; ++i) {
      ASSERT_EQ(queued[i], i < 50) << "URL " << first + i % 50;
    }
  }
  EXPECT_GT(s.stats().false_positives_caught, 0u);
  for (int i = 0; i < kUrls; ++i) ASSERT_EQ(s.Pop(), Url(i));
  EXPECT_EQ(s.Pop(), std::nullopt);
}

TEST(SieveLosslessTest, MaybeSeenIsExactInLosslessMode) {
  const test::ScopedTempDir work;
  Sieve s(SieveOptions{.expected_urls = 1000,
                       .fp_rate = 0.5,
                       .verify_positives = true,
                       .work_dir = work});
  for (int i = 0; i < 5000; ++i) s.Push(Url(i));
  int filter_says_maybe = 0;
  for (int i = 5000; i < 10'000; ++i) {
    EXPECT_FALSE(s.MaybeSeen(Url(i))) << i;
    filter_says_maybe += s.filter().MayContain(Url(i)) ? 1 : 0;
  }
  EXPECT_GT(filter_says_maybe,
            2500);  // The filter alone is wrong most of the time here...
  for (int i = 0; i < 5000; ++i)
    EXPECT_TRUE(s.MaybeSeen(Url(i))) << i;  // ...never here.
}

TEST(SieveLosslessTest, DefaultModeLosesWhatTheFilterGetsWrong) {
  // The contrast: the same tiny filter without the store drops new URLs.
  Sieve s(SieveOptions{.expected_urls = 10'000, .fp_rate = 0.5});
  int queued = 0;
  for (int i = 0; i < 10'000; ++i) queued += s.Push(Url(i)) ? 1 : 0;
  EXPECT_LT(queued, 9000);
  EXPECT_EQ(s.stats().false_positives_caught, 0u);
}

}  // namespace
}  // namespace sieve
