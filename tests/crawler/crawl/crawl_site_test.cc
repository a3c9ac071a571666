// End-to-end crawls, in-process, of synthetic sites on 127.0.0.1 whose link
// graph is known: what was fetched is checked against the graph and against
// what the server saw.
#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "crawler/demo/demo_site.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spdlog/spdlog.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/site_answer_key.h"

namespace sieve {
namespace {

using testing_util::CrawlInProcess;
using testing_util::FastConfig;
using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadPages;

std::unique_ptr<DemoSite> StartSite(SiteOptions options) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start(std::move(options));
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

// Requests the server saw, by path, robots.txt aside.
std::map<std::string, int> RequestCounts(const DemoSite& site) {
  std::map<std::string, int> counts;
  for (const SiteRequest& r : site.requests()) {
    if (r.path != "/robots.txt") ++counts[r.path];
  }
  return counts;
}

TEST(CrawlSiteTest,
     FetchesEveryReachableAllowedPageOfA2000PageSiteExactlyOnce) {
  auto site =
      StartSite({.pages = 2000, .slow_page_delay = absl::Milliseconds(1500)});
  ASSERT_NE(site, nullptr);
  const auto out = FreshDir("site2000");
  absl::StatusOr<CrawlSummary> summary =
      CrawlInProcess(FastConfig(out), {site->root_url()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->stop_reason, StopReason::kFinished);

  const testing_util::ExpectedCrawl expected =
      testing_util::Expected(site->graph());
  ASSERT_GT(expected.fetched.size(), 2000u);
  std::map<std::string, int> records;
  std::map<std::string, nlohmann::json> by_path;
  for (const nlohmann::json& page : ReadPages(out)) {
    const std::string url = page["url"];
    EXPECT_EQ(url.rfind(site->root_url(), 0), 0u)
        << "outside the scope: " << url;
    ++records[PathOf(url)];
    by_path[PathOf(url)] = page;
  }
  // Every reachable allowed URL recorded once, nothing else.
  for (const auto& [path, depth] : expected.fetched) {
    EXPECT_EQ(records[path], 1) << path;
  }
  for (const auto& [path, n] : records) {
    EXPECT_TRUE(expected.fetched.contains(path)) << "unexpected fetch " << path;
  }
  // At the server: each requested once; never a robots-disallowed, nofollow or
  // trap URL; robots.txt once.
  int robots = 0;
  for (const SiteRequest& r : site->requests())
    robots += r.path == "/robots.txt";
  EXPECT_EQ(robots, 1);
  for (const auto& [path, n] : RequestCounts(*site)) {
    EXPECT_EQ(n, 1) << path;
    EXPECT_FALSE(SiteGraph::MustNotBeRequested(path)) << path;
  }
  EXPECT_GT(summary->counters.robots_disallowed, 0u);
  // Redirects: recorded with their target, which is fetched once (checked
  // above); the chain past the limit is an error.
  EXPECT_EQ(by_path["/old/1"]["status"], 301);
  EXPECT_EQ(PathOf(by_path["/old/1"]["redirect_to"]), "/p/10.html");
  for (const std::string& path : expected.redirect_errors) {
    EXPECT_EQ(by_path[path]["error"], "too_many_redirects") << path;
  }
  // 404s and the timeout recorded with their error.
  for (const std::string& path : expected.not_found) {
    EXPECT_EQ(by_path[path]["error"], "http_4xx") << path;
  }
  ASSERT_TRUE(by_path.contains("/slow.html"));
  EXPECT_EQ(by_path["/slow.html"]["error"], "timeout");
  // Non-HTML is recorded but not parsed.
  EXPECT_EQ(by_path["/files/4.pdf"]["content_type"], "application/pdf");
  EXPECT_EQ(by_path["/files/4.pdf"]["links_found"], 0);
  // Depth and referrer of a page found by a link.
  EXPECT_EQ(by_path["/p/0.html"]["depth"], 1);
  EXPECT_EQ(by_path["/p/0.html"]["discovered_from"], site->root_url());
}

TEST(CrawlSiteTest, WithDefaultSettingsFetchesEveryPageOfA5000LinkIndex) {
  // The built-in defaults, but for the politeness delay and connections
  // (speed, not completeness: a 1 s delay would make this test take 85 min).
  auto site = StartSite({.pages = 20, .index_pages = 5000});
  ASSERT_NE(site, nullptr);
  const auto out = FreshDir("bigindex");
  CrawlConfig config;
  config.crawl.out = out.string();
  config.politeness.delay = 0;
  config.politeness.per_host_connections = 8;
  config.fetch.concurrency = 8;
  config.log.level = "warn";
  absl::StatusOr<CrawlSummary> summary =
      CrawlInProcess(config, {site->root_url()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->stop_reason, StopReason::kFinished);
  const testing_util::ExpectedCrawl expected =
      testing_util::Expected(site->graph());
  std::set<std::string> fetched;
  for (const nlohmann::json& page : ReadPages(out)) {
    fetched.insert(PathOf(page["url"]));
  }
  int missing = 0;
  for (const auto& [path, depth] : expected.fetched) {
    if (!fetched.contains(path) && ++missing <= 5) ADD_FAILURE() << path;
  }
  EXPECT_EQ(missing, 0);
  EXPECT_TRUE(fetched.contains("/big/4999.html"));
  EXPECT_GT(expected.fetched.size(), 5000u);
}

TEST(CrawlSiteTest, ATrapSiteEndsByItselfWithEveryRealPageAndEachTrapCounted) {
  // Default trap control (10,000 query variants per path, 1,000 date variants
  // per pattern, the session-ID list); only the politeness delay is off.
  auto site = StartSite({.pages = 20, .traps = true});
  ASSERT_NE(site, nullptr);
  const auto out = FreshDir("traps");
  CrawlConfig config;
  config.crawl.out = out.string();
  config.politeness.delay = 0;
  config.politeness.per_host_connections = 8;
  config.fetch.concurrency = 8;
  config.log.level = "warn";
  absl::StatusOr<CrawlSummary> summary =
      CrawlInProcess(config, {site->root_url()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->stop_reason, StopReason::kFinished);

  std::map<std::string, int> records;
  int search = 0, calendar = 0;
  for (const nlohmann::json& page : ReadPages(out)) {
    const std::string path = PathOf(page["url"]);
    ++records[path];
    search += path.starts_with("/search");
    calendar += path.starts_with("/cal/");
  }
  // Every real page once (the shop pages too, whatever session ID led there).
  const testing_util::ExpectedCrawl expected =
      testing_util::Expected(site->graph());
  ASSERT_TRUE(expected.fetched.contains("/shop/9.html"));
  for (const auto& [path, depth] : expected.fetched) {
    EXPECT_EQ(records[path], 1) << path;
  }
  // No session ID ever reached the server.
  for (const SiteRequest& r : site->requests()) {
    const std::string lower = absl::AsciiStrToLower(r.path);
    EXPECT_EQ(lower.find("sessionid"), std::string::npos) << r.path;
    EXPECT_EQ(lower.find("sessid"), std::string::npos) << r.path;
    EXPECT_EQ(lower.find("sid="), std::string::npos) << r.path;
  }
  // The traps were cut at their caps, and each is counted by kind.
  EXPECT_LE(search, 10000 + 16);
  EXPECT_GE(search, 10000);
  EXPECT_LE(calendar, 1000 + 16);
  EXPECT_GE(calendar, 1000);
  EXPECT_GT(summary->counters.query_variant_traps, 0u);
  EXPECT_GT(summary->counters.calendar_traps, 0u);
  EXPECT_GE(summary->counters.session_ids, 30u);  // 3 per shop page.
}

// A site 3x larger than --expected-urls: an index linking every page, each
// page linking the next.
struct CapacityRun {
  std::set<std::string> fetched;
  testing_util::ExpectedCrawl expected;
  absl::StatusOr<CrawlSummary> summary;
};

CapacityRun CrawlPastCapacity(const std::string& name, CapacityPolicy policy,
                              const DemoSite& site) {
  const auto out = FreshDir(name);
  CrawlConfig config = FastConfig(out);
  config.sieve.expected_urls = 1000;
  config.sieve.fp_rate = 0.001;
  config.sieve.on_capacity = policy;
  CapacityRun run{.fetched = {},
                  .expected = testing_util::Expected(site.graph()),
                  .summary = CrawlInProcess(config, {site.root_url()})};
  for (const nlohmann::json& page : ReadPages(out)) {
    run.fetched.insert(PathOf(page["url"]));
  }
  return run;
}

TEST(CrawlSiteTest, PastCapacityTheGrowingFilterLosesAlmostNothing) {
  auto site = StartSite({.pages = 20, .index_pages = 3000});
  ASSERT_NE(site, nullptr);
  CapacityRun run = CrawlPastCapacity("grow", CapacityPolicy::kGrow, *site);
  ASSERT_TRUE(run.summary.ok()) << run.summary.status();
  EXPECT_EQ(run.summary->stop_reason, StopReason::kFinished);
  ASSERT_GT(run.expected.fetched.size(), 3000u);
  size_t lost = 0;
  for (const auto& [path, depth] : run.expected.fetched) {
    lost += !run.fetched.contains(path);
  }
  // Within what the target rate predicts: under 0.3 % of the pages.
  EXPECT_LT(static_cast<double>(lost),
            0.003 * static_cast<double>(run.expected.fetched.size()))
      << lost << " pages lost";
  EXPECT_LE(run.summary->filter_estimated_fp_rate, 2 * 0.001);
  EXPECT_GT(run.summary->filter_estimated_count, 3000);
  EXPECT_GE(run.summary->counters.capacity_warnings, 1u);
}

TEST(CrawlSiteTest, AGrownFilterIsCheckpointedAndResumed) {
  auto site = StartSite({.pages = 20, .index_pages = 3000});
  ASSERT_NE(site, nullptr);
  const auto out = FreshDir("growresume");
  CrawlConfig config = FastConfig(out);
  config.sieve.expected_urls = 1000;
  config.sieve.fp_rate = 0.001;
  config.crawl.max_pages = 1500;  // Past the index: the filter has grown.
  absl::StatusOr<CrawlSummary> first =
      CrawlInProcess(config, {site->root_url()});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->stop_reason, StopReason::kMaxPages);
  EXPECT_GT(first->filter_estimated_count, 3000);

  config.crawl.max_pages = 0;
  absl::StatusOr<std::unique_ptr<Crawler>> resumed =
      Crawler::Create(CrawlSetup{.config = config,
                                 .seeds = {},
                                 .resume = true,
                                 .logger = spdlog::default_logger()});
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  absl::StatusOr<CrawlSummary> second = (*resumed)->Run();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->stop_reason, StopReason::kFinished);
  std::map<std::string, int> records;
  for (const nlohmann::json& page : ReadPages(out))
    ++records[PathOf(page["url"])];
  const testing_util::ExpectedCrawl expected =
      testing_util::Expected(site->graph());
  size_t lost = 0;
  for (const auto& [path, depth] : expected.fetched) {
    lost += !records.contains(path);
    EXPECT_LE(records[path], 1) << path;
  }
  EXPECT_LT(static_cast<double>(lost),
            0.003 * static_cast<double>(expected.fetched.size()));
  EXPECT_LE(second->filter_estimated_fp_rate, 2 * 0.001);
}

TEST(CrawlSiteTest, PastCapacityStopThenResumeWithALargerSizeFinishes) {
  auto site = StartSite({.pages = 20, .index_pages = 3000});
  ASSERT_NE(site, nullptr);
  CapacityRun run = CrawlPastCapacity("stop", CapacityPolicy::kStop, *site);
  ASSERT_TRUE(run.summary.ok()) << run.summary.status();
  EXPECT_EQ(run.summary->stop_reason, StopReason::kCapacity);
  EXPECT_LT(run.fetched.size(), run.expected.fetched.size());

  // The output directory CrawlPastCapacity("stop") crawled into.
  CrawlConfig config = FastConfig(test::ProcessTempDir() / "stop");
  config.sieve.expected_urls = 10'000;
  config.sieve.fp_rate = 0.001;
  config.sieve.on_capacity = CapacityPolicy::kStop;
  auto logger = spdlog::default_logger();
  absl::StatusOr<std::unique_ptr<Crawler>> resumed = Crawler::Create(CrawlSetup{
      .config = config, .seeds = {}, .resume = true, .logger = logger});
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  absl::StatusOr<CrawlSummary> summary = (*resumed)->Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->stop_reason, StopReason::kFinished);
  // Goes on past the first run. (The stop is checked between pages, and the
  // index added 3,000 URLs in one page, so the first run's filter already
  // answered past its size: stop and warn lose what its rate predicts; grow
  // is the lossless choice.)
  EXPECT_GT(summary->counters.pages, run.fetched.size() + 2000);
}

TEST(CrawlSiteTest, ObeysMaxDepth) {
  auto site = StartSite({.pages = 300});
  ASSERT_NE(site, nullptr);
  const auto out = FreshDir("depth");
  CrawlConfig config = FastConfig(out);
  config.crawl.max_depth = 2;
  ASSERT_TRUE(CrawlInProcess(config, {site->root_url()}).ok());
  const testing_util::ExpectedCrawl unlimited =
      testing_util::Expected(site->graph());
  std::set<std::string> fetched;
  for (const nlohmann::json& page : ReadPages(out)) {
    EXPECT_LE(page["depth"].get<int>(), 2) << page.dump();
    const std::string path = PathOf(page["url"]);
    fetched.insert(path);
    // No page is deeper than the record says (the crawl is breadth-first-ish,
    // never shorter).
    EXPECT_LE(unlimited.fetched.at(path), page["depth"].get<int>()) << path;
  }
  // Everything one link from a seed is there (its depth cannot be anything but
  // 1).
  for (const auto& [path, depth] : unlimited.fetched) {
    if (depth <= 1) {
      EXPECT_TRUE(fetched.contains(path)) << path;
    }
  }
  EXPECT_LT(fetched.size(), unlimited.fetched.size());
}

TEST(CrawlSiteTest, ObeysMaxPagesAndMaxPagesPerHost) {
  auto site = StartSite({.pages = 300});
  ASSERT_NE(site, nullptr);
  {
    const auto out = FreshDir("maxpages");
    CrawlConfig config = FastConfig(out);
    config.crawl.max_pages = 50;
    absl::StatusOr<CrawlSummary> summary =
        CrawlInProcess(config, {site->root_url()});
    ASSERT_TRUE(summary.ok());
    EXPECT_EQ(summary->stop_reason, StopReason::kMaxPages);
    EXPECT_EQ(ReadPages(out).size(), 50u);
  }
  {
    const auto out = FreshDir("perhost");
    CrawlConfig config = FastConfig(out);
    config.crawl.max_pages_per_host = 30;
    ASSERT_TRUE(CrawlInProcess(config, {site->root_url()}).ok());
    EXPECT_EQ(ReadPages(out).size(), 30u);
  }
}

TEST(CrawlSiteTest, PolitenessHoldsAtTheServer) {
  // Two hosts (two ports); delay D and one connection per host.
  const absl::Duration delay = absl::Milliseconds(50);
  auto a = StartSite({.pages = 30});
  auto b = StartSite({.pages = 30});
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const auto out = FreshDir("politeness");
  CrawlConfig config = FastConfig(out);
  config.politeness.delay = absl::ToDoubleSeconds(delay);
  config.politeness.per_host_connections = 1;
  config.crawl.max_pages = 60;
  ASSERT_TRUE(CrawlInProcess(config, {a->root_url(), b->root_url()}).ok());
  for (const DemoSite* site : {a.get(), b.get()}) {
    std::vector<SiteRequest> requests = site->requests();
    ASSERT_GT(requests.size(), 10u);
    std::sort(requests.begin(), requests.end(),
              [](const SiteRequest& x, const SiteRequest& y) {
                return x.start < y.start;
              });
    EXPECT_EQ(site->max_concurrent(), 1);
    for (size_t i = 1; i < requests.size(); ++i) {
      // The crawler waits D after each response ends, so even a request delayed
      // on its way (a new connection) cannot make two starts closer than D at
      // the server.
      EXPECT_GE(requests[i].start - requests[i - 1].start, delay)
          << requests[i - 1].path << " then " << requests[i].path;
      EXPECT_GE(requests[i].start, requests[i - 1].end)
          << "two requests at once";
    }
  }
}

}  // namespace
}  // namespace sieve
