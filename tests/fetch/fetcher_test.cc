// Fetcher against a well-behaved cpp-httplib server: statuses, headers,
// redirects, limits.
#include "fetch/fetcher.h"

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using fetch_test::FetchOne;
using fetch_test::HttpServer;
using fetch_test::TestOptions;
using testing::HasSubstr;

class FetcherTest : public testing::Test {
 protected:
  void SetUp() override {
    httplib::Server& s = server_.server();
    s.Get("/ok", [](const httplib::Request&, httplib::Response& res) {
      res.set_header("X-Robots-Tag", "noindex");
      res.set_header("X-Robots-Tag", "nofollow");
      res.set_content("hello", "text/plain; charset=utf-8");
    });
    s.Get("/status/(\\d+)",
          [](const httplib::Request& req, httplib::Response& res) {
            res.status = std::stoi(req.matches[1]);
            // Not text/*, which cpp-httplib would gzip, changing
            // Content-Length.
            res.set_content("status body", "application/octet-stream");
          });
    s.Get("/echo-headers",
          [](const httplib::Request& req, httplib::Response& res) {
            std::string out;
            for (const auto& [name, value] : req.headers)
              absl::StrAppend(&out, name, ": ", value, "\n");
            res.set_content(out, "text/plain");
          });
    s.Get("/validated",
          [](const httplib::Request& req, httplib::Response& res) {
            res.set_header("ETag", "\"v7\"");
            res.set_header("Last-Modified", "Tue, 14 Nov 2023 22:13:20 GMT");
            if (req.get_header_value("If-None-Match") == "\"v7\"") {
              res.status = 304;
              return;
            }
            res.set_content("version 7", "application/octet-stream");
          });
    s.Get("/big", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(100'000, 'x'), "application/octet-stream");
    });
    s.Get("/exact", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(1000, 'y'), "application/octet-stream");
    });
    server_.Start();
  }

  std::unique_ptr<Fetcher> MakeFetcher(FetchOptions options = TestOptions()) {
    absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
        Fetcher::Create(std::move(options));
    EXPECT_TRUE(fetcher.ok()) << fetcher.status();
    return fetcher.ok() ? std::move(*fetcher) : nullptr;
  }

  HttpServer server_;
};

TEST_F(FetcherTest, Returns200WithBodyHeadersAndTimings) {
  std::unique_ptr<Fetcher> fetcher = MakeFetcher();
  const FetchResponse r =
      FetchOne(*fetcher, {.id = 42, .url = server_.Url("/ok")});
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.id, 42u);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello");
  EXPECT_FALSE(r.truncated);
  EXPECT_EQ(r.url, server_.Url("/ok"));
  EXPECT_EQ(r.effective_url, server_.Url("/ok"));
  EXPECT_EQ(r.headers.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(r.headers.x_robots_tag, "noindex, nofollow");
  EXPECT_TRUE(r.redirect_url.empty());
  EXPECT_GT(r.wire_bytes, 0);
  EXPECT_GT(r.timings.total, absl::ZeroDuration());
  EXPECT_LE(r.timings.dns, r.timings.connect);
  EXPECT_LE(r.timings.connect, r.timings.first_byte);
  EXPECT_LE(r.timings.first_byte, r.timings.total);
  EXPECT_EQ(fetcher->in_flight(), 0u);
}

class StatusTest : public FetcherTest,
                   public testing::WithParamInterface<int> {};

TEST_P(StatusTest, ReportsTheStatusWithItsBody) {
  std::unique_ptr<Fetcher> fetcher = MakeFetcher();
  const FetchResponse r = FetchOne(
      *fetcher,
      {.id = 1, .url = server_.Url(absl::StrCat("/status/", GetParam()))});
  ASSERT_TRUE(r.ok())
      << r.error_message;  // An HTTP error status is not a transfer error.
  EXPECT_EQ(r.status, GetParam());
  EXPECT_EQ(r.body, "status body");
  EXPECT_EQ(r.headers.content_length, 11);
}

INSTANTIATE_TEST_SUITE_P(Statuses, StatusTest,
                         testing::Values(200, 404, 410, 500, 503));

// Retries are the Frontier's: a 500 is requested once and comes back as is.
TEST_F(FetcherTest, RequestsA500OnceAndReturnsIt) {
  std::atomic<int> hits{0};
  server_.server().Get(
      "/flaky500", [&hits](const httplib::Request&, httplib::Response& res) {
        ++hits;
        res.status = 500;
      });
  std::unique_ptr<Fetcher> fetcher = MakeFetcher();
  const FetchResponse r =
      FetchOne(*fetcher, {.id = 1, .url = server_.Url("/flaky500")});
  EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(hits, 1);
}

TEST_F(FetcherTest, SendsUserAgentAndExtraHeaders) {
  FetchOptions options = TestOptions();
  options.user_agent = "SieveTest/1.0";
  options.extra_headers = {"Accept-Language: en", "X-Probe: 7"};
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  const FetchResponse r =
      FetchOne(*fetcher, {.id = 1, .url = server_.Url("/echo-headers")});
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_THAT(r.body, HasSubstr("User-Agent: SieveTest/1.0\n"));
  EXPECT_THAT(r.body, HasSubstr("Accept-Language: en\n"));
  EXPECT_THAT(r.body, HasSubstr("X-Probe: 7\n"));
  EXPECT_THAT(r.body, HasSubstr("Accept-Encoding: "));
}

TEST_F(FetcherTest, ExposesValidatorsAndSendsThemBackAsAConditionalRequest) {
  FetchOptions options = TestOptions();
  options.extra_headers = {"X-Probe: 7"};
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  const FetchResponse first =
      FetchOne(*fetcher, {.id = 1, .url = server_.Url("/validated")});
  ASSERT_TRUE(first.ok()) << first.error_message;
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.headers.etag, "\"v7\"");
  EXPECT_EQ(first.headers.last_modified, "Tue, 14 Nov 2023 22:13:20 GMT");
  const FetchResponse again =
      FetchOne(*fetcher, {.id = 2,
                          .url = server_.Url("/validated"),
                          .if_none_match = first.headers.etag,
                          .if_modified_since = first.headers.last_modified});
  ASSERT_TRUE(again.ok()) << again.error_message;
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  // Both validators go with the Fetcher's own headers; none on a plain one.
  const FetchResponse echo = FetchOne(
      *fetcher, {.id = 3,
                 .url = server_.Url("/echo-headers"),
                 .if_none_match = "\"v7\"",
                 .if_modified_since = "Tue, 14 Nov 2023 22:13:20 GMT"});
  EXPECT_THAT(echo.body, HasSubstr("If-None-Match: \"v7\"\n"));
  EXPECT_THAT(echo.body,
              HasSubstr("If-Modified-Since: Tue, 14 Nov 2023 22:13:20 GMT\n"));
  EXPECT_THAT(echo.body, HasSubstr("X-Probe: 7\n"));
  const FetchResponse plain =
      FetchOne(*fetcher, {.id = 4, .url = server_.Url("/echo-headers")});
  EXPECT_THAT(plain.body, testing::Not(HasSubstr("If-None-Match")));
}

TEST_F(FetcherTest, TruncatesABodyWhoseContentLengthExceedsTheLimit) {
  FetchOptions options = TestOptions();
  options.max_body_bytes = 10'000;
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  const FetchResponse r =
      FetchOne(*fetcher, {.id = 1, .url = server_.Url("/big")});
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers.content_length, 100'000);
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.body, std::string(10'000, 'x'));
}

TEST_F(FetcherTest,
       SkipOversizedRefusesABodyWhoseContentLengthExceedsTheLimit) {
  FetchOptions options = TestOptions();
  options.max_body_bytes = 10'000;
  options.skip_oversized = true;
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  const FetchResponse r =
      FetchOne(*fetcher, {.id = 1, .url = server_.Url("/big")});
  EXPECT_EQ(r.error, FetchError::kTooLarge) << r.error_message;
  EXPECT_TRUE(r.body.empty());
}

TEST_F(FetcherTest, KeepsABodyExactlyAtTheLimitWhole) {
  FetchOptions options = TestOptions();
  options.max_body_bytes = 1000;
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  const FetchResponse r =
      FetchOne(*fetcher, {.id = 1, .url = server_.Url("/exact")});
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.body.size(), 1000u);
  EXPECT_FALSE(r.truncated);
}

TEST_F(FetcherTest, RefusesSchemesOtherThanHttpAndHttps) {
  std::unique_ptr<Fetcher> fetcher = MakeFetcher();
  for (const char* url :
       {"file:///etc/passwd", "gopher://127.0.0.1/1", "ftp://127.0.0.1/"}) {
    const FetchResponse r = FetchOne(*fetcher, {.id = 1, .url = url});
    EXPECT_EQ(r.error, FetchError::kProtocol) << url << ": " << r.error_message;
    EXPECT_TRUE(r.body.empty()) << url;
  }
}

TEST_F(FetcherTest, ReportsAMalformedUrl) {
  std::unique_ptr<Fetcher> fetcher = MakeFetcher();
  const FetchResponse r = FetchOne(*fetcher, {.id = 1, .url = "http://[::1"});
  EXPECT_EQ(r.error, FetchError::kInvalidUrl) << r.error_message;
  EXPECT_FALSE(r.error_message.empty());
}

// A port nothing listens on: bind one, note it, close it.
int ClosedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  bind(fd, reinterpret_cast<sockaddr*>(&address), length);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

TEST_F(FetcherTest, ReportsARefusedConnection) {
  std::unique_ptr<Fetcher> fetcher = MakeFetcher();
  const FetchResponse r = FetchOne(
      *fetcher,
      {.id = 9, .url = absl::StrCat("http://127.0.0.1:", ClosedPort(), "/")});
  EXPECT_EQ(r.error, FetchError::kConnect) << r.error_message;
  EXPECT_EQ(r.status, 0);
}

TEST_F(FetcherTest, ReportsTlsFailureAgainstAPlainHttpServer) {
  std::unique_ptr<Fetcher> fetcher = MakeFetcher();
  const FetchResponse r = FetchOne(
      *fetcher,
      {.id = 1,
       .url = absl::StrCat("https://127.0.0.1:", server_.port(), "/ok")});
  EXPECT_EQ(r.error, FetchError::kTls) << r.error_message;
}

// A 429 comes back at once with its Retry-After, for the Frontier to honour.
TEST_F(FetcherTest, ReturnsA429AtOnceWithItsRetryAfter) {
  std::atomic<int> hits{0};
  server_.server().Get(
      "/limited", [&hits](const httplib::Request&, httplib::Response& res) {
        ++hits;
        res.status = 429;
        res.set_header("Retry-After", "1");
      });
  std::unique_ptr<Fetcher> fetcher = MakeFetcher();
  const FetchResponse r =
      FetchOne(*fetcher, {.id = 5, .url = server_.Url("/limited")});
  EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.headers.retry_after, "1");
  EXPECT_EQ(hits, 1);
}

TEST_F(FetcherTest, RejectsInvalidOptions) {
  FetchOptions options;
  options.max_concurrent_transfers = 0;
  EXPECT_EQ(Fetcher::Create(options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sieve
