// The crawl loop's owners on their own (crawler/loop/record_sink.h,
// crawl_reporter.h, robots_gate.h, crawler/policy/link_fate.h): what each counts and
// writes.
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "crawler/config/crawl_options.h"
#include "crawler/logging.h"
#include "crawler/loop/crawl_reporter.h"
#include "crawler/loop/record_sink.h"
#include "crawler/loop/robots_gate.h"
#include "crawler/policy/link_fate.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"

namespace sieve {
namespace {

using testing_util::FreshDir;
using testing_util::ReadPages;

TEST(LinkFateTest, EachRefusalHasOneReasonAndOneCounter) {
  LinkFateCounts counts;
  counts.Count(AddOutcome::kQueued);
  counts.Count(AddOutcome::kSeen);
  counts.Count(AddOutcome::kDenied);
  counts.Count(AddOutcome::kNotAllowed);
  counts.Count(AddOutcome::kCalendar);
  counts.Count(AddOutcome::kDisallowed);
  EXPECT_EQ(counts.queued, 1);
  EXPECT_EQ(counts.filtered, 2u);
  EXPECT_EQ(counts.traps, 1u);
  EXPECT_EQ(counts.calendar_traps, 1u);
  EXPECT_EQ(counts.query_variant_traps, 0u);
  EXPECT_EQ(counts.robots_disallowed, 1u);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kDenied), SkipReason::kDenyPattern);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kDisallowed), SkipReason::kRobots);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kSeen), std::nullopt);
  EXPECT_EQ(AddOutcome::kInScope, AddOutcome::kQueued);
}

TEST(RecordSinkTest, CountsWhatItWritesAndSkipsEachUrlOncePerReason) {
  const std::filesystem::path out = FreshDir("record-sink");
  CrawlCounters counters;
  CrawlState state;
  absl::StatusOr<std::unique_ptr<RecordSink>> sink = RecordSink::Open(
      out, /*resume=*/false, state, /*skipped=*/true, counters, nullptr);
  ASSERT_TRUE(sink.ok()) << sink.status();
  PageRecord page{.url = "http://a.test/", .status = 200, .bytes = 10};
  page.links_found = 3;
  page.links_new = 2;
  ASSERT_TRUE((*sink)->Write(page).ok());
  PageRecord sitemap{.url = "http://a.test/sitemap.xml", .status = 404};
  sitemap.links_found = 5;
  sitemap.error = "http_4xx";
  ASSERT_TRUE((*sink)->Write(sitemap, /*count_links=*/false).ok());
  LinkOutcomes links;
  links.Count(AddOutcome::kOffSite);
  links.skipped.push_back(
      {.url = "http://b.test/", .reason = SkipReason::kOffScope});
  links.skipped.push_back(
      {.url = "http://b.test/", .reason = SkipReason::kOffScope});
  ASSERT_TRUE((*sink)->CountLinks(links, page.url).ok());
  ASSERT_TRUE((*sink)->Sync(state).ok());

  EXPECT_EQ(counters.pages, 2u);
  EXPECT_EQ(counters.bytes, 10u);
  EXPECT_EQ(counters.links_found, 3u) << "a sitemap's entries are not links";
  EXPECT_EQ(counters.links_new, 2u);
  EXPECT_EQ(counters.failures[static_cast<size_t>(FailureCode::kHttp4xx)], 1u);
  EXPECT_EQ(counters.off_site, 1u);
  EXPECT_EQ(counters.skipped[static_cast<size_t>(SkipReason::kOffScope)], 1u);
  EXPECT_EQ((*sink)->status_classes()[2], 1u);
  EXPECT_EQ((*sink)->status_classes()[4], 1u);
  EXPECT_EQ(ReadPages(out).size(), 2u);
  EXPECT_EQ(state.pages_offset,
            std::filesystem::file_size(out / "pages.jsonl"));
  EXPECT_EQ(state.skipped_offset,
            std::filesystem::file_size(out / "skipped.jsonl"));
}

// A frontier of `config` holding `n` URLs of one host.
std::unique_ptr<CrawlFrontier> FrontierWith(const CrawlConfig& config,
                                            const std::filesystem::path& dir,
                                            int n) {
  absl::StatusOr<std::unique_ptr<CrawlFrontier>> frontier =
      CreateFrontier(config, dir);
  EXPECT_TRUE(frontier.ok()) << frontier.status();
  for (int i = 0; i < n; ++i) {
    (*frontier)->Add(absl::StrCat("http://a.test/", i), "a.test", 0, "");
  }
  return *std::move(frontier);
}

TEST(CrawlReporterTest, WarnsPastCapacityOnceAndAgainAtEachDoubling) {
  CrawlConfig config;
  config.sieve.expected_urls = 100;
  config.sieve.on_capacity = CapacityPolicy::kWarn;
  const std::filesystem::path dir = FreshDir("reporter-capacity");
  std::unique_ptr<CrawlFrontier> frontier = FrontierWith(config, dir, 150);
  CrawlCounters counters;
  absl::StatusOr<std::unique_ptr<CrawlReporter>> reporter =
      CrawlReporter::Create({.config = &config,
                             .counters = &counters,
                             .frontier = frontier.get()},
                            *MakeStderrLogger("warn"), /*live=*/false);
  ASSERT_TRUE(reporter.ok()) << reporter.status();
  EXPECT_FALSE((*reporter)->CheckCapacity(/*stopping=*/false));
  EXPECT_FALSE((*reporter)->CheckCapacity(/*stopping=*/false));
  EXPECT_EQ(counters.capacity_warnings, 1u) << "about 150 of 100: once";
  for (int i = 150; i < 300; ++i) {
    frontier->Add(absl::StrCat("http://a.test/", i), "a.test", 0, "");
  }
  (*reporter)->CheckCapacity(/*stopping=*/false);
  (*reporter)->CheckCapacity(/*stopping=*/false);
  EXPECT_EQ(counters.capacity_warnings, 2u) << "about 300: past 200 only";
}

TEST(CrawlReporterTest, AsksToStopAtCapacityWithOnCapacityStop) {
  CrawlConfig config;
  config.sieve.expected_urls = 100;
  config.sieve.on_capacity = CapacityPolicy::kStop;
  const std::filesystem::path dir = FreshDir("reporter-stop");
  std::unique_ptr<CrawlFrontier> frontier = FrontierWith(config, dir, 50);
  CrawlCounters counters;
  absl::StatusOr<std::unique_ptr<CrawlReporter>> reporter =
      CrawlReporter::Create({.config = &config,
                             .counters = &counters,
                             .frontier = frontier.get()},
                            *MakeStderrLogger("warn"), /*live=*/false);
  ASSERT_TRUE(reporter.ok()) << reporter.status();
  EXPECT_FALSE((*reporter)->CheckCapacity(/*stopping=*/false));
  for (int i = 50; i < 150; ++i) {
    frontier->Add(absl::StrCat("http://a.test/", i), "a.test", 0, "");
  }
  EXPECT_FALSE((*reporter)->CheckCapacity(/*stopping=*/true));
  EXPECT_TRUE((*reporter)->CheckCapacity(/*stopping=*/false));
}

TEST(CrawlReporterTest, CountsThisRunApartFromTheRunsBefore) {
  CrawlConfig config;
  const std::filesystem::path dir = FreshDir("reporter-runs");
  std::unique_ptr<CrawlFrontier> frontier = FrontierWith(config, dir, 3);
  CrawlCounters counters;
  counters.pages = 40;  // Earlier runs' (--resume).
  counters.run_seconds = 100;
  absl::StatusOr<std::unique_ptr<CrawlReporter>> reporter =
      CrawlReporter::Create({.config = &config,
                             .counters = &counters,
                             .frontier = frontier.get()},
                            *MakeStderrLogger("warn"), /*live=*/false);
  ASSERT_TRUE(reporter.ok()) << reporter.status();
  const absl::Time start = absl::FromUnixSeconds(1'000'000);
  EXPECT_EQ((*reporter)->RunSeconds(start), 100) << "not started yet";
  (*reporter)->Start(start);
  counters.pages += 2;
  (*reporter)->CountPage(/*error=*/false);
  EXPECT_EQ((*reporter)->RunSeconds(start + absl::Seconds(5)), 105);
  const CrawlSummary summary =
      (*reporter)->Finish(start + absl::Seconds(5), StopReason::kMaxPages);
  EXPECT_EQ(summary.stop_reason, StopReason::kMaxPages);
  EXPECT_EQ(summary.counters.pages, 42u);
  EXPECT_EQ(summary.pages_this_run, 2u);
  EXPECT_EQ(summary.seconds, 5);
  EXPECT_EQ(summary.frontier.queued, 3u);
  ASSERT_EQ(summary.budgets.size(), 7u);
  EXPECT_EQ(summary.budgets[0].name, "sieve_queue");
  EXPECT_EQ((*reporter)->Summary(start, std::nullopt).stop_reason,
            StopReason::kFinished);
}

UrlParts PartsOf(const std::string& url) {
  absl::StatusOr<UrlParts> parts = SplitUrl(url);
  EXPECT_TRUE(parts.ok()) << url;
  return *parts;
}

TEST(RobotsGateTest, HoldsUrlsUntilRobotsTxtAnswersThenAppliesItsRules) {
  CrawlCounters counters;
  RobotsGate::Options options;
  options.token = "SieveBot";
  RobotsGate gate(options, counters, *MakeStderrLogger("warn"));
  const UrlParts a = PartsOf("http://a.test/private/x");
  const UrlParts b = PartsOf("http://a.test/open");
  EXPECT_EQ(gate.Allowed(a), std::nullopt);
  EXPECT_TRUE(gate.Hold(a, FrontierUrl{.url = "http://a.test/private/x"}))
      << "the first URL of an origin fetches robots.txt";
  EXPECT_FALSE(gate.Hold(b, FrontierUrl{.url = "http://a.test/open"}));
  EXPECT_TRUE(gate.Hold(PartsOf("https://a.test/"),
                        FrontierUrl{.url = "https://a.test/"}))
      << "https is another origin (RFC 9309 2.3)";
  EXPECT_EQ(counters.robots_fetches, 2u);
  EXPECT_EQ(RobotsGate::RobotsUrl(a), "http://a.test/robots.txt");
  EXPECT_EQ(gate.holding(), 2u);

  FetchResponse response;
  response.url = "http://a.test/robots.txt";
  response.status = 200;
  response.body = "User-agent: *\nDisallow: /private\n";
  EXPECT_FALSE(gate.Take("http://b.test:80", response).has_value());
  std::optional<RobotsGate::Answer> answer =
      gate.Take(RobotsGate::OriginOf(a), response);
  ASSERT_TRUE(answer.has_value());
  EXPECT_FALSE(answer->cause.has_value());
  ASSERT_EQ(answer->waiting.size(), 2u);
  EXPECT_EQ(answer->waiting[0].url, "http://a.test/private/x");
  EXPECT_EQ(gate.Allowed(a), false);
  EXPECT_EQ(gate.Allowed(b), true);
  EXPECT_EQ(gate.holding(), 1u);
}

TEST(RobotsGateTest, GivesHeldUrlsBackWithTheCauseWhenUnavailable) {
  CrawlCounters counters;
  RobotsGate gate(RobotsGate::Options(), counters, *MakeStderrLogger("warn"));
  const UrlParts a = PartsOf("http://a.test/x");
  ASSERT_TRUE(gate.Hold(a, FrontierUrl{.url = "http://a.test/x"}));
  FetchResponse response;
  response.url = "http://a.test/robots.txt";
  response.status = 503;
  std::optional<RobotsGate::Answer> answer =
      gate.Take(RobotsGate::OriginOf(a), response);
  ASSERT_TRUE(answer.has_value());
  ASSERT_TRUE(answer->cause.has_value());
  EXPECT_EQ(answer->cause->code, FailureCode::kRobotsUnavailable);
  EXPECT_TRUE(absl::StartsWith(answer->cause->detail, "robots.txt: "))
      << answer->cause->detail;
  EXPECT_EQ(answer->waiting.size(), 1u);
  EXPECT_EQ(counters.robots_unavailable, 1u);
  EXPECT_EQ(gate.Allowed(a), std::nullopt) << "nothing stored (RFC 9309 "
                                              "2.3.1.4: retried later)";

  ASSERT_TRUE(gate.Hold(a, FrontierUrl{.url = "http://a.test/x"}));
  FetchResponse blocked;
  blocked.url = "http://a.test/robots.txt";
  blocked.error = FetchError::kBlockedAddress;
  answer = gate.Take(RobotsGate::OriginOf(a), blocked);
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->blocked);
  EXPECT_FALSE(answer->cause.has_value()) << "no rules apply (2.3.1.3)";
  EXPECT_EQ(gate.Allowed(a), true);
}

}  // namespace
}  // namespace sieve
