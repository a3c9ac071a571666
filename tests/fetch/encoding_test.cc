// Compressed bodies: decoded by curl, cut after decoding, and a corrupt one is
// an error.

#include <string>

#include "fetch/fetcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/compress.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using fetch_test::FetchOne;
using fetch_test::HttpServer;
using fetch_test::TestOptions;

std::string Page() {
  std::string page = "<html><body>";
  for (int i = 0; i < 2000; ++i)
    page += "<p>the sieve keeps what it has not seen</p>";
  return page + "</body></html>";
}

// 50 MB of zeros compress to about 50 KB: a decompression bomb. Built once per
// process.
const std::string& Bomb() {
  static const std::string* const bomb =
      new std::string(test::Gzip(std::string(50 << 20, '\0')));
  return *bomb;
}

class EncodingTest : public testing::Test {
 protected:
  void SetUp() override {
    httplib::Server& s = server_.server();
    // Content type application/octet-stream: cpp-httplib leaves it alone (it
    // would gzip text/*).
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
    std::string corrupt = test::Gzip(Page());
    for (size_t i = 20; i < corrupt.size() - 8; i += 7)
      corrupt[i] = static_cast<char>(~corrupt[i]);
    serve("/corrupt-gzip", corrupt, "gzip");
    serve("/not-gzip-at-all", "plain text pretending", "gzip");
    serve("/bomb", Bomb(), "gzip");
    s.Get("/accept-encoding",
          [](const httplib::Request& req, httplib::Response& res) {
            res.set_content(req.get_header_value("Accept-Encoding"),
                            "application/octet-stream");
          });
    server_.Start();
  }

  FetchResponse Fetch(const char* path, FetchOptions options = TestOptions()) {
    absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Fetcher::Create(options);
    EXPECT_TRUE(fetcher.ok()) << fetcher.status();
    return FetchOne(**fetcher, {.id = 1, .url = server_.Url(path)});
  }

  HttpServer server_;
};

class DecodesTest : public EncodingTest,
                    public testing::WithParamInterface<const char*> {};

TEST_P(DecodesTest, DecodesTheBody) {
  const FetchResponse r = Fetch(GetParam());
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.body, Page());
  EXPECT_FALSE(r.truncated);
  // The wire carried the compressed form.
  EXPECT_LT(r.wire_bytes, static_cast<int64_t>(Page().size()) / 10);
}

INSTANTIATE_TEST_SUITE_P(Encodings, DecodesTest,
                         testing::Values("/gzip", "/deflate"));

TEST_F(EncodingTest, ACorruptGzipBodyIsAnError) {
  const FetchResponse r = Fetch("/corrupt-gzip");
  EXPECT_EQ(r.error, FetchError::kProtocol) << r.error_message;
  EXPECT_FALSE(r.error_message.empty());
}

TEST_F(EncodingTest, ABodyThatIsNotGzipAtAllIsAnError) {
  const FetchResponse r = Fetch("/not-gzip-at-all");
  EXPECT_EQ(r.error, FetchError::kProtocol) << r.error_message;
}

TEST_F(EncodingTest, ADecompressionBombIsCutAtMaxBodyBytesAfterDecoding) {
  FetchOptions options = TestOptions();
  options.max_body_bytes = 1 << 20;
  const FetchResponse r = Fetch("/bomb", options);
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.body.size(), size_t{1} << 20);
}

TEST_F(EncodingTest, AdvertisesWhatCurlDecodes) {
  const FetchResponse r = Fetch("/accept-encoding");
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_THAT(r.body, testing::HasSubstr("gzip"));
  EXPECT_THAT(r.body, testing::HasSubstr("deflate"));
}

TEST_F(EncodingTest, AsksForNoEncodingWhenCompressionIsOff) {
  FetchOptions options = TestOptions();
  options.compressed = false;
  const FetchResponse r = Fetch("/accept-encoding", options);
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.body, "");
}

}  // namespace
}  // namespace sieve
