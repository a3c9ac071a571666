// A crawl of the test site's hostile pages (crawler/demo/hostile_pages.h) on
// 127.0.0.1: an endless body, a 1 byte/s trickle, a connection closed
// mid-body, an invalid gzip body, binary bytes served as text/html and 10 MB of
// links. None may stop or hang the crawl; each is recorded.
#include <map>
#include <string>

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

}  // namespace
}  // namespace sieve
