// The private-address guard through a whole crawl, all on loopback (Linux
// routes 127.0.0.0/8 to lo). The seed's site is on 127.0.0.1, so it is allowed
// (a seed's host); its page links to a page on 127.0.0.2 and its robots.txt
// redirects to 127.0.0.3, as a hostile site would point at an intranet or a
// cloud metadata address. Connections are counted at each server, so "not
// connected" means the server never accepted a socket, not merely that no
// request arrived.
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "crawler/policy/scope_mode.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using fetch_test::Connection;
using fetch_test::RawServer;
using testing_util::CrawlInProcess;
using testing_util::FastConfig;
using testing_util::FreshDir;
using testing_util::ReadPages;

// A site on one loopback address: fixed answers by path (a full HTTP response
// each), 404 for any other path; counts the connections it accepted.
class LoopbackSite {
 public:
  explicit LoopbackSite(const std::string& address)
      : server_([this](Connection& c) { Serve(c); }, address) {}

  // Call before the crawl starts (the map is read by the server's threads).
  void Page(const std::string& path, const std::string& html) {
    answers_[path] = absl::StrCat(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ",
        html.size(), "\r\nConnection: close\r\n\r\n", html);
  }
  void Text(const std::string& path, const std::string& text) {
    answers_[path] = absl::StrCat(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ",
        text.size(), "\r\nConnection: close\r\n\r\n", text);
  }
  void Redirect(const std::string& path, const std::string& location) {
    answers_[path] = absl::StrCat("HTTP/1.1 302 Found\r\nLocation: ", location,
                                  "\r\nContent-Length: 0\r\nConnection: "
                                  "close\r\n\r\n");
  }
  std::string Url(const std::string& path) const { return server_.Url(path); }
  int connections() const { return server_.accepted(); }

 private:
  void Serve(Connection& c) {
    std::string head;
    if (!c.ReadRequestHead(&head)) return;
    // "GET /path HTTP/1.1"
    const size_t start = head.find(' ') + 1;
    const std::string path = head.substr(start, head.find(' ', start) - start);
    auto it = answers_.find(path);
    c.Send(it != answers_.end()
               ? it->second
               : "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: "
                 "close\r\n\r\n");
  }

  std::map<std::string, std::string> answers_;
  RawServer server_;  // Last: stopped before answers_ goes.
};

class CrawlPrivateAddressTest : public testing::Test {
 protected:
  void SetUp() override {
    intranet_.Page("/page.html", "<html><body>intranet page</body></html>");
    metadata_.Text("/robots.txt", "User-agent: *\nAllow: /\n");
    seed_.Redirect("/robots.txt", metadata_.Url("/robots.txt"));
    seed_.Page(
        "/", absl::StrCat("<html><body><a href=\"", intranet_.Url("/page.html"),
                          "\">elsewhere</a></body></html>"));
  }

  // A crawl of the seed with --scope any; returns its records by URL.
  std::map<std::string, nlohmann::json> Crawl(const std::string& name,
                                              bool allow_private) {
    out_ = FreshDir(name);
    const auto& out = out_;
    CrawlConfig config = FastConfig(out);
    config.crawl.scope = ScopeMode::kAny;
    config.crawl.sitemaps = SitemapSource::kOff;
    config.fetch.allow_private_addresses = allow_private;
    absl::StatusOr<CrawlSummary> summary =
        CrawlInProcess(config, {seed_.Url("/")});
    EXPECT_TRUE(summary.ok()) << summary.status();
    if (summary.ok()) summary_ = *summary;
    std::map<std::string, nlohmann::json> by_url;
    for (const nlohmann::json& page : ReadPages(out)) {
      by_url[page["url"].get<std::string>()] = page;
    }
    return by_url;
  }

  LoopbackSite seed_{"127.0.0.1"};
  LoopbackSite intranet_{"127.0.0.2"};
  LoopbackSite metadata_{"127.0.0.3"};
  std::filesystem::path out_;
  CrawlSummary summary_;
};

TEST_F(CrawlPrivateAddressTest,
       ALinkToAnotherPrivateAddressIsRecordedButNeverConnected) {
  std::map<std::string, nlohmann::json> pages = Crawl("guard_on", false);

  ASSERT_TRUE(pages.contains(seed_.Url("/")));
  EXPECT_EQ(pages[seed_.Url("/")]["status"], 200);
  const std::string intranet_page = intranet_.Url("/page.html");
  ASSERT_TRUE(pages.contains(intranet_page)) << "the link was not followed";
  EXPECT_EQ(pages[intranet_page]["error"], "blocked_address")
      << pages[intranet_page].dump();
  EXPECT_EQ(intranet_.connections(), 0);
  EXPECT_EQ(summary_.stop_reason, StopReason::kFinished);
}

TEST_F(CrawlPrivateAddressTest,
       ARobotsTxtRedirectToAPrivateAddressIsNotConnected) {
  std::map<std::string, nlohmann::json> pages = Crawl("guard_robots", false);

  EXPECT_EQ(metadata_.connections(), 0);
  // The redirect cannot be followed: robots.txt counts as unavailable in the
  // 4xx sense (RFC 9309 2.3.1.3), so the seed is still crawled.
  EXPECT_EQ(pages[seed_.Url("/")]["status"], 200);
  EXPECT_GE(seed_.connections(), 2);  // robots.txt, then the page.
}

TEST_F(CrawlPrivateAddressTest, TheSummaryCountsEveryRefusedFetch) {
  Crawl("guard_summary", false);

  // The seed's robots.txt redirect, 127.0.0.2's robots.txt and its page.
  EXPECT_EQ(summary_.counters.blocked_addresses, 3u);
  EXPECT_EQ(summary_.counters.pages, 2u);
  std::ifstream in(out_ / "summary.json");
  const nlohmann::json summary = nlohmann::json::parse(in);
  EXPECT_EQ(summary["counters"]["blocked_addresses"], 3);
}

TEST_F(CrawlPrivateAddressTest, AllowPrivateAddressesFetchesBoth) {
  std::map<std::string, nlohmann::json> pages = Crawl("guard_off", true);

  const std::string intranet_page = intranet_.Url("/page.html");
  ASSERT_TRUE(pages.contains(intranet_page));
  EXPECT_EQ(pages[intranet_page]["status"], 200) << pages[intranet_page].dump();
  EXPECT_TRUE(pages[intranet_page]["error"].is_null());
  EXPECT_GE(intranet_.connections(), 1);
  EXPECT_GE(metadata_.connections(), 1);
  EXPECT_EQ(summary_.counters.blocked_addresses, 0u);
}

}  // namespace
}  // namespace sieve
