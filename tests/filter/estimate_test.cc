// Count, union and intersection estimates (Swamidass & Baldi 2007) and the
// bitwise set operations, for every kind that has them.
#include <cmath>
#include <string>

#include "filter/blocked_bloom_filter.h"
#include "filter/bloom_filter.h"
#include "filter/counting_bloom_filter.h"
#include "filter/filter.h"
#include "filter/scalable_bloom_filter.h"
#include "gtest/gtest.h"
#include "tests/filter/test_keys.h"

namespace sieve {
namespace {

using testing_keys::KeySet;
using testing_keys::Results;

class EstimatedCountTest : public ::testing::TestWithParam<FilterKind> {};

TEST_P(EstimatedCountTest, StaysWithinTwoPercentFromOnePercentToFullCapacity) {
  constexpr uint64_t kCapacity = 1'000'000;
  absl::StatusOr<std::unique_ptr<Filter>> f = CreateFilter(
      {.kind = GetParam(), .capacity = kCapacity, .fp_rate = 0.01});
  ASSERT_TRUE(f.ok()) << f.status();
  const KeySet keys(0, kCapacity);
  Results fresh(kCapacity);
  uint64_t added = 0;
  for (double fraction : {0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0}) {
    const uint64_t target = static_cast<uint64_t>(fraction * kCapacity);
    (*f)->AddMany(keys.span(added, target - added),
                  fresh.span().subspan(0, target - added));
    added = target;
    EXPECT_NEAR((*f)->EstimatedCount(), static_cast<double>(added),
                0.02 * added)
        << "at " << fraction * 100 << " % of capacity";
  }
  // At capacity the rate at the current fill is about the rate asked for (the
  // scalable kind's first stage is built for p·(1 − r) = 0.15 %, so its
  // compound rate stays under 1 %).
  const double expected_rate =
      GetParam() == FilterKind::kScalable ? 0.0015 : 0.01;
  EXPECT_NEAR((*f)->EstimatedFalsePositiveRate(), expected_rate,
              0.4 * expected_rate);
  EXPECT_GT((*f)->FillRatio(), 0.3);
  EXPECT_LT((*f)->FillRatio(), 0.7);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, EstimatedCountTest,
                         ::testing::Values(FilterKind::kClassic,
                                           FilterKind::kBlocked,
                                           FilterKind::kCounting,
                                           FilterKind::kScalable),
                         [](const auto& param_info) {
                           return std::string(FilterKindName(param_info.param));
                         });

// Typed over the three bit-array kinds.
template <typename F>
class SetOperationTest : public ::testing::Test {};
using BitArrayKinds =
    ::testing::Types<BloomFilter, BlockedBloomFilter, CountingBloomFilter>;
TYPED_TEST_SUITE(SetOperationTest, BitArrayKinds);

constexpr uint64_t kSetSize = 100'000;
const FilterOptions kSetOptions{.capacity = 2 * kSetSize, .fp_rate = 0.01};

template <typename F>
void AddAll(F& filter, const KeySet& keys) {
  Results fresh(keys.size());
  filter.AddMany(keys.span(), fresh.span());
}

TYPED_TEST(SetOperationTest, UnionIsBitIdenticalToTheFilterOfTheUnion) {
  // A = [0, 10^5), B = [5·10^4, 1.5·10^5): overlapping, except for the counting
  // kind, whose union sums counters (the multiset union), so it takes disjoint
  // sets.
  const bool counting = std::is_same_v<TypeParam, CountingBloomFilter>;
  const uint64_t b_first = counting ? kSetSize : kSetSize / 2;
  const KeySet a_keys(0, kSetSize), b_keys(b_first, kSetSize);
  const KeySet union_keys(0, b_first + kSetSize);
  TypeParam a = *TypeParam::Create(kSetOptions);
  TypeParam b = *TypeParam::Create(kSetOptions);
  TypeParam both = *TypeParam::Create(kSetOptions);
  AddAll(a, a_keys);
  AddAll(b, b_keys);
  AddAll(both, union_keys);
  ASSERT_TRUE(a.UnionWith(b).ok());
  EXPECT_TRUE(a.Serialize() == both.Serialize());
  EXPECT_EQ(a.set_bit_count(), both.set_bit_count());
}

TYPED_TEST(SetOperationTest, IntersectionEstimateIsWithinTenPercent) {
  // |A| = |B| = 10^5, |A ∩ B| = 5·10^4, |A ∪ B| = 1.5·10^5.
  const KeySet a_keys(0, kSetSize), b_keys(kSetSize / 2, kSetSize);
  TypeParam a = *TypeParam::Create(kSetOptions);
  TypeParam b = *TypeParam::Create(kSetOptions);
  AddAll(a, a_keys);
  AddAll(b, b_keys);
  absl::StatusOr<double> union_count = EstimateUnionCount(a, b);
  absl::StatusOr<double> common = EstimateIntersectionCount(a, b);
  ASSERT_TRUE(union_count.ok() && common.ok());
  EXPECT_NEAR(*union_count, 1.5 * kSetSize, 0.02 * 1.5 * kSetSize);
  EXPECT_NEAR(*common, kSetSize / 2.0, 0.10 * kSetSize / 2.0);
  // Disjoint sets estimate to (about) nothing in common.
  TypeParam c = *TypeParam::Create(kSetOptions);
  AddAll(c, KeySet(10 * kSetSize, kSetSize));
  EXPECT_LT(*EstimateIntersectionCount(a, c), 0.02 * kSetSize);
}

TYPED_TEST(SetOperationTest, IntersectionKeepsEveryCommonKey) {
  const KeySet a_keys(0, kSetSize), b_keys(kSetSize / 2, kSetSize);
  TypeParam a = *TypeParam::Create(kSetOptions);
  TypeParam b = *TypeParam::Create(kSetOptions);
  AddAll(a, a_keys);
  AddAll(b, b_keys);
  ASSERT_TRUE(a.IntersectWith(b).ok());
  for (uint64_t i = kSetSize / 2; i < kSetSize; ++i)
    ASSERT_TRUE(a.MayContain(a_keys[i])) << i;
  // The AND keeps bits that A-only and B-only keys happen to share, so the
  // intersected filter's own count runs high (here ~15 %);
  // EstimateIntersectionCount is the estimate to use.
  EXPECT_GT(a.EstimatedCount(), 0.98 * kSetSize / 2);
  EXPECT_LT(a.EstimatedCount(), 1.3 * kSetSize / 2);
}

TYPED_TEST(SetOperationTest, MismatchedFiltersAreAnErrorNotACrash) {
  TypeParam a = *TypeParam::Create(kSetOptions);
  TypeParam bigger =
      *TypeParam::Create({.capacity = 4 * kSetSize, .fp_rate = 0.01});
  TypeParam other_seed = *TypeParam::Create(
      {.capacity = 2 * kSetSize, .fp_rate = 0.01, .seed = 7});
  TypeParam other_k = *TypeParam::CreateWithSize(
      a.bit_count(), a.hash_count() + 1, kSetOptions);
  for (const TypeParam* other : {&bigger, &other_seed, &other_k}) {
    EXPECT_EQ(a.UnionWith(*other).code(),
              absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(a.IntersectWith(*other).code(),
              absl::StatusCode::kFailedPrecondition);
    EXPECT_FALSE(EstimateUnionCount(a, *other).ok());
    EXPECT_FALSE(EstimateIntersectionCount(a, *other).ok());
  }
}

TEST(ScalableSetOperationTest, UnionOfSameShapeFiltersHoldsBothSets) {
  ScalableBloomFilter a = ScalableBloomFilter::ForCapacity(10'000, 0.01);
  ScalableBloomFilter b = ScalableBloomFilter::ForCapacity(10'000, 0.01);
  const KeySet a_keys(0, 5'000), b_keys(5'000, 5'000);
  AddAll(a, a_keys);
  AddAll(b, b_keys);
  ASSERT_TRUE(a.UnionWith(b).ok());
  for (size_t i = 0; i < b_keys.size(); ++i)
    ASSERT_TRUE(a.MayContain(b_keys[i]));
  EXPECT_NEAR(a.EstimatedCount(), 10'000, 200);
  ScalableBloomFilter grown = ScalableBloomFilter::ForCapacity(10'000, 0.01);
  AddAll(grown, KeySet(0, 30'000));
  EXPECT_EQ(a.UnionWith(grown).code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace sieve
