#include "fetch/retry_policy.h"

#include <random>
#include <set>

#include "gtest/gtest.h"

namespace sieve {
namespace {

// Sun, 06 Nov 1994 08:49:37 GMT: the example date of RFC 9110 5.6.7.
const absl::Time kRfcDate = absl::FromUnixSeconds(784111777);

FetchResponse WithStatus(int status) {
  FetchResponse response;
  response.status = status;
  return response;
}

FetchResponse WithError(FetchError error) {
  FetchResponse response;
  response.error = error;
  response.error_message = "test";
  return response;
}

class RetryableStatusTest
    : public testing::TestWithParam<std::pair<int, bool>> {};

TEST_P(RetryableStatusTest, RetriesOnlyTransientStatuses) {
  const auto [status, retryable] = GetParam();
  EXPECT_EQ(IsRetryable(WithStatus(status), RetryOptions{}), retryable)
      << status;
}

INSTANTIATE_TEST_SUITE_P(
    Statuses, RetryableStatusTest,
    testing::Values(
        std::pair{200, false}, std::pair{204, false}, std::pair{301, false},
        std::pair{304, false}, std::pair{400, false}, std::pair{403, false},
        std::pair{404, false}, std::pair{410, false}, std::pair{408, true},
        std::pair{429, true}, std::pair{500, true}, std::pair{502, true},
        std::pair{503, true}, std::pair{504, true}, std::pair{599, true}));

class RetryableErrorTest
    : public testing::TestWithParam<std::pair<FetchError, bool>> {};

TEST_P(RetryableErrorTest, RetriesConnectionFailuresOnly) {
  const auto [error, retryable] = GetParam();
  EXPECT_EQ(IsRetryable(WithError(error), RetryOptions{}), retryable)
      << FetchErrorName(error);
}

INSTANTIATE_TEST_SUITE_P(
    Errors, RetryableErrorTest,
    testing::Values(std::pair{FetchError::kConnect, true},
                    std::pair{FetchError::kReset, true},
                    std::pair{FetchError::kTimeout, false},
                    std::pair{FetchError::kDns, false},
                    std::pair{FetchError::kTls, false},
                    std::pair{FetchError::kTooLarge, false},
                    std::pair{FetchError::kProtocol, false},
                    std::pair{FetchError::kInvalidUrl, false},
                    std::pair{FetchError::kOther, false}));

TEST(RetryPolicyTest, RetriesTimeoutsOnlyWhenAsked) {
  RetryOptions options;
  options.retry_timeouts = true;
  EXPECT_TRUE(IsRetryable(WithError(FetchError::kTimeout), options));
}

TEST(RetryPolicyTest, AnErrorWinsOverAStatusThatWouldRetry) {
  FetchResponse response = WithError(FetchError::kTooLarge);
  response.status = 503;
  EXPECT_FALSE(IsRetryable(response, RetryOptions{}));
}

TEST(RetryPolicyTest, StopsAfterMaxRetries) {
  std::mt19937_64 gen(42);
  RetryOptions options;
  options.max_retries = 2;
  const FetchResponse response = WithStatus(503);
  EXPECT_TRUE(DecideRetry(response, 1, options, kRfcDate, gen).retry);
  EXPECT_TRUE(DecideRetry(response, 2, options, kRfcDate, gen).retry);
  EXPECT_FALSE(DecideRetry(response, 3, options, kRfcDate, gen).retry);
  options.max_retries = 0;
  EXPECT_FALSE(DecideRetry(response, 1, options, kRfcDate, gen).retry);
}

TEST(RetryPolicyTest, BackoffDoublesWithEqualJitterUpToTheCap) {
  std::mt19937_64 gen(7);
  RetryOptions options;
  options.max_retries = 100;
  options.initial_backoff = absl::Milliseconds(100);
  options.max_backoff = absl::Milliseconds(1000);
  const FetchResponse response = WithError(FetchError::kConnect);
  // Retry n waits in [b/2, b] with b = min(1000 ms, 100 ms * 2^(n-1)).
  const int expected_cap_ms[] = {100, 200, 400, 800, 1000, 1000, 1000};
  for (int n = 1; n <= 7; ++n) {
    const absl::Duration cap = absl::Milliseconds(expected_cap_ms[n - 1]);
    for (int trial = 0; trial < 50; ++trial) {
      const RetryDecision d = DecideRetry(response, n, options, kRfcDate, gen);
      ASSERT_TRUE(d.retry);
      EXPECT_GE(d.delay, cap / 2) << "retry " << n;
      EXPECT_LE(d.delay, cap) << "retry " << n;
    }
  }
}

TEST(RetryPolicyTest, JitterSpreadsDelays) {
  std::mt19937_64 gen(11);
  std::set<int64_t> delays_us;
  for (int i = 0; i < 20; ++i) {
    delays_us.insert(absl::ToInt64Microseconds(
        DecideRetry(WithStatus(500), 1, RetryOptions{}, kRfcDate, gen).delay));
  }
  EXPECT_GT(delays_us.size(), 15u);
}

TEST(RetryPolicyTest, HugeAttemptCountsDoNotOverflow) {
  std::mt19937_64 gen(3);
  RetryOptions options;
  options.max_retries = 1'000'000;
  const RetryDecision d =
      DecideRetry(WithStatus(500), 999'999, options, kRfcDate, gen);
  EXPECT_TRUE(d.retry);
  EXPECT_LE(d.delay, options.max_backoff);
  EXPECT_GE(d.delay, options.max_backoff / 2);
}

TEST(RetryPolicyTest, RetryAfterSecondsReplacesTheBackoff) {
  std::mt19937_64 gen(5);
  FetchResponse response = WithStatus(429);
  response.headers.retry_after = "1";
  const RetryDecision d =
      DecideRetry(response, 1, RetryOptions{}, kRfcDate, gen);
  EXPECT_TRUE(d.retry);
  EXPECT_EQ(d.delay, absl::Seconds(1));
}

TEST(RetryPolicyTest, RetryAfterBeyondTheLimitIsNotRetried) {
  std::mt19937_64 gen(5);
  RetryOptions options;
  options.max_retry_after = absl::Seconds(60);
  FetchResponse response = WithStatus(503);
  response.headers.retry_after = "61";
  EXPECT_FALSE(DecideRetry(response, 1, options, kRfcDate, gen).retry);
  response.headers.retry_after = "60";
  EXPECT_TRUE(DecideRetry(response, 1, options, kRfcDate, gen).retry);
}

TEST(RetryPolicyTest, UnparsableRetryAfterFallsBackToBackoff) {
  std::mt19937_64 gen(5);
  FetchResponse response = WithStatus(503);
  response.headers.retry_after = "soon";
  const RetryDecision d =
      DecideRetry(response, 1, RetryOptions{}, kRfcDate, gen);
  EXPECT_TRUE(d.retry);
  EXPECT_LE(d.delay, RetryOptions{}.initial_backoff);
}

TEST(RetryPolicyTest, RetryAfterOnANonRetryableStatusIsIgnored) {
  std::mt19937_64 gen(5);
  FetchResponse response = WithStatus(404);
  response.headers.retry_after = "1";
  EXPECT_FALSE(DecideRetry(response, 1, RetryOptions{}, kRfcDate, gen).retry);
}

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
