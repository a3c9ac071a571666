// Records a user can join and replay (issue 27), through the binary:
// fetched_at on every record, monotone within a host; redirect_to exactly the
// url of its target's record (a Location not in normal form included); the
// server's IP and HTTP version; the payload digest on every 2xx; started_at,
// finished_at and stopped_because in summary.json; no final_url.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "crawler/demo/demo_site.h"
#include "crawler/output/warc_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parse/url.h"
#include "re2/re2.h"
#include "tests/crawler/crawl/crawl_test_util.h"

namespace sieve {
namespace {

using ::testing::HasSubstr;
using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

TEST(CrawlRecordsTest, RecordsCanBeJoinedAndDated) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.pages = 40,
                       .slow_page_delay = absl::ZeroDuration(),
                       .charset_pages = true});
  ASSERT_TRUE(site.ok()) << site.status();
  const std::filesystem::path dir = FreshDir("records");
  const std::filesystem::path out = dir / "out";
  // A small delay: a host's next fetch starts after its last page parsed.
  ASSERT_EQ(
      WaitFor(StartSieve(
          {"crawl", (*site)->root_url(), (*site)->root_url() + "charset/",
           "--out", out.string(), "--delay", "0.02", "--log-level", "info"},
          dir / "log.txt")),
      0)
      << ReadFile(dir / "log.txt");
  const std::vector<nlohmann::json> pages = ReadPages(out);
  ASSERT_GT(pages.size(), 40u);

  const RE2 rfc3339(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\d\dZ)");
  std::map<std::string, std::string> last_by_host;
  std::set<std::string> urls;
  std::string first_at = "~", last_at;
  for (const nlohmann::json& r : pages) {
    const std::string url = r["url"];
    urls.insert(url);
    EXPECT_FALSE(r.contains("final_url")) << url;
    ASSERT_TRUE(r.contains("fetched_at")) << url;
    const std::string at = r["fetched_at"];
    EXPECT_TRUE(RE2::FullMatch(at, rfc3339)) << at;
    const std::string host = SplitUrl(url)->Authority();
    EXPECT_GE(at, last_by_host[host]) << url << " fetched before the last";
    last_by_host[host] = at;
    first_at = std::min(first_at, at);
    last_at = std::max(last_at, at);
    if (r["status"] != 0) {
      EXPECT_EQ(r["ip"], "127.0.0.1") << url;
      EXPECT_EQ(r["http_version"], "1.1") << url;
    }
    const int status = r["status"];
    if (status >= 200 && status < 300) {
      ASSERT_TRUE(r.contains("digest")) << url;
      EXPECT_THAT(r["digest"].get<std::string>(),
                  ::testing::MatchesRegex("sha1:[A-Z2-7]{32}"));
    } else {
      EXPECT_FALSE(r.contains("digest")) << url;
    }
  }
  // The digest is the body's, in the WARC payload-digest form.
  for (const nlohmann::json& r : pages) {
    if (PathOf(r["url"]) != "/p/1.html") continue;
    EXPECT_EQ(r["digest"],
              Sha1Digest((*site)->graph().Respond("/p/1.html").body));
  }

  // Every redirect joins its target's record.
  int redirects = 0;
  bool quoted = false;
  for (const nlohmann::json& r : pages) {
    if (!r.contains("redirect_to") || !r["error"].is_null()) continue;
    ++redirects;
    const std::string target = r["redirect_to"];
    EXPECT_TRUE(urls.contains(target)) << r["url"] << " -> " << target;
    if (PathOf(r["url"]) == "/charset/moved") {
      quoted = true;
      EXPECT_EQ(PathOf(target), "/charset/caf%E9%20%22q%22.html");
    }
  }
  EXPECT_GE(redirects, 3);
  EXPECT_TRUE(quoted) << "the /charset/moved redirect was recorded";

  const nlohmann::json summary =
      nlohmann::json::parse(ReadFile(out / "summary.json"));
  EXPECT_EQ(summary["stopped_because"], "finished");
  EXPECT_FALSE(summary.contains("stop_reason"));
  const std::string started = summary["started_at"];
  const std::string finished = summary["finished_at"];
  EXPECT_TRUE(RE2::FullMatch(started, rfc3339)) << started;
  EXPECT_LE(started, first_at);
  EXPECT_GE(finished, last_at);
}

}  // namespace
}  // namespace sieve
