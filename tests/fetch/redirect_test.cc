// Redirects: reported with the resolved Location by default, followed on
// request, and never to a scheme other than http or https.
#include <atomic>
#include <string>

#include "absl/strings/str_cat.h"
#include "fetch/fetcher.h"
#include "gtest/gtest.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using fetch_test::FetchOne;
using fetch_test::HttpServer;
using fetch_test::TestOptions;

class RedirectTest : public testing::Test {
 protected:
  void SetUp() override {
    httplib::Server& s = server_.server();
    // /redirect/<code>?to=<Location>
    s.Get("/dir/sub/redirect/(\\d+)",
          [](const httplib::Request& req, httplib::Response& res) {
            res.status = std::stoi(req.matches[1]);
            res.set_header("Location", req.get_param_value("to"));
          });
    s.Get("/dir/target",
          [this](const httplib::Request&, httplib::Response& res) {
            ++target_hits_;
            res.set_content("target", "text/plain");
          });
    s.Get("/loop", [](const httplib::Request&, httplib::Response& res) {
      res.status = 302;
      res.set_header("Location", "/loop");
    });
    server_.Start();
    absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
        Fetcher::Create(TestOptions());
    ASSERT_TRUE(fetcher.ok()) << fetcher.status();
    fetcher_ = std::move(*fetcher);
  }

  std::string RedirectUrl(int code, const std::string& location) const {
    return server_.Url(
        absl::StrCat("/dir/sub/redirect/", code,
                     "?to=", httplib::detail::encode_query_param(location)));
  }

  HttpServer server_;
  std::atomic<int> target_hits_{0};
  std::unique_ptr<Fetcher> fetcher_;
};

class RedirectCodeTest : public RedirectTest,
                         public testing::WithParamInterface<int> {};

TEST_P(RedirectCodeTest, ReportsARelativeLocationResolvedWithoutFollowingIt) {
  const FetchResponse r = FetchOne(
      *fetcher_, {.id = 3, .url = RedirectUrl(GetParam(), "../../target?x=1")});
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.status, GetParam());
  EXPECT_EQ(r.headers.location, "../../target?x=1");
  EXPECT_EQ(r.redirect_url, server_.Url("/dir/target?x=1"));
  EXPECT_EQ(target_hits_.load(), 0)
      << "the redirect must not be followed by default";
}

TEST_P(RedirectCodeTest, ReportsAnAbsoluteLocationAsIs) {
  const std::string target = "http://elsewhere.example/page";
  const FetchResponse r =
      FetchOne(*fetcher_, {.id = 3, .url = RedirectUrl(GetParam(), target)});
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.redirect_url, target);
}

TEST_P(RedirectCodeTest, FollowsWhenTheRequestAsks) {
  const FetchResponse r =
      FetchOne(*fetcher_, {.id = 3,
                           .url = RedirectUrl(GetParam(), "/dir/target"),
                           .max_redirects = 5});
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "target");
  EXPECT_EQ(r.effective_url, server_.Url("/dir/target"));
  EXPECT_TRUE(r.redirect_url.empty());
  EXPECT_EQ(target_hits_.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(Codes, RedirectCodeTest,
                         testing::Values(301, 302, 307, 308));

struct ForbiddenTarget {
  const char* location;
  int max_redirects;
};

class ForbiddenRedirectTest
    : public RedirectTest,
      public testing::WithParamInterface<ForbiddenTarget> {};

TEST_P(ForbiddenRedirectTest, IsRefused) {
  const FetchResponse r =
      FetchOne(*fetcher_, {.id = 4,
                           .url = RedirectUrl(302, GetParam().location),
                           .max_redirects = GetParam().max_redirects});
  EXPECT_EQ(r.error, FetchError::kProtocol) << r.error_message;
  EXPECT_TRUE(r.redirect_url.empty());
  EXPECT_EQ(r.body.find("root:"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Schemes, ForbiddenRedirectTest,
    testing::Values(ForbiddenTarget{"file:///etc/passwd", 0},
                    ForbiddenTarget{"file:///etc/passwd", 5},
                    ForbiddenTarget{"gopher://127.0.0.1:70/1", 0},
                    ForbiddenTarget{"gopher://127.0.0.1:70/1", 5}));

TEST_F(RedirectTest, StopsFollowingAtTheRequestLimit) {
  const FetchResponse r = FetchOne(
      *fetcher_, {.id = 5, .url = server_.Url("/loop"), .max_redirects = 3});
  EXPECT_EQ(r.error, FetchError::kTooManyRedirects) << r.error_message;
}

}  // namespace
}  // namespace sieve
