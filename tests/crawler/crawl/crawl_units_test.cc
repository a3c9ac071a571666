// Unit tests of the crawl's pieces: seed lists, scope and trap control,
// pages.jsonl records, checkpoints' metadata, and the demo site's graph.
#include <filesystem>
#include <fstream>

#include "crawler/cli/seeds.h"
#include "crawler/config/crawl_options.h"
#include "crawler/demo/site_graph.h"
#include "crawler/output/page_record.h"
#include "crawler/output/skipped_log.h"
#include "crawler/policy/link_policy.h"
#include "crawler/policy/scope.h"
#include "crawler/policy/sitemap_mode.h"
#include "crawler/policy/trap_guard.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/common/temp_dir.h"
#include "tests/crawler/crawl/site_answer_key.h"

namespace sieve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

UrlParts Parts(const std::string& url) {
  absl::StatusOr<UrlParts> parts = SplitUrl(url);
  EXPECT_TRUE(parts.ok()) << url;
  return parts.ok() ? *parts : UrlParts{};
}

TEST(SeedsTest, ReadsUrlsSkipsCommentsAndReportsBadLinesWithTheirNumber) {
  SeedList seeds = ParseSeeds(
      "# my seeds\n"
      "HTTP://Example.COM:80/a/../b\n"
      "\n"
      "   https://example.org/  # trailing comment\n"
      "ftp://example.net/\n"
      "not a url at all\n",
      "seeds.txt", {});
  EXPECT_THAT(seeds.urls,
              ElementsAre("http://example.com/b", "https://example.org/"));
  ASSERT_THAT(seeds.problems, SizeIs(2));
  EXPECT_THAT(seeds.problems[0], HasSubstr("seeds.txt:5:"));
  EXPECT_THAT(seeds.problems[1], HasSubstr("seeds.txt:6:"));
}

TEST(SeedsTest, IgnoresAByteOrderMarkAndTakesASchemelessSeedAsHttp) {
  SeedList seeds = ParseSeeds(
      "\xEF\xBB\xBF"
      "example.com/x\r\n"
      "example.com:8080/y\n"
      "https://example.org/\n",
      "seeds.txt", {});
  EXPECT_THAT(seeds.urls,
              ElementsAre("http://example.com/x", "http://example.com:8080/y",
                          "https://example.org/"));
  EXPECT_THAT(seeds.problems, SizeIs(0));
  ASSERT_THAT(seeds.notes, SizeIs(2));
  EXPECT_THAT(seeds.notes[0], HasSubstr("seeds.txt:1: no scheme"));
  EXPECT_THAT(seeds.notes[1], HasSubstr("seeds.txt:2: no scheme"));
}

TEST(RobotsTokenTest, ComesFromTheSettingTheProductNameOrCompatible) {
  CrawlConfig c;
  EXPECT_EQ(*RobotsToken(c), "SieveBot");
  c.fetch.user_agent = "Mozilla/5.0 (compatible; MyBot/1.0; +https://x.test/)";
  EXPECT_EQ(*RobotsToken(c), "MyBot");
  c.fetch.user_agent = "Mozilla/5.0 (X11; Linux x86_64) Firefox/120";
  absl::StatusOr<std::string> refused = RobotsToken(c);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("robots.token"));
  c.robots.token = "OurBot";
  EXPECT_EQ(*RobotsToken(c), "OurBot");
  c.robots.token = "Our Bot/1";
  EXPECT_FALSE(RobotsToken(c).ok());
}

TEST(ScopeTest, ARedirectedSeedsHostJoinsTheScope) {
  absl::StatusOr<Scope> scope =
      Scope::Create({.mode = ScopeMode::kHost}, {"example.com"});
  ASSERT_TRUE(scope.ok());
  EXPECT_EQ(scope->Check(Parts("http://www.example.com/x")),
            ScopeVerdict::kOffSite);
  EXPECT_TRUE(scope->AddSeedHost("www.example.com"));
  EXPECT_FALSE(scope->AddSeedHost("www.example.com"));
  EXPECT_TRUE(scope->IsSeedHost("www.example.com"));
  EXPECT_EQ(scope->Check(Parts("http://www.example.com/x")),
            ScopeVerdict::kInScope);
}

TEST(SeedsTest, AMissingFileIsAnError) {
  EXPECT_FALSE(ReadSeedFile("/nonexistent/seeds.txt", {}).ok());
}

TEST(ScopeTest, HostScopeKeepsTheSeedsHostsWithTheirPorts) {
  absl::StatusOr<Scope> scope = Scope::Create({.mode = ScopeMode::kHost},
                                              {"a.example.com", "b.org:8080"});
  ASSERT_TRUE(scope.ok());
  EXPECT_EQ(scope->Check(Parts("http://a.example.com/x")),
            ScopeVerdict::kInScope);
  EXPECT_EQ(scope->Check(Parts("http://b.org:8080/x")), ScopeVerdict::kInScope);
  EXPECT_EQ(scope->Check(Parts("http://b.org/x")), ScopeVerdict::kOffSite);
  EXPECT_EQ(scope->Check(Parts("http://c.example.com/x")),
            ScopeVerdict::kOffSite);
}

TEST(ScopeTest, DomainScopeUsesThePublicSuffixList) {
  absl::StatusOr<Scope> scope = Scope::Create(
      {.mode = ScopeMode::kDomain}, {"www.example.co.uk", "alice.github.io"});
  ASSERT_TRUE(scope.ok());
  EXPECT_EQ(scope->Check(Parts("http://shop.example.co.uk/")),
            ScopeVerdict::kInScope);
  EXPECT_EQ(scope->Check(Parts("http://other.co.uk/")), ScopeVerdict::kOffSite);
  // github.io is a public suffix: another user's site is another domain.
  EXPECT_EQ(scope->Check(Parts("http://bob.github.io/")),
            ScopeVerdict::kOffSite);
  EXPECT_EQ(Scope::RegistrableDomain("a.b.example.co.uk"), "example.co.uk");
  EXPECT_EQ(Scope::RegistrableDomain("127.0.0.1"), "127.0.0.1");
}

TEST(ScopeTest, AnyScopeStillAppliesPatternsAndTrapControl) {
  absl::StatusOr<Scope> scope = Scope::Create({.mode = ScopeMode::kAny,
                                               .allow = {"/docs/"},
                                               .deny = {"\\.pdf$"},
                                               .max_url_length = 40,
                                               .max_path_segment_repeats = 2},
                                              {"a.com"});
  ASSERT_TRUE(scope.ok());
  EXPECT_EQ(scope->Check(Parts("http://z.net/docs/x")), ScopeVerdict::kInScope);
  EXPECT_EQ(scope->Check(Parts("http://z.net/blog/x")),
            ScopeVerdict::kNotAllowed);
  EXPECT_EQ(scope->Check(Parts("http://z.net/docs/x.pdf")),
            ScopeVerdict::kDenied);
  EXPECT_EQ(scope->Check(Parts("http://z.net/docs/" + std::string(40, 'a'))),
            ScopeVerdict::kTooLong);
  EXPECT_EQ(scope->Check(Parts("http://z.net/docs/a/docs/a/docs/")),
            ScopeVerdict::kRepeatedPath);
}

TEST(ScopeTest, CountsRepeatedSegmentsInShortAndLongPaths) {
  absl::StatusOr<Scope> scope = Scope::Create(
      {.mode = ScopeMode::kAny, .max_path_segment_repeats = 2}, {});
  ASSERT_TRUE(scope.ok());
  std::string distinct = "http://z.net";  // 20 segments, all different.
  for (int i = 0; i < 20; ++i) distinct += "/s" + std::to_string(i);
  EXPECT_EQ(scope->Check(Parts(distinct)), ScopeVerdict::kInScope);
  EXPECT_EQ(scope->Check(Parts(distinct + "/s3/s3")),
            ScopeVerdict::kRepeatedPath);
  EXPECT_EQ(scope->Check(Parts("http://z.net/a/b/a/c/a")),
            ScopeVerdict::kRepeatedPath);
  EXPECT_EQ(scope->Check(Parts("http://z.net/a/b/a/c?a/a/a")),
            ScopeVerdict::kInScope);  // The query is not the path.
}

TEST(ScopeTest, ABadPatternIsAnErrorNamingIt) {
  absl::StatusOr<Scope> bad =
      Scope::Create({.mode = ScopeMode::kHost, .deny = {"(unclosed"}}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("(unclosed"));
}

TEST(ScopeModeTest, NamesRoundTripAndAnUnknownNameListsTheModes) {
  for (ScopeMode mode : AllScopeModes()) {
    EXPECT_EQ(*ParseScopeMode(ScopeModeName(mode)), mode);
  }
  absl::StatusOr<ScopeMode> bad = ParseScopeMode("planet");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().message()),
            "must be one of host, domain, any; got \"planet\"");
}

TEST(OriginTest, RoundTripsHopsAndReferrer) {
  Origin o = Origin::Decode(
      Origin{.redirect_hops = 3, .referrer = "http://a/ b"}.Encode());
  EXPECT_EQ(o.redirect_hops, 3);
  EXPECT_EQ(o.referrer, "http://a/ b");
  EXPECT_EQ(Origin::Decode("").redirect_hops, 0);
}

TEST(OriginTest, RoundTripsASitemapsNestingRobotsMarkAndALastmod) {
  const Origin sitemap =
      Origin::Decode(Origin{.redirect_hops = 1,
                            .referrer = "http://a/robots.txt",
                            .sitemap = true,
                            .sitemap_nesting = 2,
                            .from_robots = true}
                         .Encode());
  EXPECT_TRUE(sitemap.sitemap);
  EXPECT_EQ(sitemap.sitemap_nesting, 2);
  EXPECT_TRUE(sitemap.from_robots);
  EXPECT_EQ(sitemap.redirect_hops, 1);
  EXPECT_EQ(sitemap.referrer, "http://a/robots.txt");
  const Origin page = Origin::Decode(
      Origin{.referrer = "http://a/s.xml", .lastmod = "2024-05-01T10:00Z"}
          .Encode());
  EXPECT_FALSE(page.sitemap);
  EXPECT_EQ(page.lastmod, "2024-05-01T10:00Z");
  EXPECT_EQ(page.referrer, "http://a/s.xml");
  // The old form, "<hops> <referrer>", still decodes (checkpoints of older
  // crawls).
  EXPECT_FALSE(Origin::Decode("0 http://a/").sitemap);
  // A lastmod with a separator in it is dropped, not allowed to break the
  // encoding.
  EXPECT_EQ(Origin::Decode(Origin{.lastmod = "a b"}.Encode()).lastmod, "");
}

TEST(SitemapModeTest, NamesRoundTripAndAnUnknownNameListsThem) {
  for (SitemapSource s : AllSitemapSources()) {
    EXPECT_EQ(*ParseSitemapSource(SitemapSourceName(s)), s);
  }
  for (SitemapLocationRule r : AllSitemapLocationRules()) {
    EXPECT_EQ(*ParseSitemapLocationRule(SitemapLocationRuleName(r)), r);
  }
  absl::StatusOr<SitemapSource> bad = ParseSitemapSource("all");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().message()),
            "must be one of off, robots, robots+probe; got \"all\"");
  EXPECT_FALSE(ParseSitemapLocationRule("loose").ok());
}

TEST(SiteGraphTest, RobotsTxtNamesTheSitemapsAndTheGzipPartIsGzip) {
  SiteGraph site({.pages = 50, .self_authority = "127.0.0.1:9"});
  const SiteResponse robots = site.Respond("/robots.txt");
  for (const std::string& path : SiteGraph::SitemapsInRobots()) {
    EXPECT_THAT(robots.body,
                testing::HasSubstr("Sitemap: http://127.0.0.1:9" + path));
  }
  const SiteResponse part = site.Respond("/sitemaps/part-1.xml.gz");
  EXPECT_EQ(part.content_type, "application/gzip");
  ASSERT_GE(part.body.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(part.body[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(part.body[1]), 0x8b);
  EXPECT_EQ(site.Respond("/same/a.html").body,
            site.Respond("/same/b.html").body);
}

TEST(TrapGuardTest, CapsDateVariantsPerPatternAndQueryVariantsPerPath) {
  TrapGuard guard({.max_query_variants = 2, .max_date_variants = 2});
  // Dated URLs of one pattern: two pass, the third is a calendar trap.
  for (const char* path : {"/cal/2026/11/", "/cal/2026-12/"}) {
    EXPECT_EQ(guard.Admit("h:80", path), TrapKind::kNone) << path;
    guard.Queued("h:80", path);
  }
  EXPECT_EQ(guard.Admit("h:80", "/cal/2027/01/"), TrapKind::kNone)
      << "another pattern (/cal/#/#/ vs /cal/#-#/)";
  guard.Queued("h:80", "/cal/2027/01/");
  EXPECT_EQ(guard.Admit("h:80", "/cal/2027/02/"), TrapKind::kCalendar);
  EXPECT_EQ(guard.Admit("other:80", "/cal/2027/02/"), TrapKind::kNone);
  // Not dates: ids, versions, years without a month.
  for (const char* path : {"/item/2026123456", "/v/2.0.2026", "/y/2026/",
                           "/p/2026/13/", "/n/12026/01/"}) {
    guard.Queued("h:80", path);
    guard.Queued("h:80", path);
    EXPECT_EQ(guard.Admit("h:80", path), TrapKind::kNone) << path;
  }
  EXPECT_EQ(guard.Admit("h:80", "/day/20261122"), TrapKind::kNone);
  guard.Queued("h:80", "/day/20261122");
  guard.Queued("h:80", "/day/20261123");
  EXPECT_EQ(guard.Admit("h:80", "/day/20261124"), TrapKind::kCalendar);
  // Query strings per path.
  guard.Queued("h:80", "/s?a=1");
  guard.Queued("h:80", "/s?a=2");
  EXPECT_EQ(guard.Admit("h:80", "/s?a=3"), TrapKind::kQueryVariants);
  EXPECT_EQ(guard.Admit("h:80", "/s"), TrapKind::kNone);
  EXPECT_EQ(guard.Admit("h:80", "/t?a=3"), TrapKind::kNone);
}

TEST(TrapGuardTest, FindsAndCutsSessionIds) {
  const std::vector<std::string> names = {"phpsessid", "aspsessionid*", "sid"};
  EXPECT_TRUE(
      TrapGuard::HasSessionIdParam("http://h/a?x=1&PHPSESSID=9", names));
  EXPECT_TRUE(
      TrapGuard::HasSessionIdParam("http://h/a?ASPSESSIONIDQ=9#f", names));
  EXPECT_FALSE(TrapGuard::HasSessionIdParam("http://h/a?side=1", names));
  EXPECT_FALSE(TrapGuard::HasSessionIdParam("http://h/sid=1", names));
  EXPECT_EQ(TrapGuard::StripPathSessionId("http://h/a.jsp;JSESSIONID=AB12?x=1"),
            "http://h/a.jsp?x=1");
  EXPECT_EQ(TrapGuard::StripPathSessionId("http://h/a;jsessionid=1/b"),
            "http://h/a/b");
  EXPECT_EQ(TrapGuard::StripPathSessionId("http://h/a?q=;jsessionid=1"),
            std::nullopt);
}

TEST(LinkPolicyTest, RecognisesHtmlContentTypes) {
  EXPECT_TRUE(IsHtml("text/html"));
  EXPECT_TRUE(IsHtml("Text/HTML; charset=utf-8"));
  EXPECT_TRUE(IsHtml("application/xhtml+xml"));
  EXPECT_FALSE(IsHtml("application/pdf"));
  EXPECT_FALSE(IsHtml(""));
}

TEST(PageRecordTest, HasEveryFieldAndNullForWhatIsMissing) {
  nlohmann::json j = nlohmann::json::parse(
      PageRecordToJson(PageRecord{.url = "http://a/",
                                  .fetched_at = absl::FromUnixMillis(1250),
                                  .status = 404,
                                  .error = "http_404"}));
  for (const char* field :
       {"url", "fetched_at", "status", "content_type", "bytes", "fetch_ms",
        "depth", "discovered_from", "links_found", "links_new", "error"}) {
    EXPECT_TRUE(j.contains(field)) << field;
  }
  EXPECT_TRUE(j["discovered_from"].is_null());
  EXPECT_EQ(j["error"], "http_404");
  EXPECT_FALSE(j.contains("redirect_to"));
  EXPECT_FALSE(j.contains("final_url"));  // Never differs from url.
  EXPECT_EQ(j["fetched_at"], "1970-01-01T00:00:01.250Z");
}

TEST(PagesWriterTest, AppendsLinesAndTruncatesBackToAnOffset) {
  const test::ScopedTempDir dir;
  const std::filesystem::path path = dir / "pages.jsonl";
  uint64_t first_offset = 0;
  {
    auto writer = PagesWriter::Open(path);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Write(PageRecord{.url = "http://a/1"}).ok());
    first_offset = (*writer)->offset();
    ASSERT_TRUE((*writer)->Write(PageRecord{.url = "http://a/2"}).ok());
  }
  ASSERT_TRUE(PagesWriter::TruncateTo(path, first_offset).ok());
  std::ifstream in(path);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_THAT(line, HasSubstr("http://a/1"));
  }
  EXPECT_EQ(lines, 1);
}

TEST(SkippedLogTest, WritesEachUrlOncePerReasonAlsoAfterReopening) {
  const test::ScopedTempDir dir;
  const std::filesystem::path path = dir / "skipped.jsonl";
  uint64_t offset = 0;
  {
    auto log = SkippedLog::Open(path);
    ASSERT_TRUE(log.ok()) << log.status();
    EXPECT_TRUE(*(*log)->Add("http://a/x", "http://a/", SkipReason::kRobots));
    EXPECT_FALSE(*(*log)->Add("http://a/x", "http://a/2", SkipReason::kRobots));
    EXPECT_TRUE(*(*log)->Add("http://a/x", "", SkipReason::kMaxDepth));
    offset = (*log)->offset();
    EXPECT_TRUE(*(*log)->Add("http://a/y", "http://a/", SkipReason::kNofollow));
  }
  // A resume cuts the file back to its checkpoint and reopens it: what is
  // kept is not written again, what was cut is.
  ASSERT_TRUE(PagesWriter::TruncateTo(path, offset).ok());
  {
    auto log = SkippedLog::Open(path);
    ASSERT_TRUE(log.ok()) << log.status();
    EXPECT_FALSE(*(*log)->Add("http://a/x", "http://a/3", SkipReason::kRobots));
    EXPECT_TRUE(*(*log)->Add("http://a/y", "http://a/", SkipReason::kNofollow));
  }
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], nlohmann::json::parse(R"({"url":"http://a/x",
      "found_on":"http://a/","reason":"robots"})"));
  EXPECT_TRUE(lines[1]["found_on"].is_null());
  EXPECT_EQ(lines[2]["reason"], "nofollow");
}

TEST(OriginTest, RoundTripsTheRequisiteMark) {
  const Origin o = Origin::Decode(
      Origin{.redirect_hops = 2, .referrer = "http://a/", .requisite = true}
          .Encode());
  EXPECT_TRUE(o.requisite);
  EXPECT_EQ(o.redirect_hops, 2);
  EXPECT_EQ(o.referrer, "http://a/");
  EXPECT_FALSE(
      Origin::Decode(Origin{.referrer = "http://a/"}.Encode()).requisite);
}

TEST(SiteGraphTest, TheGraphIsDeterministicAndHasEveryKindOfPage) {
  SiteGraph site({.pages = 200});
  EXPECT_EQ(site.Respond("/p/7.html").body,
            SiteGraph({.pages = 200}).Respond("/p/7.html").body);
  EXPECT_EQ(site.Respond("/old/1").status, 301);
  EXPECT_EQ(site.Respond("/missing/3.html").status, 404);
  EXPECT_EQ(site.Respond("/files/4.pdf").content_type, "application/pdf");
  // The links the answer key follows are the links the page shows.
  const std::vector<SiteGraph::OutLink> links = site.LinksOn("/p/7.html").links;
  ASSERT_FALSE(links.empty());
  for (const SiteGraph::OutLink& link : links)
    EXPECT_THAT(site.Respond("/p/7.html").body, HasSubstr(link.href));
  EXPECT_TRUE(site.LinksOn("/p/13.html").meta_nofollow);
  EXPECT_THAT(site.Respond("/p/13.html").body, HasSubstr("nofollow"));
  testing_util::ExpectedCrawl crawl = testing_util::Expected(site);
  EXPECT_TRUE(crawl.fetched.contains("/p/199.html"));
  EXPECT_TRUE(crawl.fetched.contains("/t/x/x/x/"));
  EXPECT_FALSE(crawl.fetched.contains("/t/x/x/x/x/"));
  EXPECT_FALSE(crawl.fetched.contains("/private/10.html"));
  EXPECT_TRUE(crawl.redirect_errors.contains("/chain/9/2"));
  EXPECT_FALSE(crawl.fetched.contains("/chain/9/1"));
  for (const auto& [path, depth] : crawl.fetched) {
    EXPECT_FALSE(SiteGraph::MustNotBeRequested(path)) << path;
  }
}

}  // namespace
}  // namespace sieve
