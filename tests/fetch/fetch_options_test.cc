#include "fetch/fetch_options.h"

#include <functional>

#include "fetch/ca_bundle.h"
#include "fetch/fetch_types.h"
#include "fetch/internal/transfer.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

TEST(FetchOptionsTest, DefaultsAreValid) {
  EXPECT_TRUE(ValidateFetchOptions({}).ok());
}

struct BadOption {
  const char* name;
  std::function<void(FetchOptions&)> break_it;
};

class BadOptionTest : public testing::TestWithParam<BadOption> {};

TEST_P(BadOptionTest, IsRejectedByName) {
  FetchOptions options;
  GetParam().break_it(options);
  const absl::Status status = ValidateFetchOptions(options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find(GetParam().name), std::string::npos)
      << status;
}

INSTANTIATE_TEST_SUITE_P(
    Options, BadOptionTest,
    testing::Values(
        BadOption{"max_concurrent_transfers",
                  [](FetchOptions& o) { o.max_concurrent_transfers = 0; }},
        BadOption{
            "connect_timeout",
            [](FetchOptions& o) { o.connect_timeout = absl::ZeroDuration(); }},
        BadOption{"total_timeout",
                  [](FetchOptions& o) { o.total_timeout = -absl::Seconds(1); }},
        BadOption{"low_speed_limit",
                  [](FetchOptions& o) { o.low_speed_limit = -1; }},
        BadOption{"low_speed_time",
                  [](FetchOptions& o) {
                    o.low_speed_time = absl::Milliseconds(500);
                  }},
        BadOption{"max_body_bytes",
                  [](FetchOptions& o) { o.max_body_bytes = 0; }},
        BadOption{"ca_bundle",
                  [](FetchOptions& o) {
                    o.ca_bundle = "/nonexistent/sieve-test-ca.pem";
                  }},
        BadOption{"extra_headers",
                  [](FetchOptions& o) { o.extra_headers = {"NoColon"}; }},
        BadOption{"extra_headers", [](FetchOptions& o) {
                    o.extra_headers = {"A: b\r\nEvil: 1"};
                  }}));

TEST(CaBundleTest, TheSettingWinsThenCurlCaBundleThenSslCertFile) {
  EXPECT_EQ(ChooseCaBundle("/a.pem", "/b.pem", "/c.pem").path, "/a.pem");
  EXPECT_EQ(ChooseCaBundle("/a.pem", "/b.pem", "/c.pem").source, "setting");
  EXPECT_EQ(ChooseCaBundle("", "/b.pem", "/c.pem").path, "/b.pem");
  EXPECT_EQ(ChooseCaBundle("", "/b.pem", "/c.pem").source, "CURL_CA_BUNDLE");
  EXPECT_EQ(ChooseCaBundle("", nullptr, "/c.pem").path, "/c.pem");
  EXPECT_EQ(ChooseCaBundle("", "", "/c.pem").source, "SSL_CERT_FILE");
  EXPECT_EQ(ChooseCaBundle("", nullptr, "").path, "");
  EXPECT_EQ(ChooseCaBundle("", nullptr, nullptr).source, "libcurl default");
}

TEST(FetchErrorNameTest, NamesEveryKind) {
  EXPECT_EQ(FetchErrorName(FetchError::kNone), "none");
  EXPECT_EQ(FetchErrorName(FetchError::kDns), "dns");
  EXPECT_EQ(FetchErrorName(FetchError::kTooLarge), "too_large");
  EXPECT_EQ(FetchErrorName(FetchError::kReset), "reset");
}

class CurlCodeTest
    : public testing::TestWithParam<std::pair<CURLcode, FetchError>> {};

TEST_P(CurlCodeTest, MapsToItsKind) {
  EXPECT_EQ(fetch_internal::ClassifyCurlCode(GetParam().first),
            GetParam().second)
      << curl_easy_strerror(GetParam().first);
}

INSTANTIATE_TEST_SUITE_P(
    Codes, CurlCodeTest,
    testing::Values(
        std::pair{CURLE_OK, FetchError::kNone},
        std::pair{CURLE_URL_MALFORMAT, FetchError::kInvalidUrl},
        std::pair{CURLE_COULDNT_RESOLVE_HOST, FetchError::kDns},
        std::pair{CURLE_COULDNT_CONNECT, FetchError::kConnect},
        std::pair{CURLE_OPERATION_TIMEDOUT, FetchError::kTimeout},
        std::pair{CURLE_SSL_CONNECT_ERROR, FetchError::kTls},
        std::pair{CURLE_PEER_FAILED_VERIFICATION, FetchError::kTls},
        std::pair{CURLE_FILESIZE_EXCEEDED, FetchError::kTooLarge},
        std::pair{CURLE_UNSUPPORTED_PROTOCOL, FetchError::kProtocol},
        std::pair{CURLE_BAD_CONTENT_ENCODING, FetchError::kProtocol},
        std::pair{CURLE_TOO_MANY_REDIRECTS, FetchError::kTooManyRedirects},
        std::pair{CURLE_RECV_ERROR, FetchError::kReset},
        std::pair{CURLE_GOT_NOTHING, FetchError::kReset},
        std::pair{CURLE_PARTIAL_FILE, FetchError::kReset},
        std::pair{CURLE_OUT_OF_MEMORY, FetchError::kOther}));

TEST(HasWebSchemeTest, AcceptsHttpAndHttpsOnly) {
  EXPECT_TRUE(fetch_internal::HasWebScheme("http://a.example/"));
  EXPECT_TRUE(fetch_internal::HasWebScheme("HTTPS://a.example/x"));
  EXPECT_FALSE(fetch_internal::HasWebScheme("file:///etc/passwd"));
  EXPECT_FALSE(fetch_internal::HasWebScheme("gopher://a.example/"));
  EXPECT_FALSE(fetch_internal::HasWebScheme("ftp://a.example/"));
  EXPECT_FALSE(fetch_internal::HasWebScheme("/relative"));
}

}  // namespace
}  // namespace sieve
