// FetchRequest's method and headers, and ResponseHeaders::all, against a
// loopback cpp-httplib server that echoes what it was sent: HEAD goes as
// HEAD; a request's headers go with the Fetcher's, replacing those of the
// same name (User-Agent aside); headers that may not be sent are dropped;
// every response header comes back only when asked for.
#include <algorithm>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "fetch/fetcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using fetch_test::FetchOne;
using fetch_test::HttpServer;
using fetch_test::TestOptions;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::Not;
using testing::Pair;

class RequestTest : public testing::Test {
 protected:
  void SetUp() override {
    httplib::Server& s = server_.server();
    // The method and every request header, one "name: value" line each
    // (cpp-httplib routes HEAD to the GET handlers).
    s.Get("/echo", [](const httplib::Request& req, httplib::Response& res) {
      std::string out = absl::StrCat("method: ", req.method, "\n");
      for (const auto& [name, value] : req.headers) {
        absl::StrAppend(&out, absl::AsciiStrToLower(name), ": ", value, "\n");
      }
      res.set_content(out, "application/octet-stream");
    });
    s.Get("/cookies", [](const httplib::Request&, httplib::Response& res) {
      res.set_header("Set-Cookie", "a=1; Path=/");
      res.set_header("Set-Cookie",
                     "b=2; Expires=Wed, 21 Oct 2037 07:28:00 GMT");
      res.set_header("Cache-Control", "max-age=60");
      res.set_header("Vary", "Accept");
      res.set_header("Access-Control-Allow-Origin", "*");
      res.set_content("{}", "application/json");
    });
    server_.Start();
  }

  std::unique_ptr<Fetcher> MakeFetcher(FetchOptions options = TestOptions()) {
    absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
        Fetcher::Create(std::move(options));
    EXPECT_TRUE(fetcher.ok()) << fetcher.status();
    return fetcher.ok() ? std::move(*fetcher) : nullptr;
  }

  // The lines of the echo whose name is `name` (lower case).
  static std::vector<std::string> Values(const std::string& echo,
                                         const std::string& name) {
    std::vector<std::string> out;
    const std::string prefix = absl::StrCat(name, ": ");
    size_t start = 0;
    while (start < echo.size()) {
      size_t end = echo.find('\n', start);
      if (end == std::string::npos) end = echo.size();
      const std::string line = echo.substr(start, end - start);
      if (line.rfind(prefix, 0) == 0) out.push_back(line.substr(prefix.size()));
      start = end + 1;
    }
    return out;
  }

  HttpServer server_;
};

TEST_F(RequestTest, HeadIsSentAsHeadAndAnswersWithoutABody) {
  std::unique_ptr<Fetcher> fetcher = MakeFetcher();
  const FetchResponse get =
      FetchOne(*fetcher, {.id = 1, .url = server_.Url("/echo")});
  ASSERT_TRUE(get.ok()) << get.error_message;
  EXPECT_THAT(get.body, HasSubstr("method: GET\n"));
  FetchRequest head{.id = 2, .url = server_.Url("/echo")};
  head.method = FetchMethod::kHead;
  const FetchResponse r = FetchOne(*fetcher, std::move(head));
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.body.empty()) << r.body;
  // The length of the body a GET would have had: the server ran the handler
  // for a HEAD (had it seen a GET, the body would be here).
  EXPECT_TRUE(r.headers.content_length.has_value());
  EXPECT_EQ(r.headers.content_type, "application/octet-stream");
}

TEST_F(RequestTest, SendsItsHeadersReplacingTheFetchersOfTheSameName) {
  FetchOptions options = TestOptions();
  options.user_agent = "SieveTest/1.0";
  options.extra_headers = {"Accept-Language: en", "X-Probe: 7"};
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  FetchRequest request{
      .id = 1, .url = server_.Url("/echo"), .if_none_match = "\"v1\""};
  request.headers = {{"Accept", "application/json"},
                     {"X-Requested-With", "sieve-test"},
                     {"accept-language", "fr"},
                     {"User-Agent", "Mozilla/5.0 HeadlessChrome"},
                     {"Referer", "http://127.0.0.1/page"},
                     {"X-Empty", ""}};
  const FetchResponse r = FetchOne(*fetcher, std::move(request));
  ASSERT_TRUE(r.ok()) << r.error_message;
  // curl's own "Accept: */*" and the Fetcher's Accept-Language replaced.
  EXPECT_THAT(Values(r.body, "accept"), ElementsAre("application/json"))
      << r.body;
  EXPECT_THAT(Values(r.body, "accept-language"), ElementsAre("fr")) << r.body;
  EXPECT_THAT(Values(r.body, "x-requested-with"), ElementsAre("sieve-test"));
  EXPECT_THAT(Values(r.body, "referer"), ElementsAre("http://127.0.0.1/page"));
  // The Fetcher's other headers and the request's validator still go.
  EXPECT_THAT(Values(r.body, "x-probe"), ElementsAre("7"));
  EXPECT_THAT(Values(r.body, "if-none-match"), ElementsAre("\"v1\""));
  // The crawl's User-Agent, never the page's.
  EXPECT_THAT(Values(r.body, "user-agent"), ElementsAre("SieveTest/1.0"));

  // The next request without headers goes with the Fetcher's alone.
  const FetchResponse plain =
      FetchOne(*fetcher, {.id = 2, .url = server_.Url("/echo")});
  EXPECT_THAT(Values(plain.body, "accept-language"), ElementsAre("en"));
  EXPECT_THAT(plain.body, Not(HasSubstr("x-requested-with")));
  EXPECT_THAT(plain.body, Not(HasSubstr("if-none-match")));
}

// An empty value is sent empty, not taken as curl's "remove this header"
// (cpp-httplib hides empty headers: the head is read as it came).
TEST_F(RequestTest, SendsAnEmptyValueEmpty) {
  std::string head;
  std::mutex mu;
  fetch_test::RawServer raw([&](fetch_test::Connection& c) {
    std::string got;
    if (!c.ReadRequestHead(&got)) return;
    {
      std::lock_guard<std::mutex> lock(mu);
      head = got;
    }
    c.Send("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  });
  std::unique_ptr<Fetcher> fetcher = MakeFetcher();
  FetchRequest request{.id = 1, .url = raw.Url("/")};
  request.headers = {{"X-Empty", ""}};
  const FetchResponse r = FetchOne(*fetcher, std::move(request));
  ASSERT_TRUE(r.ok()) << r.error_message;
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_THAT(head, HasSubstr("\r\nX-Empty:\r\n")) << head;
}

TEST_F(RequestTest, DropsHeadersThatMayNotBeSent) {
  std::unique_ptr<Fetcher> fetcher = MakeFetcher();
  FetchRequest request{.id = 1, .url = server_.Url("/echo")};
  request.headers = {{"Host", "evil.example"},
                     {"Content-Length", "5"},
                     {"Transfer-Encoding", "chunked"},
                     {"Connection", "close"},
                     {"Keep-Alive", "timeout=5"},
                     {"Accept-Encoding", "identity"},
                     {"X-Split", "a\r\nX-Injected: 1"},
                     {"X-Nul", std::string("a\0b", 3)},
                     {"Bad Name", "x"},
                     {"", "x"},
                     {"X-Ok", "1"}};
  const FetchResponse r = FetchOne(*fetcher, std::move(request));
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_THAT(Values(r.body, "host"),
              ElementsAre(absl::StrCat("127.0.0.1:", server_.port())));
  EXPECT_THAT(r.body, Not(HasSubstr("content-length")));
  EXPECT_THAT(r.body, Not(HasSubstr("transfer-encoding")));
  EXPECT_THAT(r.body, Not(HasSubstr("connection")));
  EXPECT_THAT(r.body, Not(HasSubstr("keep-alive")));
  EXPECT_THAT(r.body, Not(HasSubstr("x-injected")));
  EXPECT_THAT(r.body, Not(HasSubstr("x-split")));
  EXPECT_THAT(r.body, Not(HasSubstr("x-nul")));
  EXPECT_THAT(r.body, Not(HasSubstr("bad name")));
  // The encodings the Fetcher decodes, not the page's.
  EXPECT_THAT(Values(r.body, "accept-encoding"), Not(ElementsAre("identity")));
  EXPECT_THAT(Values(r.body, "x-ok"), ElementsAre("1"));
}

TEST_F(RequestTest, KeepsEveryResponseHeaderOnlyWhenAsked) {
  std::unique_ptr<Fetcher> fetcher = MakeFetcher();
  const FetchResponse plain =
      FetchOne(*fetcher, {.id = 1, .url = server_.Url("/cookies")});
  ASSERT_TRUE(plain.ok()) << plain.error_message;
  EXPECT_TRUE(plain.headers.all.empty());
  // Set-Cookie always, one line each (an Expires holds a comma).
  EXPECT_THAT(
      plain.headers.set_cookie,
      ElementsAre("a=1; Path=/", "b=2; Expires=Wed, 21 Oct 2037 07:28:00 GMT"));

  FetchRequest request{.id = 2, .url = server_.Url("/cookies")};
  request.keep_all_headers = true;
  const FetchResponse r = FetchOne(*fetcher, std::move(request));
  ASSERT_TRUE(r.ok()) << r.error_message;
  std::vector<std::pair<std::string, std::string>> kept;
  for (const auto& [name, value] : r.headers.all) {
    // What cpp-httplib adds itself (it compresses JSON for curl).
    if (name != "Content-Length" && name != "Keep-Alive" &&
        name != "Connection" && name != "Content-Encoding") {
      kept.emplace_back(name, value);
    }
  }
  EXPECT_THAT(kept,
              ElementsAre(Pair("Access-Control-Allow-Origin", "*"),
                          Pair("Cache-Control", "max-age=60"),
                          Pair("Content-Type", "application/json"),
                          Pair("Set-Cookie", "a=1; Path=/"),
                          Pair("Set-Cookie",
                               "b=2; Expires=Wed, 21 Oct 2037 07:28:00 GMT"),
                          Pair("Vary", "Accept")));
}

}  // namespace
}  // namespace sieve
