// summary.json's counters through the `sieve` binary: one count per meaning,
// counted once where the thing happens (issue #37, bug 4).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crawler/demo/demo_site.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/crawler/crawl/crawl_test_util.h"

namespace sieve {
namespace {

using testing_util::FreshDir;
using testing_util::ReadFile;
using testing_util::StartSieve;
using testing_util::WaitFor;

// Runs `sieve crawl` of `seed` (a path on `site`) with `flags`; returns its
// summary.json.
nlohmann::json Crawl(const std::string& name, const DemoSite& site,
                     const std::string& seed,
                     const std::vector<std::string>& flags) {
  const std::filesystem::path dir = FreshDir(name);
  std::ofstream(dir / "seeds.txt")
      << "http://" << site.authority() << seed << "\n";
  std::vector<std::string> args = {"crawl",
                                   "--seeds",
                                   (dir / "seeds.txt").string(),
                                   "--out",
                                   (dir / "out").string(),
                                   "--log-level",
                                   "warn",
                                   "--set",
                                   "crawl.sitemaps=off"};
  args.insert(args.end(), flags.begin(), flags.end());
  const int rc = WaitFor(StartSieve(args, dir / "log.txt"));
  EXPECT_EQ(rc, 0) << ReadFile(dir / "log.txt");
  try {
    return nlohmann::json::parse(ReadFile(dir / "out" / "summary.json"));
  } catch (const nlohmann::json::exception& e) {
    ADD_FAILURE() << "summary.json: " << e.what();
    return nlohmann::json::object();
  }
}

TEST(CrawlCountersTest, ThrottledAndGivenUpAreOneCountEach) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.throttle_pages = true});
  ASSERT_TRUE(site.ok()) << site.status();
  const nlohmann::json summary =
      Crawl("counters-throttled", **site, "/throttle/429/",
            {"--delay", "0", "--set", "politeness.max_throttle_retries=1",
             "--set", "politeness.backoff_initial=0.1", "--set",
             "politeness.backoff_max=0.2"});
  int answers_429 = 0;
  for (const SiteRequest& r : (*site)->requests()) {
    if (r.path == "/throttle/429/busy") ++answers_429;
  }
  ASSERT_EQ(answers_429, 2) << "asked once and retried once";
  // Every 429 answer, wherever summary.json shows it.
  EXPECT_EQ(summary["counters"]["throttled"], answers_429) << summary.dump(2);
  EXPECT_EQ(summary["frontier"]["throttled"], answers_429);
  EXPECT_EQ(summary["counters"]["given_up"], 1);
  EXPECT_EQ(summary["frontier"]["given_up"], 1);
}

TEST(CrawlCountersTest, ARedirectRefusedByARuleIsCountedAsALinkRefusedByIt) {
  // /old/5 redirects to /p/38.html, which crawl.deny refuses: counted as a
  // link the deny patterns refused, like the same URL found in a page.
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.pages = 60, .slow_page_delay = absl::ZeroDuration()});
  ASSERT_TRUE(site.ok()) << site.status();
  const nlohmann::json summary =
      Crawl("counters-redirect", **site, "/old/5",
            {"--delay", "0", "--set", "crawl.deny=/p/"});
  EXPECT_EQ(summary["counters"]["redirects"], 1) << summary.dump(2);
  EXPECT_EQ(summary["counters"]["filtered"], 1);
  EXPECT_EQ(summary["counters"]["links_found"], 1);
  EXPECT_EQ(summary["counters"]["links_new"], 0);
}

}  // namespace
}  // namespace sieve
