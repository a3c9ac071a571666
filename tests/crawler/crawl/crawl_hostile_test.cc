// A crawl of the test site's hostile pages (crawler/demo/hostile_pages.h) on
// 127.0.0.1: an endless body, a 1 byte/s trickle, a connection closed
// mid-body, an invalid gzip body, binary bytes served as text/html and 10 MB of
// links. None may stop or hang the crawl; each is recorded. And a 12 MB page
// with Content-Length, through the `sieve` binary: truncated at
// fetch.max_body_bytes and its links followed, or skipped with
// fetch.skip_oversized.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "crawler/demo/demo_site.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"

namespace sieve {
namespace {

using testing_util::CrawlInProcess;
using testing_util::FastConfig;
using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

TEST(CrawlHostileTest, HostilePagesAreRecordedAndNeverHangTheCrawl) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.pages = 10, .hostile_pages = true});
  ASSERT_TRUE(site.ok()) << site.status();
  const auto out = FreshDir("hostile");
  CrawlConfig config = FastConfig(out);
  config.fetch.timeout =
      10;  // The bounds below, not the total timeout, must end each case.
  config.fetch.low_speed_limit = 100;
  config.fetch.low_speed_time = 5;
  config.fetch.max_body_bytes = 12 << 20;
  config.crawl.max_outlinks_per_page = 100;
  // The test site's sitemaps lead back to its graph; this test is about
  // /hostile/ alone.
  config.crawl.sitemaps = SitemapSource::kOff;
  const absl::Time start = absl::Now();
  absl::StatusOr<CrawlSummary> summary =
      CrawlInProcess(config, {(*site)->root_url() + "hostile/"});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->stop_reason, StopReason::kFinished);
  EXPECT_LT(absl::Now() - start, absl::Seconds(60));

  std::map<std::string, nlohmann::json> by_path;
  for (const nlohmann::json& page : ReadPages(out))
    by_path[PathOf(page["url"])] = page;
  for (const char* page : {"", "endless", "trickle", "reset", "badgzip",
                           "binary", "links10mb", "ok.html", "ok2.html"}) {
    EXPECT_TRUE(by_path.contains(std::string("/hostile/") + page))
        << page << " not recorded";
  }
  EXPECT_EQ(by_path["/hostile/endless"]["truncated"], true);
  EXPECT_EQ(by_path["/hostile/endless"]["bytes"], 12 << 20);
  EXPECT_EQ(by_path["/hostile/trickle"]["error"], "timeout");
  EXPECT_FALSE(by_path["/hostile/reset"]["error"].is_null())
      << by_path["/hostile/reset"].dump();
  EXPECT_FALSE(by_path["/hostile/badgzip"]["error"].is_null())
      << by_path["/hostile/badgzip"].dump();
  EXPECT_EQ(by_path["/hostile/binary"]["status"], 200);
  EXPECT_TRUE(by_path["/hostile/binary"]["error"].is_null());
  // 10 MB of links: parsed, every link counted, only max_outlinks_per_page
  // followed.
  EXPECT_GT(by_path["/hostile/links10mb"]["links_found"].get<int>(), 100'000);
  EXPECT_EQ(by_path["/hostile/links10mb"]["links_new"], 100);
  EXPECT_EQ(ReadPages(out).size(), 9u + 100u);
}

// Runs `sieve crawl` seeded at /hostile/big12mb with the default
// max_body_bytes (10 MiB) and `config_toml` as --config; returns the records
// by path.
std::map<std::string, nlohmann::json> CrawlBigPage(
    const std::string& name, const std::string& config_toml) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.pages = 10, .hostile_pages = true});
  EXPECT_TRUE(site.ok()) << site.status();
  if (!site.ok()) return {};
  const auto dir = FreshDir(name);
  std::ofstream(dir / "seeds.txt")
      << (*site)->root_url() << "hostile/big12mb\n";
  std::ofstream(dir / "config.toml") << config_toml;
  const auto log = dir / "log.txt";
  const int code = WaitFor(
      StartSieve({"crawl", "--seeds", (dir / "seeds.txt").string(), "--config",
                  (dir / "config.toml").string(), "--out",
                  (dir / "out").string(), "--delay", "0", "--sitemaps", "off"},
                 log));
  std::stringstream said;
  said << std::ifstream(log).rdbuf();
  EXPECT_EQ(code, 0) << said.str();
  std::map<std::string, nlohmann::json> by_path;
  for (const nlohmann::json& page : ReadPages(dir / "out"))
    by_path[PathOf(page["url"])] = page;
  return by_path;
}

TEST(CrawlBigPageTest,
     APageWithContentLengthOverTheLimitIsTruncatedAndFollowed) {
  std::map<std::string, nlohmann::json> pages = CrawlBigPage("big_cut", "");
  ASSERT_TRUE(pages.contains("/hostile/big12mb"));
  const nlohmann::json& big = pages["/hostile/big12mb"];
  EXPECT_EQ(big["status"], 200) << big.dump();
  EXPECT_TRUE(big["error"].is_null()) << big.dump();
  EXPECT_EQ(big["truncated"], true) << big.dump();
  EXPECT_EQ(big["bytes"], 10 << 20) << big.dump();
  for (int i = 1000001; i <= 1000005; ++i) {
    EXPECT_EQ(pages[absl::StrCat("/hostile/l/", i)]["status"], 200) << i;
  }
  // The link in the last bytes was past the cut.
  EXPECT_FALSE(pages.contains("/hostile/l/2000000"));
  EXPECT_EQ(pages.size(), 6u);
}

TEST(CrawlBigPageTest,
     SkipOversizedSkipsAPageWhoseContentLengthIsOverTheLimit) {
  std::map<std::string, nlohmann::json> pages =
      CrawlBigPage("big_skip", "[fetch]\nskip_oversized = true\n");
  ASSERT_TRUE(pages.contains("/hostile/big12mb"));
  EXPECT_EQ(pages["/hostile/big12mb"]["error"], "too_large")
      << pages["/hostile/big12mb"].dump();
  EXPECT_EQ(pages.size(), 1u);
}

}  // namespace
}  // namespace sieve
