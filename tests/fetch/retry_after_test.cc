#include "fetch/retry_policy.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

// Sun, 06 Nov 1994 08:49:37 GMT: the example date of RFC 9110 5.6.7.
const absl::Time kRfcDate = absl::FromUnixSeconds(784111777);

// RFC 9110 10.2.3: Retry-After = HTTP-date / delay-seconds.
TEST(ParseRetryAfterTest, ReadsDelaySeconds) {
  EXPECT_EQ(ParseRetryAfter("120", kRfcDate), absl::Seconds(120));
  EXPECT_EQ(ParseRetryAfter(" 0 ", kRfcDate), absl::ZeroDuration());
  EXPECT_EQ(ParseRetryAfter("99999999999999999999999", kRfcDate),
            absl::Seconds(UINT32_MAX));
}

TEST(ParseRetryAfterTest, RejectsSignsAndGarbage) {
  EXPECT_EQ(ParseRetryAfter("", kRfcDate), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("-5", kRfcDate), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("+5", kRfcDate), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("1.5", kRfcDate), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("tomorrow", kRfcDate), std::nullopt);
}

// RFC 9110 5.6.7: recipients accept IMF-fixdate, RFC 850 and asctime forms.
class RetryAfterDateTest : public testing::TestWithParam<const char*> {};

TEST_P(RetryAfterDateTest, ReadsEveryHttpDateForm) {
  EXPECT_EQ(ParseRetryAfter(GetParam(), kRfcDate - absl::Seconds(30)),
            absl::Seconds(30));
  EXPECT_EQ(ParseRetryAfter(GetParam(), kRfcDate + absl::Hours(1)),
            absl::ZeroDuration())
      << "a date in the past means: now";
}

INSTANTIATE_TEST_SUITE_P(Forms, RetryAfterDateTest,
                         testing::Values("Sun, 06 Nov 1994 08:49:37 GMT",
                                         "Sunday, 06-Nov-94 08:49:37 GMT",
                                         "Sun Nov  6 08:49:37 1994"));

}  // namespace
}  // namespace sieve
