// Measured false-positive rates on 10^6 inserted and 10^6 distinct absent keys,
// against the formulas (issue 5 acceptance): classic and counting within ±15 %
// of (1 − e^(−kn/m))^k; blocked and scalable at or under the requested rate
// (+10 % statistical slack).
#include <cmath>
#include <memory>
#include <string>
#include <tuple>

#include "filter/blocked_bloom_filter.h"
#include "filter/bloom_filter.h"
#include "filter/bloom_math.h"
#include "filter/counting_bloom_filter.h"
#include "filter/scalable_bloom_filter.h"
#include "gtest/gtest.h"
#include "tests/filter/test_keys.h"

namespace sieve {
namespace {

using testing_keys::kAbsentBase;
using testing_keys::KeySet;
using testing_keys::Results;

constexpr uint64_t kKeys = 1'000'000;

const KeySet& Inserted() {
  static const KeySet* keys = new KeySet(0, kKeys);
  return *keys;
}
const KeySet& Absent() {
  static const KeySet* keys = new KeySet(kAbsentBase, kKeys);
  return *keys;
}

// Adds the inserted keys (batch call), checks none is then reported absent, and
// returns the measured false-positive rate over the absent keys.
template <typename F>
double MeasureRate(F& filter) {
  Results fresh(kKeys);
  filter.AddMany(Inserted().span(), fresh.span());
  Results present(kKeys);
  filter.MayContainMany(Inserted().span(), present.span());
  EXPECT_EQ(present.CountTrue(), kKeys) << "false negatives";
  Results positive(kKeys);
  filter.MayContainMany(Absent().span(), positive.span());
  return static_cast<double>(positive.CountTrue()) / static_cast<double>(kKeys);
}

class FalsePositiveRateTest
    : public ::testing::TestWithParam<std::tuple<FilterKind, double>> {};

TEST_P(FalsePositiveRateTest, MeasuredRateMatchesTheFormula) {
  const auto [kind, rate] = GetParam();
  const FilterOptions options{.capacity = kKeys, .fp_rate = rate};
  switch (kind) {
    case FilterKind::kClassic: {
      BloomFilter f = *BloomFilter::Create(options);
      const double expected =
          BloomMath::FalsePositiveRate(f.bit_count(), f.hash_count(), kKeys);
      EXPECT_NEAR(MeasureRate(f), expected, 0.15 * expected);
      // Bits per key within 1 % of −ln p / (ln 2)².
      const double formula = -std::log(rate) / (std::log(2.0) * std::log(2.0));
      EXPECT_NEAR(static_cast<double>(f.bit_count()) / kKeys, formula,
                  0.01 * formula);
      break;
    }
    case FilterKind::kCounting: {
      CountingBloomFilter f = *CountingBloomFilter::Create(options);
      const double expected =
          BloomMath::FalsePositiveRate(f.bit_count(), f.hash_count(), kKeys);
      EXPECT_NEAR(MeasureRate(f), expected, 0.15 * expected);
      break;
    }
    case FilterKind::kBlocked: {
      BlockedBloomFilter f = *BlockedBloomFilter::Create(options);
      const double measured = MeasureRate(f);
      EXPECT_LE(measured, rate * 1.10);
      // And the formula it was sized by predicts the measurement (±15 %).
      const double formula = BloomMath::BlockedFalsePositiveRate(
          f.bit_count(), f.hash_count(), kKeys);
      EXPECT_NEAR(measured, formula, 0.15 * formula);
      break;
    }
    case FilterKind::kScalable: {
      // Initial capacity an eighth of the keys: after 8x it has grown to 4
      // stages.
      ScalableBloomFilter f = *ScalableBloomFilter::Create(
          {.capacity = kKeys / 8, .fp_rate = rate});
      EXPECT_LE(MeasureRate(f), rate * 1.10);
      EXPECT_EQ(f.stage_count(), 4u);
      break;
    }
    case FilterKind::kStable:
    case FilterKind::kGenerational:
      GTEST_SKIP() << "forgetting kinds: stable_bloom_filter_test.cc";
  }
}

INSTANTIATE_TEST_SUITE_P(
    KindsAndRates, FalsePositiveRateTest,
    ::testing::Combine(::testing::Values(FilterKind::kClassic,
                                         FilterKind::kBlocked,
                                         FilterKind::kCounting,
                                         FilterKind::kScalable),
                       ::testing::Values(0.1, 0.01, 0.001)),
    [](const auto& param_info) {
      return std::string(FilterKindName(std::get<0>(param_info.param))) +
             "Rate" +
             std::to_string(static_cast<int>(
                 std::lround(1 / std::get<1>(param_info.param))));
    });

TEST(FalsePositiveRateTest, TwentyBitsAndTenHashesMeasurePeiCaosRate) {
  BloomFilter f =
      *BloomFilter::CreateWithSize(20 * kKeys, 10, {.capacity = kKeys});
  // Expected 8.9e-5: ~89 false positives in 10^6; ±35 is over 3.5 standard
  // deviations.
  EXPECT_NEAR(MeasureRate(f), 8.9e-5, 3.5e-5);
}

}  // namespace
}  // namespace sieve
