// OnCapacityExceeded: once when the estimated count first passes capacity, once
// more at 2x.
#include <string>
#include <vector>

#include "filter/bloom_filter.h"
#include "filter/filter.h"
#include "gtest/gtest.h"
#include "tests/filter/test_keys.h"

namespace sieve {
namespace {

using testing_keys::KeySet;

class CapacityCallbackTest : public ::testing::TestWithParam<FilterKind> {};

TEST_P(CapacityCallbackTest, FiresOnceAtCapacityAndOnceMoreAtTwice) {
  constexpr uint64_t kCapacity = 20'000;
  std::unique_ptr<Filter> f = *CreateFilter(
      {.kind = GetParam(), .capacity = kCapacity, .fp_rate = 0.01});
  std::vector<CapacityEvent> events;
  std::vector<uint64_t> added_at_event;
  uint64_t added = 0;
  f->OnCapacityExceeded([&](const CapacityEvent& e) {
    events.push_back(e);
    added_at_event.push_back(added);
  });
  const KeySet keys(
      0, 3 * kCapacity + kCapacity / 2);  // up to 3.5x: past 2x, short of 4x
  for (size_t i = 0; i < keys.size(); ++i) {
    ++added;
    f->Add(keys[i]);
    if (added == kCapacity - kCapacity / 50) {
      EXPECT_TRUE(events.empty()) << "fired early";
    }
  }
  ASSERT_EQ(events.size(), 2u);
  EXPECT_GT(events[0].estimated_count, kCapacity);
  EXPECT_NEAR(static_cast<double>(added_at_event[0]), kCapacity,
              0.02 * kCapacity);
  EXPECT_EQ(events[0].capacity, kCapacity);
  // The rate at that fill: about the 1 % designed for (the scalable kind's
  // first stage is built tighter, at 0.15 %, so its compound rate stays under 1
  // %).
  EXPECT_GT(events[0].estimated_fp_rate, 0.001);
  EXPECT_LT(events[0].estimated_fp_rate, 0.015);
  EXPECT_GT(events[1].estimated_count, 2 * kCapacity);
  EXPECT_NEAR(static_cast<double>(added_at_event[1]), 2 * kCapacity,
              0.04 * kCapacity);
  EXPECT_GT(events[1].estimated_fp_rate, events[0].estimated_fp_rate);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, CapacityCallbackTest,
                         ::testing::Values(FilterKind::kClassic,
                                           FilterKind::kBlocked,
                                           FilterKind::kCounting,
                                           FilterKind::kScalable),
                         [](const auto& param_info) {
                           return std::string(FilterKindName(param_info.param));
                         });

TEST(CapacityCallbackTest, InstallingOnAnOverfullFilterReportsOnTheNextAdd) {
  BloomFilter f = BloomFilter::ForCapacity(1000, 0.01);
  const KeySet keys(0, 1500);
  for (size_t i = 0; i < keys.size(); ++i) f.Add(keys[i]);
  int calls = 0;
  f.OnCapacityExceeded([&](const CapacityEvent&) { ++calls; });
  f.Add("one more");
  f.Add("and another");
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace sieve
