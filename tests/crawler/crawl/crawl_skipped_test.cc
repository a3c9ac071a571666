// Every URL's fate and page requisites, through the `sieve` binary:
//   - skipped.jsonl holds one record per URL found and not fetched, with the
//     page it was found on and its reason, once per URL and reason; every
//     reason the test site can produce is there, and summary.json's counts
//     per reason equal the file's; a seed robots.txt disallows is in it;
//     the URLs a host's page cap discards are in it (host_page_cap).
//   - --page-requisites fetches a page's images (src and srcset), stylesheets
//     (and their url()s and @imports), scripts and icon once each, records
//     them with "requisite": true, archives them (--warc) and warcio indexes
//     them; a script is never parsed for links.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "crawler/demo/demo_site.h"
#include "crawler/policy/skip_reason.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/crawl_warc_check.h"
#include "tests/crawler/crawl/site_answer_key.h"
#include "tests/crawler/output/warc_test_util.h"

namespace sieve {
namespace {

using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

std::vector<nlohmann::json> ReadJsonLines(const std::filesystem::path& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    try {
      out.push_back(nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception& e) {
      ADD_FAILURE() << path << ": bad line: " << line << ": " << e.what();
    }
  }
  return out;
}

// Runs `sieve crawl` over `seeds` (paths on `site`) with `config` (TOML) and
// `flags`; returns the output directory.
std::filesystem::path Crawl(const std::string& name, const DemoSite& site,
                            const std::vector<std::string>& seeds,
                            const std::string& config,
                            const std::vector<std::string>& flags) {
  const std::filesystem::path dir = FreshDir(name);
  std::string seed_text;
  for (const std::string& seed : seeds)
    absl::StrAppend(&seed_text, "http://", site.authority(), seed, "\n");
  std::ofstream(dir / "seeds.txt") << seed_text;
  std::ofstream(dir / "config.toml") << config;
  std::vector<std::string> args = {"crawl",
                                   "--seeds",
                                   (dir / "seeds.txt").string(),
                                   "--out",
                                   (dir / "out").string(),
                                   "--config",
                                   (dir / "config.toml").string(),
                                   "--delay",
                                   "0",
                                   "--log-level",
                                   "warn"};
  args.insert(args.end(), flags.begin(), flags.end());
  const int rc = WaitFor(StartSieve(args, dir / "log.txt"));
  EXPECT_EQ(rc, 0) << ReadFile(dir / "log.txt");
  return dir / "out";
}

// Settings every crawl here shares: fast on loopback. Each adds its own
// [crawl] table.
constexpr char kFastConfig[] = R"(
[politeness]
per_host_connections = 4
max_error_retries = 0
[fetch]
concurrency = 8
timeout = 2.0
connect_timeout = 1.0
[sieve]
expected_urls = 100000
fp_rate = 0.000001
)";

TEST(CrawlSkippedTest, EveryReasonTheSiteCanProduceIsInSkippedJsonl) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.pages = 60,
                       .slow_page_delay = absl::ZeroDuration(),
                       .traps = true,
                       .requisite_pages = true});
  ASSERT_TRUE(site.ok()) << site.status();
  // Each rule set tight enough that the small site meets it; the seeds reach
  // the pages that carry each kind of link (see crawler/demo/site_graph.h).
  const std::string config = absl::StrCat(kFastConfig, R"toml(
[crawl]
parser_threads = 2
max_depth = 3
max_outlinks_per_page = 6
max_query_variants_per_path = 2
max_date_variants_per_path = 2
max_path_segment_repeats = 1
sitemap_location = "strict"
deny = ["/missing/"]
allow = ["^http://127\\.0\\.0\\.1:\\d+/($|p/|t/|shop/|search|cal/|chain/|old/|req/|nofollow/|private/|missing/|sitemaps/|robots)"]
)toml");
  const std::filesystem::path out =
      Crawl("skipped", **site,
            {"/", "/req/", "/t/x/", "/private/1.html", "/chain/9/7",
             "/p/3.html", "/p/6.html", "/p/7.html"},
            config, {"--page-requisites"});

  const std::vector<nlohmann::json> skipped =
      ReadJsonLines(out / "skipped.jsonl");
  std::map<std::string, uint64_t> file_counts;
  std::set<std::pair<std::string, std::string>> seen;  // (reason, url)
  for (const nlohmann::json& r : skipped) {
    ASSERT_TRUE(r.contains("url") && r.contains("found_on") &&
                r.contains("reason"))
        << r.dump();
    const std::string reason = r["reason"];
    EXPECT_TRUE(ParseSkipReason(reason).has_value()) << r.dump();
    EXPECT_TRUE(seen.insert({reason, r["url"]}).second)
        << "written twice: " << r.dump();
    ++file_counts[reason];
  }
  // Every reason this site produces; trap_repeat from /t/x/, max_redirects
  // from /chain/9/7, blocked_address from the requisite on localhost,
  // sitemap_location from the strict rule...
  for (const std::string_view reason :
       {"robots", "off_scope", "nofollow", "max_depth", "trap_query",
        "trap_calendar", "trap_session", "trap_repeat", "trap_length",
        "outlink_cap", "deny_pattern", "not_allowed", "blocked_address",
        "max_redirects", "sitemap_location"}) {
    EXPECT_GT(file_counts[std::string(reason)], 0u) << reason;
  }
  // The summary counts each reason as the file does, every reason present.
  const nlohmann::json summary =
      nlohmann::json::parse(ReadFile(out / "summary.json"));
  const nlohmann::json& counts = summary["counters"]["skipped"];
  for (SkipReason reason : AllSkipReasons()) {
    const std::string name(SkipReasonName(reason));
    ASSERT_TRUE(counts.contains(name)) << name << " in " << counts.dump();
    EXPECT_EQ(counts[name].get<uint64_t>(), file_counts[name]) << name;
  }
  // The seed robots.txt disallows: found on no page.
  const std::string private_seed =
      absl::StrCat("http://", (*site)->authority(), "/private/1.html");
  bool seed_found = false;
  for (const nlohmann::json& r : skipped) {
    if (r["url"] == private_seed && r["reason"] == "robots") {
      seed_found = true;
      EXPECT_TRUE(r["found_on"].is_null()) << r.dump();
    }
  }
  EXPECT_TRUE(seed_found) << private_seed;
  // A link's record names its page.
  for (const nlohmann::json& r : skipped) {
    if (r["reason"] == "deny_pattern") {
      EXPECT_EQ(PathOf(r["found_on"]), "/p/3.html") << r.dump();
    }
  }
  // A URL refused for what it is (not for the path that led to it) was never
  // fetched; one refused for its path (nofollow, max_depth, outlink_cap, the
  // variant caps) may have been, through another link (docs/crawling.md).
  std::set<std::string> fetched;
  for (const nlohmann::json& page : ReadPages(out)) fetched.insert(page["url"]);
  const std::set<std::string> intrinsic = {
      "robots",      "off_scope",   "not_allowed",  "deny_pattern",
      "trap_length", "trap_repeat", "trap_session", "sitemap_location"};
  for (const nlohmann::json& r : skipped) {
    if (!intrinsic.contains(r["reason"])) continue;
    EXPECT_FALSE(fetched.contains(r["url"])) << r.dump();
  }
}

// A host past --max-pages-per-host: every link its fetched pages hold to a page
// a whole crawl would fetch was fetched or recorded, the URLs the cap
// discarded (queued before it, or found after it) as host_page_cap, none of
// them fetched, and the summary counts them as the file does.
TEST(CrawlSkippedTest, UrlsPastTheHostPageCapAreRecorded) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.pages = 40, .slow_page_delay = absl::ZeroDuration()});
  ASSERT_TRUE(site.ok()) << site.status();
  const std::filesystem::path out =
      Crawl("skipped-cap", **site, {"/"},
            absl::StrCat(kFastConfig, "[crawl]\nparser_threads = 2\n"),
            {"--max-pages-per-host", "8"});

  std::set<std::string> fetched;  // paths
  for (const nlohmann::json& page : ReadPages(out)) {
    fetched.insert(PathOf(page["url"]));
  }
  EXPECT_EQ(fetched.size(), 8u);
  std::set<std::string> skipped;  // paths, any reason
  uint64_t capped = 0;
  for (const nlohmann::json& r : ReadJsonLines(out / "skipped.jsonl")) {
    skipped.insert(PathOf(r["url"]));
    if (r["reason"] != "host_page_cap") continue;
    ++capped;
    EXPECT_FALSE(fetched.contains(PathOf(r["url"]))) << r.dump();
    // Found on a fetched page, or a seed.
    if (!r["found_on"].is_null()) {
      EXPECT_TRUE(fetched.contains(PathOf(r["found_on"]))) << r.dump();
    }
  }
  EXPECT_GT(capped, 0u);
  const testing_util::ExpectedCrawl key =
      testing_util::Expected((*site)->graph());
  for (const std::string& page : fetched) {
    for (const SiteGraph::OutLink& link :
         (*site)->graph().LinksOn(page).links) {
      if (!key.fetched.contains(link.path)) continue;
      EXPECT_TRUE(fetched.contains(link.path) || skipped.contains(link.path))
          << link.path << " (linked from " << page << ") has no fate on disk";
    }
  }
  const nlohmann::json summary =
      nlohmann::json::parse(ReadFile(out / "summary.json"));
  EXPECT_EQ(summary["counters"]["skipped"]["host_page_cap"].get<uint64_t>(),
            capped);
}

TEST(CrawlSkippedTest, OutputSkippedFalseWritesNoFile) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.pages = 20, .slow_page_delay = absl::ZeroDuration()});
  ASSERT_TRUE(site.ok()) << site.status();
  const std::filesystem::path out =
      Crawl("skipped-off", **site, {"/", "/private/1.html"},
            absl::StrCat(kFastConfig,
                         "[crawl]\nparser_threads = 2\n"
                         "[output]\nskipped = false\n"),
            {});
  EXPECT_FALSE(std::filesystem::exists(out / "skipped.jsonl"));
  EXPECT_FALSE(ReadPages(out).empty());
}

TEST(CrawlSkippedTest, PageRequisitesAreFetchedOnceRecordedAndArchived) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.pages = 20,
                       .slow_page_delay = absl::ZeroDuration(),
                       .requisite_pages = true});
  ASSERT_TRUE(site.ok()) << site.status();
  const std::filesystem::path out =
      Crawl("requisites", **site, {"/req/"},
            // No requisite matches the allow pattern: they are exempt.
            absl::StrCat(kFastConfig,
                         "[crawl]\nparser_threads = 2\nmax_depth = 1\n"
                         "allow = [\"/req/$\"]\n"),
            {"--page-requisites", "--warc", "--sitemaps", "off"});
  std::map<std::string, int> requested;
  for (const SiteRequest& r : (*site)->requests()) ++requested[r.path];
  const std::vector<std::string> requisites = SiteGraph::RequisitesOf("/req/");
  ASSERT_FALSE(requisites.empty());
  for (const std::string& path : requisites) {
    EXPECT_EQ(requested[path], 1) << path;
  }
  // A script is not parsed, a CSS comment holds no url(), and the off-site
  // image lies on a private address the guard refuses.
  EXPECT_EQ(requested["/req/never.html"], 0);
  EXPECT_EQ(requested["/req/comment.png"], 0);
  EXPECT_EQ(requested["/req/offsite.png"], 0);

  std::map<std::string, nlohmann::json> records;  // By path.
  for (const nlohmann::json& page : ReadPages(out)) {
    records[PathOf(page["url"])] = page;
  }
  for (const std::string& path : requisites) {
    ASSERT_TRUE(records.contains(path)) << path;
    EXPECT_EQ(records[path].value("requisite", false), true)
        << records[path].dump();
    EXPECT_EQ(records[path]["status"], path == "/req/moved.png" ? 301 : 200)
        << records[path].dump();
  }
  EXPECT_FALSE(records["/req/"].contains("requisite"));
  EXPECT_FALSE(records.contains("/p/0.html"));  // A link, not allowed.

  // In the WARC (digests, CDXJ and pages.jsonl offsets verified), and warcio
  // indexes them.
  testing_util::CrawlWarc warc = testing_util::CheckCrawlWarc(out);
  for (const std::string& path : requisites) {
    const std::string url = absl::StrCat("http://", (*site)->authority(), path);
    EXPECT_EQ(warc.responses[url], 1) << url;
  }
  const std::string warcio = testing_warc::FindWarcio();
  if (warcio.empty()) {
    GTEST_SKIP() << "warcio not found (scripts/install-deps.sh installs it "
                    "with npm; or set SIEVE_WARCIO): independent check skipped";
  }
  std::set<std::string> indexed;
  for (const std::filesystem::path& file : warc.files) {
    const std::string command = absl::StrCat(warcio, " index ", file.string(),
                                             " --fields warc-target-uri");
    FILE* pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string text;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof(buf), pipe)) > 0;)
      text.append(buf, n);
    EXPECT_EQ(pclose(pipe), 0) << command << "\n" << text;
    for (absl::string_view line :
         absl::StrSplit(text, '\n', absl::SkipEmpty())) {
      const nlohmann::json j = nlohmann::json::parse(line);
      if (j.contains("warc-target-uri"))
        indexed.insert(PathOf(j["warc-target-uri"]));
    }
  }
  for (const std::string& path : requisites) {
    EXPECT_TRUE(indexed.contains(path)) << path << " not indexed by warcio";
  }
}

}  // namespace
}  // namespace sieve
