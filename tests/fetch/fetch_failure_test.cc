// fetch/fetch_failure.h: the closed set of error codes and FailureOf.
#include "fetch/fetch_failure.h"

#include <set>
#include <string>
#include <type_traits>

#include "gtest/gtest.h"

namespace sieve {
namespace {

TEST(FailureCodeTest, NamesAreUniqueAndRoundTrip) {
  std::set<std::string> names;
  for (size_t i = 0; i < kFailureCodeCount; ++i) {
    const auto code = static_cast<FailureCode>(i);
    const std::string name(FailureCodeName(code));
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(FailureCodeFromName(name), code);
    EXPECT_FALSE(InfoOf(code).cause.empty()) << name;
  }
  EXPECT_EQ(FailureCodeFromName("http_404"), std::nullopt);
}

// One closed set: the Fetcher's error is the records' code, named once.
TEST(FailureCodeTest, FetchErrorIsTheFailureCodeNamedOnce) {
  static_assert(std::is_same_v<FetchError, FailureCode>);
  for (size_t i = 0; i < kFailureCodeCount; ++i) {
    const auto code = static_cast<FailureCode>(i);
    EXPECT_EQ(std::string(FetchErrorName(code)), FailureCodeName(code));
  }
  EXPECT_EQ(FetchErrorName(FetchError::kNone), "none");
  EXPECT_EQ(FailureCodeFromName("none"), std::nullopt);  // Not a failure.
  FetchResponse reset;
  reset.error = FetchError::kReset;
  EXPECT_EQ(FailureOf(reset)->code, FailureCode::kReset);
}

TEST(FailureCodeTest, OnlyDnsConnectAndTlsAreConnectionLevel) {
  for (size_t i = 0; i < kFailureCodeCount; ++i) {
    const auto code = static_cast<FailureCode>(i);
    const bool expected = code == FailureCode::kDns ||
                          code == FailureCode::kConnect ||
                          code == FailureCode::kTls;
    EXPECT_EQ(InfoOf(code).connection_level, expected) << FailureCodeName(code);
  }
}

TEST(FailureOfTest, NamesTransportErrorsAndStatusesQuotingTheCause) {
  FetchResponse ok;
  ok.status = 200;
  EXPECT_EQ(FailureOf(ok), std::nullopt);
  ok.status = 301;
  EXPECT_EQ(FailureOf(ok), std::nullopt);

  FetchResponse tls;
  tls.error = FetchError::kTls;
  tls.error_message =
      "SSL certificate problem: unable to get local issuer certificate";
  std::optional<Failure> f = FailureOf(tls);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->code, FailureCode::kTls);
  EXPECT_EQ(f->detail, tls.error_message);

  FetchResponse busy;
  busy.status = 503;
  busy.headers.retry_after = "2";
  f = FailureOf(busy);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->code, FailureCode::kThrottled);
  EXPECT_EQ(f->detail, "HTTP 503, Retry-After: 2");

  FetchResponse missing;
  missing.status = 404;
  EXPECT_EQ(FailureOf(missing)->code, FailureCode::kHttp4xx);
  FetchResponse broken;
  broken.status = 500;
  EXPECT_EQ(FailureOf(broken)->code, FailureCode::kHttp5xx);
  FetchResponse loop;
  loop.error = FetchError::kTooManyRedirects;
  EXPECT_EQ(FailureOf(loop)->code, FailureCode::kTooManyRedirects);
}

}  // namespace
}  // namespace sieve
