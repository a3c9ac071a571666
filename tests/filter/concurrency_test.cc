// Several threads adding disjoint key sets to a concurrent filter: no false
// negatives, counts right, capacity reported once. Labelled `tsan`: the tsan
// preset runs it under ThreadSanitizer.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "filter/counting_bloom_filter.h"
#include "filter/filter.h"
#include "gtest/gtest.h"
#include "tests/filter/test_keys.h"

namespace sieve {
namespace {

using testing_keys::KeySet;
using testing_keys::Results;

constexpr int kThreads = 4;
constexpr uint64_t kKeysPerThread = 20'000;

class ConcurrentFilterTest : public ::testing::TestWithParam<FilterKind> {};

TEST_P(ConcurrentFilterTest, ThreadsAddingDisjointKeysLoseNone) {
  std::unique_ptr<Filter> f =
      *CreateFilter({.kind = GetParam(),
                     .capacity = kThreads * kKeysPerThread,
                     .fp_rate = 0.01,
                     .concurrent = true});
  std::atomic<int> capacity_events{0};
  f->OnCapacityExceeded(
      [&](const CapacityEvent&) { capacity_events.fetch_add(1); });
  std::vector<std::unique_ptr<KeySet>> keys;
  for (int t = 0; t < kThreads; ++t) {
    keys.push_back(
        std::make_unique<KeySet>(t * kKeysPerThread, kKeysPerThread));
  }
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const KeySet& mine = *keys[t];
      // Half one at a time, half in batches.
      for (uint64_t i = 0; i < kKeysPerThread / 2; ++i) f->Add(mine[i]);
      Results fresh(kKeysPerThread / 2);
      f->AddMany(mine.span(kKeysPerThread / 2, kKeysPerThread / 2),
                 fresh.span());
      // Everything this thread added is visible to it at once.
      for (uint64_t i = 0; i < kKeysPerThread; ++i)
        ASSERT_TRUE(f->MayContain(mine[i]));
    });
  }
  // A reader racing the writers (its answers can go either way; it must not
  // crash or race).
  std::thread reader([&] {
    const KeySet probe(0, 1000);
    while (!done.load()) {
      for (size_t i = 0; i < probe.size(); ++i) f->MayContain(probe[i]);
      f->EstimatedCount();
    }
  });
  for (std::thread& thread : threads) thread.join();
  done.store(true);
  reader.join();
  for (int t = 0; t < kThreads; ++t) {
    Results present(kKeysPerThread);
    f->MayContainMany(keys[t]->span(), present.span());
    EXPECT_EQ(present.CountTrue(), kKeysPerThread)
        << "false negatives from thread " << t;
  }
  const double total = kThreads * kKeysPerThread;
  EXPECT_NEAR(f->EstimatedCount(), total, 0.02 * total);
  // Capacity was crossed near the very end (estimates straddle it): at most
  // once.
  EXPECT_LE(capacity_events.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, ConcurrentFilterTest,
                         ::testing::Values(FilterKind::kClassic,
                                           FilterKind::kBlocked,
                                           FilterKind::kCounting,
                                           FilterKind::kScalable),
                         [](const auto& param_info) {
                           return std::string(FilterKindName(param_info.param));
                         });

TEST(ConcurrentFilterTest, CapacityCrossingIsReportedExactlyOnceAcrossThreads) {
  std::unique_ptr<Filter> f = *CreateFilter({.kind = FilterKind::kClassic,
                                             .capacity = 40'000,
                                             .fp_rate = 0.01,
                                             .concurrent = true});
  std::atomic<int> events{0};
  f->OnCapacityExceeded([&](const CapacityEvent&) { events.fetch_add(1); });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const KeySet mine(t * kKeysPerThread,
                        kKeysPerThread);  // 80'000 in all: past 1x, not 2x
      for (size_t i = 0; i < mine.size(); ++i) f->Add(mine[i]);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(events.load(), 1);
}

TEST(ConcurrentFilterTest, CountingFilterRemovesConcurrently) {
  CountingBloomFilter f =
      *CountingBloomFilter::Create({.capacity = kThreads * kKeysPerThread,
                                    .fp_rate = 0.01,
                                    .concurrent = true});
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const KeySet mine(t * kKeysPerThread, kKeysPerThread);
      for (size_t i = 0; i < mine.size(); ++i) f.Add(mine[i]);
      for (size_t i = 0; i < mine.size(); i += 2) f.Remove(mine[i]);
    });
  }
  for (std::thread& thread : threads) thread.join();
  const KeySet all(0, kThreads * kKeysPerThread);
  for (size_t i = 1; i < all.size(); i += 2)
    ASSERT_TRUE(f.MayContain(all[i])) << i;
  EXPECT_NEAR(f.EstimatedCount(), all.size() / 2.0, 0.02 * all.size() / 2);
}

}  // namespace
}  // namespace sieve
