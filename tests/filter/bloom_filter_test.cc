#include "filter/bloom_filter.h"

#include <memory>
#include <string>

#include "filter/blocked_bloom_filter.h"
#include "filter/bloom_math.h"
#include "filter/key_hash.h"
#include "gtest/gtest.h"
#include "tests/filter/test_keys.h"

namespace sieve {
namespace {

TEST(BloomFilterTest, AddReportsFreshOnlyTheFirstTime) {
  BloomFilter f = BloomFilter::ForCapacity(1000, 0.01);
  EXPECT_FALSE(f.MayContain("http://a/"));
  EXPECT_TRUE(f.Add("http://a/"));
  EXPECT_FALSE(f.Add("http://a/"));
  EXPECT_TRUE(f.MayContain("http://a/"));
}

TEST(BloomFilterTest, SerializeRoundTripsThroughTheFactory) {
  BloomFilter f = BloomFilter::ForCapacity(1000, 0.01);
  for (int i = 0; i < 500; ++i) f.Add("k" + std::to_string(i));
  absl::StatusOr<BloomFilter> g = BloomFilter::Deserialize(f.Serialize());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->Serialize(), f.Serialize());
  absl::StatusOr<std::unique_ptr<Filter>> h = DeserializeFilter(f.Serialize());
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ((*h)->kind(), FilterKind::kClassic);
  for (int i = 0; i < 500; ++i)
    EXPECT_TRUE((*h)->MayContain("k" + std::to_string(i)));
}

TEST(BloomFilterTest, CreateFilterRejectsBadOptions) {
  EXPECT_FALSE(CreateFilter({.capacity = 0}).ok());
  EXPECT_FALSE(CreateFilter({.fp_rate = 1.0}).ok());
  EXPECT_TRUE(CreateFilter({.kind = FilterKind::kClassic}).ok());
}

TEST(BloomFilterTest, ParsesAndNamesEveryKind) {
  for (FilterKind kind : AllFilterKinds()) {
    EXPECT_EQ(*ParseFilterKind(FilterKindName(kind)), kind);
    absl::StatusOr<std::unique_ptr<Filter>> f = CreateFilter({.kind = kind});
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ((*f)->kind(), kind);
    // The forgetting kinds take a classic filter's memory; their capacity is
    // what they remember (filter/stable_bloom_filter.h).
    if (!FilterKindForgets(kind)) {
      EXPECT_EQ((*f)->capacity(), 1'000'000u);
    }
    EXPECT_GT((*f)->MemoryBytes(), 1'000'000u);
  }
  absl::StatusOr<FilterKind> bad = ParseFilterKind("cuckoo");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("classic"), absl::string_view::npos);
}

// What the study measures through the interface: m, k and the kind's formula.
TEST(BloomFilterTest, TheInterfaceExposesShapeAndFormulaOfEveryKind) {
  EXPECT_EQ(AllFilterKinds().size(), 6u);
  for (FilterKind kind : AllFilterKinds()) {
    if (FilterKindForgets(kind)) continue;  // stable_bloom_filter_test.cc
    absl::StatusOr<std::unique_ptr<Filter>> f =
        CreateFilter({.kind = kind, .capacity = 10'000, .fp_rate = 0.01});
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_GE((*f)->bit_count(), 10'000u * 9) << FilterKindName(kind);
    EXPECT_GE((*f)->hash_count(), 6u) << FilterKindName(kind);
    for (int i = 0; i < 10'000; ++i) (*f)->Add("k" + std::to_string(i));
    // At capacity each kind's formula gives about the rate it was sized for.
    const double p = (*f)->FormulaFalsePositiveRate(10'000);
    EXPECT_GT(p, 0.001) << FilterKindName(kind);
    EXPECT_LT(p, 0.02) << FilterKindName(kind);
  }
  BloomFilter classic = BloomFilter::ForCapacity(10'000, 0.01);
  absl::StatusOr<std::unique_ptr<Filter>> same = CreateFilter(
      {.kind = FilterKind::kClassic, .capacity = 10'000, .fp_rate = 0.01});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ((*same)->bit_count(), classic.bit_count());
  EXPECT_EQ((*same)->hash_count(), classic.hash_count());
  EXPECT_DOUBLE_EQ((*same)->FormulaFalsePositiveRate(10'000),
                   BloomMath::FalsePositiveRate(classic.bit_count(),
                                                classic.hash_count(), 10'000));
}

TEST(BloomFilterTest, ForCapacityAbortsWithAMessageOnInvalidArguments) {
  EXPECT_DEATH(BloomFilter::ForCapacity(0, 0.01), "capacity must be > 0");
  EXPECT_DEATH(BlockedBloomFilter::ForCapacity(10, 1.5), "fp_rate must be in");
}

TEST(BloomFilterTest, BatchCallsAnswerAsSingleCallsInOrder) {
  BloomFilter single = BloomFilter::ForCapacity(10'000, 0.01);
  BloomFilter batch = BloomFilter::ForCapacity(10'000, 0.01);
  // Keys with repeats inside one batch: the second occurrence must report "not
  // fresh".
  std::vector<std::string> owned;
  for (int i = 0; i < 1000; ++i) owned.push_back("k" + std::to_string(i % 700));
  std::vector<std::string_view> keys(owned.begin(), owned.end());
  testing_keys::Results fresh(keys.size());
  batch.AddMany(keys, fresh.span());
  for (size_t i = 0; i < keys.size(); ++i)
    EXPECT_EQ(fresh.values[i], single.Add(keys[i])) << i;
  EXPECT_EQ(batch.Serialize(), single.Serialize());
  testing_keys::Results out(keys.size());
  batch.MayContainMany(keys, out.span());
  EXPECT_EQ(out.CountTrue(), keys.size());
}

// Filters past 2^32 bits (10^9 keys) must index all of it: the bug Guava,
// libbloom and RedisBloom each had. 2^33 bits of address space; only the pages
// touched become memory.
TEST(BloomFilterTest, IndexesBitsPastTwoToTheThirtyTwo) {
  constexpr uint64_t kBits = uint64_t{1} << 33;
  BloomFilter f =
      *BloomFilter::CreateWithSize(kBits, 7, {.capacity = 800'000'000});
  EXPECT_EQ(f.bit_count(), kBits);
  const testing_keys::KeySet keys(0, 2000);
  for (size_t i = 0; i < keys.size(); ++i) f.Add(keys[i]);
  uint64_t high_bits = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_TRUE(f.MayContain(keys[i]));
    ProbeSequence probes(HashKey(keys[i]));
    for (int j = 0; j < 7; ++j) {
      const uint64_t bit = ReduceToRange(probes.Next(), kBits);
      if (bit < (uint64_t{1} << 32)) continue;
      ++high_bits;
      EXPECT_NE(f.core().words()[bit >> 6] & (uint64_t{1} << (bit & 63)), 0u)
          << bit;
    }
  }
  EXPECT_GT(high_bits, 6000u);  // about half of the 14'000 probes
  EXPECT_NEAR(f.EstimatedCount(), 2000, 5);
  const testing_keys::KeySet absent(testing_keys::kAbsentBase, 2000);
  for (size_t i = 0; i < absent.size(); ++i)
    EXPECT_FALSE(f.MayContain(absent[i]));
}

TEST(BloomFilterTest, BlockedFilterIndexesBlocksPastTwoToTheThirtyTwoBits) {
  BlockedBloomFilter f = *BlockedBloomFilter::CreateWithSize(
      uint64_t{1} << 33, 7, {.capacity = 800'000'000});
  const testing_keys::KeySet keys(0, 2000);
  for (size_t i = 0; i < keys.size(); ++i) f.Add(keys[i]);
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_TRUE(f.MayContain(keys[i]));
  EXPECT_LE(f.set_bit_count(), 2000u * 7);
  EXPECT_GT(f.set_bit_count(),
            2000u * 7 * 99 / 100);  // few collisions in 2^24 blocks
  EXPECT_NEAR(f.EstimatedCount(), 2000, 20);
}

}  // namespace
}  // namespace sieve
