// Three `sieve crawl --cluster` processes (the real binary) crawl 24 loopback
// sites (24 hosts: one DemoSite per port) through one redis-server the test
// starts. Checked at the servers: the union of the workers' pages.jsonl is
// exactly the sites, each page requested once, and per-host politeness across
// the workers (never two requests at once, none closer than the delay).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "crawler/demo/demo_site.h"
#include "tests/cluster/redis_server.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/site_answer_key.h"

namespace sieve {
namespace {

using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

constexpr int kSites = 24;
constexpr int kWorkers = 3;
constexpr double kDelaySeconds = 0.02;

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CrawlClusterTest, ThreeWorkersCrawl24HostsExactlyOnceAndPolitely) {
  SIEVE_SKIP_WITHOUT_REDIS();
  auto redis = testing::RedisServer::Start();
  ASSERT_TRUE(redis.ok()) << redis.status();
  std::vector<std::unique_ptr<DemoSite>> sites;
  const std::filesystem::path dir = FreshDir("cluster3");
  const std::filesystem::path seeds = dir / "seeds.txt";
  // 3 shards (one a worker; 24 random ports leave a shard without a host
  // with odds 3 (2/3)^24 = 2e-4) and short leases: the workers share the
  // shards within a fraction of a second of starting.
  const std::filesystem::path config = dir / "cluster.toml";
  std::ofstream(config) << "[cluster]\nshards = 3\nlease_seconds = 0.6\n";
  {
    std::ofstream out(seeds);
    for (int i = 0; i < kSites; ++i) {
      auto site = DemoSite::Start({.pages = 25,
                                   .seed = static_cast<uint64_t>(i + 1),
                                   .slow_page_delay = absl::Milliseconds(100)});
      ASSERT_TRUE(site.ok()) << site.status();
      out << (*site)->root_url() << "\n";
      sites.push_back(*std::move(site));
    }
  }
  std::vector<pid_t> pids;
  for (int w = 0; w < kWorkers; ++w) {
    const std::filesystem::path out = dir / absl::StrCat("worker-", w);
    pids.push_back(StartSieve({"crawl",
                               "--config",
                               config.string(),
                               "--cluster",
                               (*redis)->url(),
                               "--crawl-id",
                               "c3",
                               "--worker-id",
                               absl::StrCat("w", w),
                               "--seeds",
                               seeds.string(),
                               "--out",
                               out.string(),
                               "--delay",
                               absl::StrCat(kDelaySeconds),
                               "--per-host-connections",
                               "1",
                               "--expected-urls",
                               "100000",
                               "--max-run-time",
                               "120",
                               "--log-level",
                               "info"},
                              dir / absl::StrCat("log-", w, ".txt")));
  }
  for (int w = 0; w < kWorkers; ++w) {
    EXPECT_EQ(WaitFor(pids[w]), 0)
        << ReadFile(dir / absl::StrCat("log-", w, ".txt"));
  }

  // authority -> path -> records, over all workers.
  std::map<std::string, std::map<std::string, int>> recorded;
  for (int w = 0; w < kWorkers; ++w) {
    std::vector<nlohmann::json> pages =
        ReadPages(dir / absl::StrCat("worker-", w));
    EXPECT_GT(pages.size(), 0u) << "worker " << w << " fetched nothing";
    for (const nlohmann::json& page : pages) {
      const std::string url = page["url"];
      const std::string authority = url.substr(7, url.find('/', 7) - 7);
      ++recorded[authority][PathOf(url)];
    }
  }
  for (const std::unique_ptr<DemoSite>& site : sites) {
    const testing_util::ExpectedCrawl expected =
        testing_util::Expected(site->graph());
    const std::map<std::string, int>& got = recorded[site->authority()];
    EXPECT_EQ(got.size(), expected.fetched.size()) << site->authority();
    for (const auto& [path, n] : got) {
      EXPECT_EQ(n, 1) << site->authority() << path << " recorded twice";
      EXPECT_TRUE(expected.fetched.contains(path)) << "unexpected " << path;
    }
    std::map<std::string, int> requested;
    std::vector<SiteRequest> requests = site->requests();
    std::sort(requests.begin(), requests.end(),
              [](const SiteRequest& a, const SiteRequest& b) {
                return a.start < b.start;
              });
    for (size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].path != "/robots.txt") ++requested[requests[i].path];
      if (i == 0) continue;
      // The delay runs from the end of one response to the start of the
      // next; 2 ms of slack for the two processes' clocks reading apart.
      EXPECT_GE(requests[i].start - requests[i - 1].end,
                absl::Seconds(kDelaySeconds) - absl::Milliseconds(2))
          << site->authority() << " " << requests[i - 1].path << " then "
          << requests[i].path;
    }
    for (const auto& [path, n] : requested)
      EXPECT_EQ(n, 1) << site->authority() << path << " requested " << n;
    EXPECT_EQ(site->max_concurrent(), 1) << site->authority();
  }
}

}  // namespace
}  // namespace sieve
