// The crawl's politeness as the server sees it: one owner (the frontier) for
// delays, back-off and retries, checked from the test site's request log.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
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

constexpr absl::Duration kDelay = absl::Milliseconds(200);

CrawlConfig ThrottleConfig(const std::string& name, int retries) {
  CrawlConfig c = FastConfig(FreshDir(name));
  c.politeness.delay = absl::ToDoubleSeconds(kDelay);
  c.politeness.per_host_connections = 1;
  c.politeness.max_throttle_retries = retries;
  c.politeness.backoff_initial = 0.3;
  c.politeness.backoff_max = 2;
  // The test site's sitemaps lead into its 3,000-page graph: not here.
  c.crawl.sitemaps = SitemapSource::kOff;
  return c;
}

std::map<std::string, int> RequestsByPath(const DemoSite& site) {
  std::map<std::string, int> by_path;
  for (const SiteRequest& r : site.requests()) ++by_path[r.path];
  return by_path;
}

// Every request starts at least `gap` after the previous response to the host
// ended (the server's clock: the crawler's is later still).
void ExpectSpacedBy(const DemoSite& site, absl::Duration gap) {
  std::vector<SiteRequest> requests = site.requests();
  std::sort(requests.begin(), requests.end(),
            [](const SiteRequest& a, const SiteRequest& b) {
              return a.start < b.start;
            });
  for (size_t i = 1; i < requests.size(); ++i) {
    EXPECT_GE(requests[i].start - requests[i - 1].end, gap)
        << requests[i - 1].path << " then " << requests[i].path;
    EXPECT_GE(requests[i].start, requests[i - 1].end)
        << "two requests at once: " << requests[i].path;
  }
}

TEST(CrawlPolitenessTest, AUrlAlwaysAnswering429IsTriedItsRetriesPlusOneTimes) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.throttle_pages = true});
  ASSERT_TRUE(site.ok()) << site.status();
  constexpr int kRetries = 3;
  CrawlConfig config = ThrottleConfig("throttle-429", kRetries);
  const std::string root = absl::StrCat((*site)->root_url(), "throttle/429/");
  absl::StatusOr<CrawlSummary> summary = CrawlInProcess(config, {root});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->stop_reason, StopReason::kFinished);

  std::map<std::string, int> requests = RequestsByPath(**site);
  EXPECT_EQ(requests["/throttle/429/busy"], kRetries + 1);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(requests[absl::StrCat("/throttle/429/ok/", i)], 1) << i;
  }
  ExpectSpacedBy(**site, kDelay);

  int busy_records = 0;
  for (const nlohmann::json& page : ReadPages(config.crawl.out)) {
    if (PathOf(page["url"]) != "/throttle/429/busy") continue;
    ++busy_records;
    EXPECT_EQ(page["status"], 429);
    EXPECT_EQ(page["error"], "throttled");
    EXPECT_THAT(page["error_detail"].get<std::string>(),
                ::testing::HasSubstr("given up"));
  }
  EXPECT_EQ(busy_records, 1);
  EXPECT_EQ(summary->frontier.given_up, 1u);
  // Every 429 answer (the last one, given up, too): the frontier's count.
  EXPECT_EQ(summary->frontier.throttled, static_cast<uint64_t>(kRetries + 1));
}

TEST(CrawlPolitenessTest, AHostsOtherUrlsGoRightAfterTheFirstBackOff) {
  // busy is linked first, so it is asked first; after its first 429 and the
  // back-off, the host's ten good pages go, and busy's retries after them.
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.throttle_pages = true});
  ASSERT_TRUE(site.ok()) << site.status();
  constexpr int kRetries = 3;
  CrawlConfig config = ThrottleConfig("throttle-429-order", kRetries);
  const std::string root = absl::StrCat((*site)->root_url(), "throttle/429/");
  absl::StatusOr<CrawlSummary> summary = CrawlInProcess(config, {root});
  ASSERT_TRUE(summary.ok()) << summary.status();

  std::vector<absl::Time> busy;
  absl::Time last_ok = absl::InfinitePast();
  for (const SiteRequest& r : (*site)->requests()) {
    if (r.path == "/throttle/429/busy") busy.push_back(r.start);
    if (absl::StartsWith(r.path, "/throttle/429/ok/")) {
      last_ok = std::max(last_ok, r.start);
    }
  }
  ASSERT_EQ(busy.size(), static_cast<size_t>(kRetries + 1));
  std::sort(busy.begin(), busy.end());
  EXPECT_LT(busy[0], last_ok);
  EXPECT_GT(busy[1], last_ok) << "the good pages waited for busy's retries";
}

TEST(CrawlPolitenessTest, RetryAfterHoldsTheWholeHostBack) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.throttle_pages = true});
  ASSERT_TRUE(site.ok()) << site.status();
  CrawlConfig config = ThrottleConfig("throttle-503", /*retries=*/1);
  const std::string root = absl::StrCat((*site)->root_url(), "throttle/503/");
  absl::StatusOr<CrawlSummary> summary = CrawlInProcess(config, {root});
  ASSERT_TRUE(summary.ok()) << summary.status();

  std::vector<SiteRequest> requests = (*site)->requests();
  int busy = 0;
  for (const SiteRequest& answer : requests) {
    if (answer.path != "/throttle/503/busy") continue;
    ++busy;
    // Retry-After: 2 asks for 2 s of quiet from the host, for every URL.
    for (const SiteRequest& next : requests) {
      EXPECT_FALSE(next.start > answer.end &&
                   next.start < answer.end + absl::Seconds(2))
          << next.path << " came " << (next.start - answer.end)
          << " after the 503";
    }
  }
  EXPECT_EQ(busy, 2);  // Once, and once more after the back-off.
  std::map<std::string, int> by_path = RequestsByPath(**site);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(by_path[absl::StrCat("/throttle/503/ok/", i)], 1) << i;
  }
  EXPECT_EQ(summary->frontier.given_up, 1u);
}

}  // namespace
}  // namespace sieve
