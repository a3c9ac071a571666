// The private-address guard against real sockets, all on loopback: servers on
// 127.0.0.1 (an allowed host), 127.0.0.2 and 127.0.0.3 (Linux routes all of
// 127.0.0.0/8 to lo). What counts is checked at the server: a refused fetch
// never reaches it.
#include <atomic>
#include <string>

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
using testing::HasSubstr;

std::unique_ptr<Fetcher> MakeFetcher(const FetchOptions& options) {
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Fetcher::Create(options);
  EXPECT_TRUE(fetcher.ok()) << fetcher.status();
  return fetcher.ok() ? std::move(*fetcher) : nullptr;
}

// A server on `address` that answers every GET with "from <address>" and
// counts the requests it served.
class CountingServer {
 public:
  explicit CountingServer(const std::string& address) : http_(address) {
    http_.server().Get(
        ".*", [this, address](const httplib::Request&, httplib::Response& res) {
          hits_.fetch_add(1);
          res.set_content(absl::StrCat("from ", address), "text/plain");
        });
    http_.Start();
  }
  std::string Url(absl::string_view path) const { return http_.Url(path); }
  int hits() const { return hits_.load(); }

 private:
  HttpServer http_;
  std::atomic<int> hits_{0};
};

class PrivateAddressTest : public testing::Test {
 protected:
  void SetUp() override {
    // 127.0.0.1 (allowed) redirects robots.txt to 127.0.0.3, as a hostile
    // site would point it at a metadata address.
    seed_.server().Get("/robots.txt",
                       [this](const httplib::Request&, httplib::Response& res) {
                         res.set_redirect(third_.Url("/robots.txt"), 302);
                       });
    seed_.server().Get("/",
                       [](const httplib::Request&, httplib::Response& res) {
                         res.set_content("seed", "text/plain");
                       });
    seed_.Start();
  }

  HttpServer seed_{"127.0.0.1"};
  CountingServer second_{"127.0.0.2"};
  CountingServer third_{"127.0.0.3"};
};

TEST_F(PrivateAddressTest, TheAllowedHostIsFetched) {
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(TestOptions());
  const FetchResponse r = FetchOne(*fetcher, {.id = 1, .url = seed_.Url("/")});
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.body, "seed");
}

TEST_F(PrivateAddressTest, AnotherPrivateHostIsNeverConnected) {
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(TestOptions());
  const FetchResponse r =
      FetchOne(*fetcher, {.id = 1, .url = second_.Url("/page")});
  EXPECT_EQ(r.error, FetchError::kBlockedAddress) << r.error_message;
  EXPECT_EQ(FetchErrorName(r.error), "blocked_address");
  EXPECT_THAT(r.error_message, HasSubstr("127.0.0.2 (loopback 127.0.0.0/8)"));
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(r.body.empty());

  // The server's accept queue is FIFO: had the refused fetch connected, that
  // connection would have been accepted before this allowed one.
  FetchOptions open = TestOptions();
  open.allow_private_addresses = true;
  std::unique_ptr<Fetcher> open_fetcher = MakeFetcher(open);
  ASSERT_TRUE(
      FetchOne(*open_fetcher, {.id = 2, .url = second_.Url("/page")}).ok());
  EXPECT_EQ(second_.hits(), 1);
}

TEST_F(PrivateAddressTest, ARedirectCurlFollowsToAPrivateHostIsNotConnected) {
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(TestOptions());
  const FetchResponse r = FetchOne(
      *fetcher, {.id = 1, .url = seed_.Url("/robots.txt"), .max_redirects = 5});
  EXPECT_EQ(r.error, FetchError::kBlockedAddress) << r.error_message;
  EXPECT_THAT(r.error_message, HasSubstr("127.0.0.3"));
  EXPECT_EQ(third_.hits(), 0);
}

TEST_F(PrivateAddressTest, AllowPrivateAddressesLetsBothThrough) {
  FetchOptions options = TestOptions();
  options.allow_private_addresses = true;
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  const FetchResponse direct =
      FetchOne(*fetcher, {.id = 1, .url = second_.Url("/page")});
  ASSERT_TRUE(direct.ok()) << direct.error_message;
  EXPECT_EQ(direct.body, "from 127.0.0.2");
  const FetchResponse redirected = FetchOne(
      *fetcher, {.id = 2, .url = seed_.Url("/robots.txt"), .max_redirects = 5});
  ASSERT_TRUE(redirected.ok()) << redirected.error_message;
  EXPECT_EQ(redirected.body, "from 127.0.0.3");
  EXPECT_EQ(redirected.effective_url, third_.Url("/robots.txt"));
  EXPECT_EQ(second_.hits(), 1);
  EXPECT_EQ(third_.hits(), 1);
}

TEST_F(PrivateAddressTest, AHostListedAsAllowedMayRedirectToItself) {
  FetchOptions options = TestOptions();
  options.private_address_hosts = {"127.0.0.1", "127.0.0.3"};
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  const FetchResponse r = FetchOne(
      *fetcher, {.id = 1, .url = seed_.Url("/robots.txt"), .max_redirects = 5});
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.body, "from 127.0.0.3");
}

// The check is on the address connected, not on the URL's spelling: a name
// that resolves to loopback is refused although its address is a listed host.
TEST_F(PrivateAddressTest, ANameIsCheckedByTheAddressItResolvesTo) {
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(TestOptions());
  const std::string url = absl::StrCat(
      "http://localhost:", seed_.Url("").substr(strlen("http://127.0.0.1:")),
      "/");
  const FetchResponse r = FetchOne(*fetcher, {.id = 1, .url = url});
  EXPECT_EQ(r.error, FetchError::kBlockedAddress) << r.error_message;
  EXPECT_THAT(r.error_message, HasSubstr("host 'localhost'"));
}

}  // namespace
}  // namespace sieve
