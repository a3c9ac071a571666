#include "study/hashing_schemes.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "filter/bloom_math.h"
#include "gtest/gtest.h"

namespace sieve::study {
namespace {

class SchemeTest : public ::testing::TestWithParam<IndexScheme> {};

TEST_P(SchemeTest, HasNoFalseNegatives) {
  SchemeBloomFilter filter(GetParam(), uint64_t{1} << 20, 7);
  for (int i = 0; i < 50'000; ++i)
    filter.Add(absl::StrCat("https://host", i % 97, "/p/", i));
  for (int i = 0; i < 50'000; ++i) {
    ASSERT_TRUE(
        filter.MayContain(absl::StrCat("https://host", i % 97, "/p/", i)))
        << i;
  }
}

TEST_P(SchemeTest, AddReportsWhetherTheKeyWasNew) {
  SchemeBloomFilter filter(GetParam(), uint64_t{1} << 16, 7);
  EXPECT_TRUE(filter.Add("http://a/"));
  EXPECT_FALSE(filter.Add("http://a/"));
}

INSTANTIATE_TEST_SUITE_P(
    AllSchemes, SchemeTest,
    ::testing::Values(IndexScheme::kEnhancedDouble,
                      IndexScheme::kPlainDoubleMod,
                      IndexScheme::kSeededPolynomial),
    [](const ::testing::TestParamInfo<IndexScheme>& param_info) {
      std::string name(IndexSchemeName(param_info.param));
      std::erase(name, '_');
      return name;
    });

TEST(SchemeBloomFilterTest, OurSchemeMeetsTheFormulaOnUniqueKeys) {
  constexpr uint64_t kBits = uint64_t{1} << 20;
  constexpr int kKeys = 109'000;  // ~9.6 bits per key: 1 %.
  SchemeBloomFilter filter(IndexScheme::kEnhancedDouble, kBits, 7);
  for (int i = 0; i < kKeys; ++i) filter.Add(absl::StrCat("in-", i));
  int positives = 0;
  constexpr int kProbes = 200'000;
  for (int i = 0; i < kProbes; ++i)
    positives += filter.MayContain(absl::StrCat("out-", i));
  const double expected = BloomMath::FalsePositiveRate(kBits, 7, kKeys);
  EXPECT_NEAR(static_cast<double>(positives) / kProbes, expected,
              0.15 * expected);
}

TEST(SchemeBloomFilterTest, PolynomialHashIsJavasStringHashCode) {
  // Java: "abc".hashCode() == 96354; "polygenelubricants".hashCode() ==
  // Integer.MIN_VALUE.
  EXPECT_EQ(PolynomialHash("abc", 31), 96354u);
  EXPECT_EQ(PolynomialHash("polygenelubricants", 31), 0x80000000u);
  EXPECT_EQ(PolynomialHash("ab", 5), 5u * 'a' + 'b');
}

}  // namespace
}  // namespace sieve::study
