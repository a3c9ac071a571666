#include "filter/counting_bloom_filter.h"

#include "gtest/gtest.h"
#include "tests/filter/test_keys.h"

namespace sieve {
namespace {

using testing_keys::KeySet;
using testing_keys::Results;

TEST(CountingBloomFilterTest,
     RemovingHalfTheKeysLeavesNoFalseNegativeOnTheOtherHalf) {
  constexpr uint64_t kKeys = 200'000;
  CountingBloomFilter f = CountingBloomFilter::ForCapacity(kKeys, 0.01);
  const KeySet keys(0, kKeys);
  Results fresh(kKeys);
  f.AddMany(keys.span(), fresh.span());
  for (uint64_t i = 0; i < kKeys; i += 2) ASSERT_TRUE(f.Remove(keys[i])) << i;
  for (uint64_t i = 1; i < kKeys; i += 2)
    ASSERT_TRUE(f.MayContain(keys[i])) << i;
  // The removed half is mostly gone (some stay as false positives), and the
  // count follows.
  uint64_t still_reported = 0;
  for (uint64_t i = 0; i < kKeys; i += 2)
    still_reported += f.MayContain(keys[i]) ? 1 : 0;
  EXPECT_LT(still_reported, kKeys / 2 / 50);
  EXPECT_NEAR(f.EstimatedCount(), kKeys / 2.0, 0.02 * kKeys / 2);
}

TEST(CountingBloomFilterTest, ASaturatedCounterIsNeverDecremented) {
  CountingBloomFilter f =
      *CountingBloomFilter::CreateWithSize(1024, 3, {.capacity = 100});
  // Adding one key 20 times drives its counters to 15 and holds them there.
  for (int i = 0; i < 20; ++i) f.Add("hot");
  std::vector<uint64_t> saturated;
  for (uint64_t slot = 0; slot < f.bit_count(); ++slot) {
    const uint32_t value = f.CounterAt(slot);
    EXPECT_TRUE(value == 0 || value == 15) << slot << " holds " << value;
    if (value == 15) saturated.push_back(slot);
  }
  ASSERT_FALSE(saturated.empty());
  // 20 removals later the counters are still saturated and the key still
  // present: a decremented 15 would have reached 0 after 15 removals.
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f.Remove("hot"));
  for (uint64_t slot : saturated) EXPECT_EQ(f.CounterAt(slot), 15u) << slot;
  EXPECT_TRUE(f.MayContain("hot"));
}

TEST(CountingBloomFilterTest, CountersCountUpAndDown) {
  CountingBloomFilter f =
      *CountingBloomFilter::CreateWithSize(1 << 16, 4, {.capacity = 100});
  EXPECT_TRUE(f.Add("a"));
  EXPECT_FALSE(f.Add("a"));  // every counter already nonzero
  EXPECT_TRUE(f.Remove("a"));
  EXPECT_TRUE(f.MayContain("a"));  // added twice, removed once
  EXPECT_TRUE(f.Remove("a"));
  EXPECT_FALSE(f.MayContain("a"));
  EXPECT_EQ(f.set_bit_count(), 0u);
}

TEST(CountingBloomFilterTest, RemovingAnAbsentKeyChangesNothing) {
  CountingBloomFilter f = CountingBloomFilter::ForCapacity(1000, 0.01);
  f.Add("present");
  const std::string before = f.Serialize();
  EXPECT_FALSE(f.Remove("absent"));
  EXPECT_EQ(f.Serialize(), before);
}

TEST(CountingBloomFilterTest, UsesFourBitsPerCounter) {
  CountingBloomFilter f = CountingBloomFilter::ForCapacity(1'000'000, 0.01);
  EXPECT_NEAR(static_cast<double>(f.MemoryBytes()), f.bit_count() / 2.0, 1024);
}

}  // namespace
}  // namespace sieve
