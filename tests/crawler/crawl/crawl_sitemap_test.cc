// Sitemaps in a crawl of the test site, in-process: pages only a sitemap
// named in robots.txt lists are fetched (depth 1, discovered from the
// sitemap); an index of gzip sitemaps is followed; a broken sitemap is
// recorded with its error, the URLs before the fault are fetched and the
// crawl goes on; `off`, `robots+probe` and the strict location rule do what
// they say.
#include <map>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "crawler/demo/demo_site.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/site_answer_key.h"

namespace sieve {
namespace {

using testing_util::CrawlInProcess;
using testing_util::FastConfig;
using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadPages;

struct Crawled {
  std::unique_ptr<DemoSite> site;
  CrawlSummary summary;
  std::map<std::string, nlohmann::json> by_path;
  std::map<std::string, int> requested;  // At the server.
};

Crawled Crawl(const std::string& name, SitemapSource sources,
              SitemapLocationRule rule = SitemapLocationRule::kLenient) {
  Crawled c;
  absl::StatusOr<std::unique_ptr<DemoSite>> site = DemoSite::Start(
      {.pages = 200, .slow_page_delay = absl::Milliseconds(100)});
  EXPECT_TRUE(site.ok()) << site.status();
  if (!site.ok()) return c;
  c.site = std::move(*site);
  const auto out = FreshDir(name);
  CrawlConfig config = FastConfig(out);
  config.crawl.sitemaps = sources;
  config.crawl.sitemap_location = rule;
  absl::StatusOr<CrawlSummary> summary =
      CrawlInProcess(config, {c.site->root_url()});
  EXPECT_TRUE(summary.ok()) << summary.status();
  if (summary.ok()) c.summary = *summary;
  for (const nlohmann::json& page : ReadPages(out))
    c.by_path[PathOf(page["url"])] = page;
  for (const SiteRequest& r : c.site->requests()) ++c.requested[r.path];
  return c;
}

TEST(CrawlSitemapTest, PagesOnlyASitemapNamedInRobotsTxtListsAreFetched) {
  Crawled c = Crawl("sitemap-robots", SitemapSource::kRobots);
  ASSERT_NE(c.site, nullptr);
  const testing_util::ExpectedCrawl key =
      testing_util::Expected(c.site->graph());
  const testing_util::ExpectedCrawl links_only =
      testing_util::Expected(c.site->graph(), 0, 5, /*sitemaps=*/false);
  ASSERT_FALSE(key.sitemap_only.empty());
  for (const std::string& path : key.sitemap_only) {
    EXPECT_FALSE(links_only.fetched.contains(path))
        << path << " is reachable by a link: not a sitemap-only page";
    ASSERT_TRUE(c.by_path.contains(path)) << path;
    EXPECT_EQ(c.by_path[path]["status"], 200) << path;
    EXPECT_EQ(c.by_path[path]["depth"], 1) << path;
    EXPECT_THAT(c.by_path[path]["discovered_from"].get<std::string>(),
                testing::HasSubstr("/sitemaps/"))
        << path;
  }
  // Exactly the answer key, each URL once at the server.
  for (const auto& [path, depth] : key.fetched) {
    EXPECT_TRUE(c.by_path.contains(path)) << "missing " << path;
  }
  for (const auto& [path, page] : c.by_path) {
    EXPECT_TRUE(key.fetched.contains(path)) << "unexpected " << path;
  }
  for (const auto& [path, n] : c.requested) EXPECT_EQ(n, 1) << path;
  // The sitemaps themselves are recorded, named by robots.txt at depth 0.
  for (const std::string& path : key.sitemaps) {
    ASSERT_TRUE(c.by_path.contains(path)) << path;
    EXPECT_EQ(c.by_path[path]["sitemap"], true) << path;
    EXPECT_EQ(c.by_path[path]["depth"], 0) << path;
  }
  EXPECT_EQ(c.by_path["/sitemaps/pages.xml"]["discovered_from"],
            c.site->root_url() + "robots.txt");
  EXPECT_EQ(c.summary.counters.sitemaps, key.sitemaps.size());
  EXPECT_EQ(c.summary.counters.sitemap_urls_new, key.sitemap_only.size());
}

TEST(CrawlSitemapTest, AnIndexOfGzipSitemapsIsFollowed) {
  Crawled c = Crawl("sitemap-index", SitemapSource::kRobots);
  ASSERT_NE(c.site, nullptr);
  const nlohmann::json& index = c.by_path["/sitemaps/index.xml"];
  EXPECT_EQ(index["links_found"], 2);
  EXPECT_EQ(index["links_new"], 2) << "both parts queued";
  EXPECT_TRUE(index["error"].is_null()) << index.dump();
  for (const char* part :
       {"/sitemaps/part-0.xml.gz", "/sitemaps/part-1.xml.gz"}) {
    ASSERT_TRUE(c.by_path.contains(part)) << part;
    const nlohmann::json& p = c.by_path[part];
    EXPECT_EQ(p["content_type"], "application/gzip");
    EXPECT_TRUE(p["error"].is_null()) << p.dump();
    EXPECT_EQ(p["links_found"], 5) << p.dump();
    EXPECT_EQ(p["discovered_from"], c.site->root_url() + "sitemaps/index.xml");
  }
  for (int i = 0; i < 10; ++i) {
    const std::string path = absl::StrCat("/g/", i, ".html");
    ASSERT_TRUE(c.by_path.contains(path)) << path;
    EXPECT_EQ(c.by_path[path]["status"], 200);
  }
}

TEST(CrawlSitemapTest, ABrokenSitemapIsRecordedAndTheCrawlGoesOn) {
  Crawled c = Crawl("sitemap-broken", SitemapSource::kRobots);
  ASSERT_NE(c.site, nullptr);
  const nlohmann::json& broken = c.by_path["/sitemaps/broken.xml"];
  EXPECT_EQ(broken["error"], "sitemap_malformed_xml") << broken.dump();
  EXPECT_FALSE(broken["error_detail"].get<std::string>().empty());
  EXPECT_EQ(broken["links_found"], 2);
  // The URLs before the fault are fetched; the one inside it is not.
  EXPECT_EQ(c.requested["/s/b0.html"], 1);
  EXPECT_EQ(c.requested["/s/b1.html"], 1);
  EXPECT_EQ(c.requested["/s/b2.html"], 0);
  EXPECT_EQ(c.summary.counters.sitemap_errors, 1u);
  EXPECT_EQ(c.summary.stop_reason, StopReason::kFinished);
  EXPECT_TRUE(c.by_path.contains("/p/199.html")) << "the crawl went on";
}

TEST(CrawlSitemapTest, OffFetchesNoSitemap) {
  Crawled c = Crawl("sitemap-off", SitemapSource::kOff);
  ASSERT_NE(c.site, nullptr);
  for (const auto& [path, n] : c.requested) {
    EXPECT_FALSE(absl::StartsWith(path, "/sitemap")) << path;
    EXPECT_FALSE(absl::StartsWith(path, "/s/")) << path;
    EXPECT_FALSE(absl::StartsWith(path, "/g/")) << path;
  }
  EXPECT_EQ(c.summary.counters.sitemaps, 0u);
}

TEST(CrawlSitemapTest, RobotsPlusProbeAlsoAsksForSitemapXmlOnce) {
  Crawled c = Crawl("sitemap-probe", SitemapSource::kRobotsAndProbe);
  ASSERT_NE(c.site, nullptr);
  EXPECT_EQ(c.requested["/sitemap.xml"], 1);
  EXPECT_EQ(c.by_path["/sitemap.xml"]["error"], "http_4xx");
  EXPECT_EQ(c.requested["/sitemaps/pages.xml"], 1);
}

TEST(CrawlSitemapTest, TheStrictLocationRuleRefusesPagesOutsideASitemapsPath) {
  // The parts of the index live under /sitemaps/ and list /g/ pages: refused
  // when strict. pages.xml was named by robots.txt: its /s/ pages may appear.
  Crawled c = Crawl("sitemap-strict", SitemapSource::kRobots,
                    SitemapLocationRule::kStrict);
  ASSERT_NE(c.site, nullptr);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(c.requested[absl::StrCat("/g/", i, ".html")], 0) << i;
    EXPECT_EQ(c.requested[absl::StrCat("/s/", i, ".html")], 1) << i;
  }
  EXPECT_EQ(c.requested["/sitemaps/part-0.xml.gz"], 1);
}

}  // namespace
}  // namespace sieve
