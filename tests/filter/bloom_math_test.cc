// The sizing numbers of docs/architecture.md ("Formulas and their sources"),
// checked against BloomMath.
#include "filter/bloom_math.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace sieve {
namespace {

constexpr double kLn2Squared = 0.4804530139182014;

TEST(BloomMathTest, OnePercentNeedsNinePointFiveNineBitsAndSevenHashes) {
  absl::StatusOr<BloomParams> p = BloomMath::OptimalParams(1'000'000, 0.01);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_NEAR(static_cast<double>(p->bits) / 1e6, 9.585, 0.001);
  EXPECT_EQ(p->hashes, 7u);
}

TEST(BloomMathTest, BitsPerKeyFollowTheFormulaAtEveryRate) {
  for (double rate : {0.1, 0.01, 0.001, 1e-4, 1e-6}) {
    absl::StatusOr<BloomParams> p = BloomMath::OptimalParams(1'000'000, rate);
    ASSERT_TRUE(p.ok());
    const double expected = -std::log(rate) / kLn2Squared;
    EXPECT_NEAR(static_cast<double>(p->bits) / 1e6, expected, expected * 0.001)
        << rate;
    // And the filter so sized meets the rate (k rounding costs little).
    EXPECT_LT(BloomMath::FalsePositiveRate(p->bits, p->hashes, 1e6),
              rate * 1.05)
        << rate;
  }
}

TEST(BloomMathTest, EachTenfoldDropCostsFourPointSevenNineBitsPerKey) {
  const double at_1 =
      static_cast<double>(BloomMath::OptimalParams(1'000'000, 0.01)->bits);
  const double at_01 =
      static_cast<double>(BloomMath::OptimalParams(1'000'000, 0.001)->bits);
  EXPECT_NEAR((at_01 - at_1) / 1e6, 4.79, 0.01);
}

TEST(BloomMathTest, ABillionUrlsNeedGigabytesNotMegabytes) {
  // docs/architecture.md: 10^9 URLs at 1 % need 1.20 GB, at 0.01 % 2.40 GB
  // (not the 18 MB a seed article claims).
  const double at_1 =
      static_cast<double>(BloomMath::OptimalParams(1'000'000'000, 0.01)->bits);
  const double at_001 =
      static_cast<double>(BloomMath::OptimalParams(1'000'000'000, 1e-4)->bits);
  EXPECT_NEAR(at_1 / 8 / 1e9, 1.20, 0.005);
  EXPECT_NEAR(at_001 / 8 / 1e9, 2.40, 0.005);
}

TEST(BloomMathTest, TwentyBitsAndTenHashesGivePeiCaosRate) {
  EXPECT_NEAR(BloomMath::FalsePositiveRate(20'000'000, 10, 1e6), 8.89e-5,
              0.01e-5);
}

TEST(BloomMathTest, RejectsInvalidSizing) {
  EXPECT_EQ(BloomMath::OptimalParams(0, 0.01).status().code(),
            absl::StatusCode::kInvalidArgument);
  for (double bad :
       {0.0, 1.0, -0.5, 2.0, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_EQ(BloomMath::OptimalParams(1000, bad).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
    EXPECT_FALSE(BloomMath::OptimalBlockedParams(1000, bad).ok()) << bad;
  }
  // 10^18 keys at 1 %: ~10^19 bits, past any address space.
  absl::Status huge =
      BloomMath::OptimalParams(1'000'000'000'000'000'000, 0.01).status();
  EXPECT_EQ(huge.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(huge.message().find("addressable"), absl::string_view::npos)
      << huge;
  EXPECT_FALSE(
      BloomMath::OptimalBlockedParams(1'000'000'000'000'000'000, 0.01).ok());
}

TEST(BloomMathTest,
     BlockedSizingMeetsTheRateWithinTenPointFiveBitsAtOnePercent) {
  absl::StatusOr<BloomParams> p =
      BloomMath::OptimalBlockedParams(1'000'000, 0.01);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->bits % 512, 0u);
  EXPECT_LE(static_cast<double>(p->bits) / 1e6, 10.5);
  EXPECT_LE(BloomMath::BlockedFalsePositiveRate(p->bits, p->hashes, 1e6), 0.01);
  // The blocked filter always needs more bits than the classic one for the same
  // rate.
  EXPECT_GT(p->bits, BloomMath::OptimalParams(1'000'000, 0.01)->bits);
}

TEST(BloomMathTest, BlockedRateExceedsClassicRateAtTheSameSize) {
  const double classic = BloomMath::FalsePositiveRate(10'000'000, 7, 1e6);
  const double blocked =
      BloomMath::BlockedFalsePositiveRate(10'000'000, 7, 1e6);
  EXPECT_GT(blocked, classic);
  EXPECT_LT(blocked, classic * 1.5);
}

TEST(BloomMathTest, CountEstimateInvertsExpectedSetBits) {
  for (double n : {1.0, 1000.0, 500'000.0, 2'000'000.0}) {
    const double bits = BloomMath::ExpectedSetBits(9'585'088, 7, n);
    EXPECT_NEAR(BloomMath::EstimateCount(
                    9'585'088, 7, static_cast<uint64_t>(std::llround(bits))),
                n, n * 1e-3 + 0.2);
  }
  EXPECT_TRUE(std::isinf(BloomMath::EstimateCount(64, 3, 64)));
}

}  // namespace
}  // namespace sieve
