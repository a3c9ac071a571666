// FetchOptions::keep_raw: the exchange as it crossed the wire (for WARC), while
// FetchResponse::body stays the decoded body parsing uses.

#include <string>

#include "fetch/content_decoder.h"
#include "fetch/fetcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/compress.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using fetch_test::Connection;
using fetch_test::FetchOne;
using fetch_test::HttpServer;
using fetch_test::RawServer;
using fetch_test::TestOptions;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Page() {
  std::string page = "<html><body>";
  for (int i = 0; i < 2000; ++i) page += "<p>kept as it came</p>";
  return page + "</body></html>";
}

FetchOptions RawOptions() {
  FetchOptions options = TestOptions();
  options.keep_raw = true;
  return options;
}

class WireCaptureTest : public testing::Test {
 protected:
  void SetUp() override {
    httplib::Server& s = server_.server();
    auto serve = [&s](const char* path, std::string body,
                      const char* encoding) {
      s.Get(path,
            [body, encoding](const httplib::Request&, httplib::Response& res) {
              res.set_header("Content-Encoding", encoding);
              res.set_content(body, "application/octet-stream");
            });
    };
    serve("/gzip", test::Gzip(Page()), "gzip");
    serve("/deflate", test::Compress(Page(), test::Wrapper::kZlib), "deflate");
    serve("/raw-deflate", test::Compress(Page(), test::Wrapper::kRaw),
          "deflate");
    serve("/bomb", test::Gzip(std::string(8 << 20, '\0')), "gzip");
    serve("/not-gzip", "plain text pretending", "gzip");
    s.Get("/chunked", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider(
          "application/octet-stream",
          [](size_t offset, httplib::DataSink& sink) {
            if (offset >= 5000) {
              sink.done();
              return true;
            }
            const std::string part(500, 'c');
            return sink.write(part.data(), part.size());
          });
    });
    s.Get("/redirect", [](const httplib::Request&, httplib::Response& res) {
      res.set_redirect("/gzip");
    });
    server_.Start();
  }

  FetchResponse Fetch(const std::string& path,
                      FetchOptions options = RawOptions(),
                      int max_redirects = 0) {
    absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Fetcher::Create(options);
    EXPECT_TRUE(fetcher.ok()) << fetcher.status();
    return FetchOne(
        **fetcher,
        {.id = 1, .url = server_.Url(path), .max_redirects = max_redirects});
  }

  HttpServer server_;
};

TEST_F(WireCaptureTest, KeepsTheExchangeAsItCrossedTheWire) {
  const FetchResponse r = Fetch("/gzip");
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.body, Page());  // Parsing sees what it always saw.
  EXPECT_EQ(r.wire.body, test::Gzip(Page()));  // The archive, as sent.
  EXPECT_THAT(r.wire.request_head, StartsWith("GET /gzip HTTP/1.1\r\n"));
  EXPECT_THAT(r.wire.request_head, HasSubstr("Accept-Encoding: gzip, deflate"));
  EXPECT_THAT(r.wire.request_head, EndsWith("\r\n\r\n"));
  EXPECT_THAT(r.wire.response_head, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(r.wire.response_head, HasSubstr("Content-Encoding: gzip\r\n"));
  EXPECT_THAT(r.wire.response_head, EndsWith("\r\n\r\n"));
  EXPECT_EQ(r.wire.ip_address, "127.0.0.1");
  EXPECT_EQ(r.wire.cut, BodyCut::kNone);
  EXPECT_TRUE(r.wire.captured());
}

TEST_F(WireCaptureTest, LeavesTheWireEmptyWithoutKeepRaw) {
  const FetchResponse r = Fetch("/gzip", TestOptions());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.body, Page());
  EXPECT_FALSE(r.wire.captured());
  EXPECT_TRUE(r.wire.body.empty());
  EXPECT_TRUE(r.wire.request_head.empty());
}

TEST_F(WireCaptureTest, DecodesZlibAndRawDeflateItself) {
  for (const char* path : {"/deflate", "/raw-deflate"}) {
    const FetchResponse r = Fetch(path);
    ASSERT_TRUE(r.ok()) << path << ": " << r.error_message;
    EXPECT_EQ(r.body, Page()) << path;
  }
}

TEST_F(WireCaptureTest, CutsADecompressionBombAtMaxBodyBytesAfterDecoding) {
  FetchOptions options = RawOptions();
  options.max_body_bytes = 1 << 20;
  const FetchResponse r = Fetch("/bomb", options);
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.body.size(), size_t{1} << 20);
  // The wire form was whole: the archive gets all of it, uncut.
  EXPECT_EQ(r.wire.cut, BodyCut::kNone);
  EXPECT_LT(r.wire.body.size(), size_t{1} << 20);
}

TEST_F(WireCaptureTest, ABodyThatDoesNotDecodeIsAnErrorButIsStillKept) {
  const FetchResponse r = Fetch("/not-gzip");
  EXPECT_EQ(r.error, FetchError::kProtocol);
  EXPECT_EQ(r.wire.body, "plain text pretending");
}

TEST_F(WireCaptureTest, MarksABodyTheLengthCapCut) {
  FetchOptions options = RawOptions();
  options.max_body_bytes = 1200;
  const FetchResponse r = Fetch("/chunked", options);
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.wire.cut, BodyCut::kLength);
  EXPECT_EQ(r.wire.body, std::string(1200, 'c'));  // De-chunked by curl.
  EXPECT_THAT(r.wire.response_head, HasSubstr("Transfer-Encoding: chunked"));
}

TEST_F(WireCaptureTest, CutsABodyWhoseContentLengthIsOverTheCap) {
  FetchOptions options = RawOptions();
  options.max_body_bytes = 100;
  const FetchResponse r = Fetch("/gzip", options);  // Content-Length > 100.
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.wire.cut, BodyCut::kLength);
  EXPECT_EQ(r.wire.body.size(), 100u);
  EXPECT_FALSE(r.body.empty());  // What the first 100 gzip bytes decode to.
}

TEST_F(WireCaptureTest, MarksABodyRefusedForItsContentLength) {
  FetchOptions options = RawOptions();
  options.max_body_bytes = 100;
  options.skip_oversized = true;
  const FetchResponse r = Fetch("/gzip", options);  // Content-Length > 100.
  EXPECT_EQ(r.error, FetchError::kTooLarge);
  EXPECT_TRUE(r.wire.captured());
  EXPECT_EQ(r.wire.cut, BodyCut::kLength);
  EXPECT_TRUE(r.wire.body.empty());
}

TEST_F(WireCaptureTest, KeepsOnlyTheLastHopOfARedirectCurlFollowed) {
  const FetchResponse r = Fetch("/redirect", RawOptions(), /*max_redirects=*/2);
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_THAT(r.wire.request_head, StartsWith("GET /gzip HTTP/1.1\r\n"));
  EXPECT_THAT(r.wire.response_head, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_EQ(r.body, Page());
}

TEST(WireCaptureTimeTest, MarksABodyTheTimeLimitCut) {
  RawServer server([](Connection& c) {
    std::string head;
    if (!c.ReadRequestHead(&head)) return;
    if (!c.Send("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\npartial")) {
      return;
    }
    c.WaitForClose();
  });
  FetchOptions options = RawOptions();
  options.total_timeout = absl::Seconds(1);
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Fetcher::Create(options);
  ASSERT_TRUE(fetcher.ok());
  const FetchResponse r =
      FetchOne(**fetcher, {.id = 1, .url = server.Url("/slow")});
  EXPECT_EQ(r.error, FetchError::kTimeout);
  EXPECT_EQ(r.wire.cut, BodyCut::kTime);
  EXPECT_EQ(r.wire.body, "partial");
  EXPECT_THAT(r.wire.response_head, StartsWith("HTTP/1.1 200 OK"));
}

TEST(ContentDecoderTest, UndoesCodingsLastToFirstAndKnowsIdentity) {
  const std::string twice =
      test::Gzip(test::Compress("abc", test::Wrapper::kZlib));
  const DecodedContent d = DecodeContent("deflate, gzip", twice, 100);
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_EQ(d.body, "abc");
  EXPECT_EQ(DecodeContent("identity", "abc", 100).body, "abc");
  EXPECT_EQ(DecodeContent("", "abc", 100).body, "abc");
  EXPECT_FALSE(DecodeContent("br", "abc", 100).ok);
}

TEST(ContentDecoderTest, KeepsWhatInflatedFromAStreamThatEndsEarly) {
  const std::string gz = test::Gzip(Page());
  const DecodedContent d = DecodeContent(
      "gzip", std::string_view(gz).substr(0, gz.size() / 2), 1 << 20);
  EXPECT_TRUE(d.ok) << d.error;
  EXPECT_FALSE(d.body.empty());
  EXPECT_EQ(d.body, Page().substr(0, d.body.size()));
}

}  // namespace
}  // namespace sieve
