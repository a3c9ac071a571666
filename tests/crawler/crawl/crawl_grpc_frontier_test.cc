// A crawl whose frontier is a URLFrontier server: the crawler (in-process) is
// a gRPC client (`--frontier grpc://...`) of a FrontierServer on 127.0.0.1,
// and crawls the test site completely through it: every reachable allowed page
// fetched once, and the server's store knows every URL as done.
#include <sys/types.h>

#include <fstream>
#include <map>

#include "crawler/config/crawl_options.h"
#include "crawler/demo/demo_site.h"
#include "frontier/service/frontier_server.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/site_answer_key.h"

namespace sieve {
namespace {

using testing_util::CrawlInProcess;
using testing_util::FastConfig;
using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

TEST(CrawlGrpcFrontierTest, CrawlsTheTestSiteCompletelyThroughTheServer) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site = DemoSite::Start(
      {.pages = 300, .slow_page_delay = absl::Milliseconds(1500)});
  ASSERT_TRUE(site.ok()) << site.status();
  const auto data = FreshDir("grpc_frontier_data");
  absl::StatusOr<std::unique_ptr<service::FrontierServer>> server =
      service::FrontierServer::Start({.listen = "127.0.0.1:0",
                                      .core = {.data_dir = data,
                                               .expected_urls = 100'000,
                                               .default_queue_delay = 0}});
  ASSERT_TRUE(server.ok()) << server.status();

  const auto out = FreshDir("grpc_frontier_crawl");
  CrawlConfig config = FastConfig(out);
  config.urlfrontier.url =
      "grpc://127.0.0.1:" + std::to_string((*server)->port());
  config.urlfrontier.crawl_id = "site";
  absl::StatusOr<CrawlSummary> summary =
      CrawlInProcess(config, {(*site)->root_url()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->stop_reason, StopReason::kFinished);

  const testing_util::ExpectedCrawl expected =
      testing_util::Expected((*site)->graph());
  ASSERT_GT(expected.fetched.size(), 300u);
  std::map<std::string, int> records;
  for (const nlohmann::json& page : ReadPages(out)) {
    ++records[PathOf(page["url"])];
  }
  for (const auto& [path, depth] : expected.fetched) {
    EXPECT_EQ(records[path], 1) << path;
  }
  for (const auto& [path, n] : records) {
    EXPECT_TRUE(expected.fetched.contains(path)) << "unexpected fetch " << path;
  }
  std::map<std::string, int> requests;
  for (const SiteRequest& r : (*site)->requests()) ++requests[r.path];
  for (const auto& [path, n] : requests) {
    EXPECT_EQ(n, 1) << path;
    EXPECT_FALSE(SiteGraph::MustNotBeRequested(path)) << path;
  }

  // The server: nothing queued or in transit, every fetched URL done.
  urlfrontier::QueueWithinCrawlParams p;
  p.set_crawlid("site");
  const urlfrontier::Stats stats = (*server)->core().GetStats(p);
  EXPECT_EQ(stats.size(), 0u);
  EXPECT_EQ(stats.inprocess(), 0u);
  EXPECT_GE(stats.counts().at("completed"), expected.fetched.size());
}

// The page cap through `sieve crawl --frontier grpc://...` as a user runs it:
// the local Frontier inside the client enforces it, and the crawl still ends
// (the host's other URLs are reported done to the server).
TEST(CrawlGrpcFrontierTest, MaxPagesPerHostHoldsThroughTheSieveBinary) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.pages = 200});
  ASSERT_TRUE(site.ok()) << site.status();
  const auto data = FreshDir("grpc_frontier_cap_data");
  absl::StatusOr<std::unique_ptr<service::FrontierServer>> server =
      service::FrontierServer::Start({.listen = "127.0.0.1:0",
                                      .core = {.data_dir = data,
                                               .expected_urls = 100'000,
                                               .default_queue_delay = 0}});
  ASSERT_TRUE(server.ok()) << server.status();
  const auto dir = FreshDir("grpc_frontier_cap");
  {
    std::ofstream seeds(dir / "seeds.txt");
    seeds << (*site)->root_url() << "\n";
  }
  const auto log = dir / "sieve.log";
  const int code = WaitFor(
      StartSieve({"crawl", "--seeds", (dir / "seeds.txt").string(), "--out",
                  (dir / "out").string(), "--frontier",
                  "grpc://127.0.0.1:" + std::to_string((*server)->port()),
                  "--delay", "0", "--sitemaps", "off", "--max-pages-per-host",
                  "7", "--max-run-time", "60"},
                 log));
  EXPECT_EQ(code, 0) << ReadFile(log);
  EXPECT_EQ(ReadPages(dir / "out").size(), 7u) << ReadFile(log);
  int pages = 0;
  for (const SiteRequest& r : (*site)->requests())
    pages += r.path != "/robots.txt";
  EXPECT_EQ(pages, 7);
  urlfrontier::QueueWithinCrawlParams p;
  const urlfrontier::Stats stats = (*server)->core().GetStats(p);
  EXPECT_EQ(stats.size(), 0u) << "the host's other URLs are done";
  EXPECT_EQ(stats.inprocess(), 0u);
}

TEST(CrawlGrpcFrontierTest, RefusesABadFrontierUrlAndClusterWithFrontier) {
  const auto work = FreshDir("grpc_frontier_options");
  CrawlConfig config = FastConfig(work);
  config.urlfrontier.url = "http://127.0.0.1:7071";
  EXPECT_TRUE(absl::IsInvalidArgument(CreateFrontier(config, work).status()));
  config.urlfrontier.url = "grpc://127.0.0.1:7071";
  config.cluster.url = "redis://127.0.0.1:6379";
  config.cluster.crawl_id = "c";
  EXPECT_TRUE(absl::IsInvalidArgument(CreateFrontier(config, work).status()));
}

}  // namespace
}  // namespace sieve
