// The crawl loop's owners on their own (crawler/loop/: record_sink.h,
// crawl_reporter.h, robots_gate.h, link_rules.h, request_table.h,
// stop_control.h, checkpointer.h; crawler/policy/link_fate.h): what each
// owns, counts and writes.
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "crawler/config/crawl_options.h"
#include "crawler/logging.h"
#include "crawler/loop/checkpointer.h"
#include "crawler/loop/crawl_reporter.h"
#include "crawler/loop/link_rules.h"
#include "crawler/loop/record_sink.h"
#include "crawler/loop/request_table.h"
#include "crawler/loop/robots_gate.h"
#include "crawler/loop/stop_control.h"
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
  ASSERT_EQ(summary.budgets.size(), 9u);
  EXPECT_EQ(summary.budgets[0].name, "sieve_queue");
  EXPECT_EQ(summary.budgets[1].name, "sieve_filter");
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

// A render's request (no frontier URL) has robots.txt fetched for it: the
// origin is in flight, a URL handed out meanwhile waits with it, and the
// answer stores the rules.
TEST(RobotsGateTest, FetchesRobotsTxtForARequestThatIsNoUrl) {
  CrawlCounters counters;
  RobotsGate gate(RobotsGate::Options(), counters, *MakeStderrLogger("warn"));
  const UrlParts script = PartsOf("http://cdn.test/lib.js");
  EXPECT_FALSE(gate.Fetching(script));
  gate.StartFetch(script);
  EXPECT_TRUE(gate.Fetching(script));
  EXPECT_EQ(counters.robots_fetches, 1u);
  EXPECT_FALSE(gate.Hold(PartsOf("http://cdn.test/page"),
                         FrontierUrl{.url = "http://cdn.test/page"}))
      << "in flight already: no second fetch";
  FetchResponse response;
  response.url = "http://cdn.test/robots.txt";
  response.status = 200;
  response.body = "User-agent: *\nDisallow: /ads/\n";
  std::optional<RobotsGate::Answer> answer =
      gate.Take(RobotsGate::OriginOf(script), response);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->waiting.size(), 1u);
  EXPECT_FALSE(gate.Fetching(script));
  EXPECT_EQ(gate.Allowed(script), true);
  EXPECT_EQ(gate.Allowed(PartsOf("http://cdn.test/ads/x.js")), false);
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

TEST(RequestTableTest, CountsPageRequestsAgainstMaxPagesAndGivesRetriesBack) {
  RequestTable table({.max_pages = 2});
  const absl::Time now = absl::FromUnixSeconds(1'000'000);
  const uint64_t robots =
      table.Add({.kind = RequestKind::kRobots, .host = "a.test", .start = now});
  const uint64_t first = table.Add({.kind = RequestKind::kPage, .start = now});
  EXPECT_TRUE(table.PageBudgetLeft()) << "robots.txt is not a page";
  const uint64_t second = table.Add({.kind = RequestKind::kPage, .start = now});
  EXPECT_FALSE(table.PageBudgetLeft());
  EXPECT_EQ(table.size(), 3u);
  EXPECT_NE(first, second);
  std::optional<Request> taken = table.Take(robots);
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->host, "a.test");
  EXPECT_FALSE(table.Take(robots).has_value()) << "answered once";
  ASSERT_TRUE(table.Take(second).has_value());
  table.GiveBackPage();  // The frontier retries it.
  EXPECT_TRUE(table.PageBudgetLeft());
  EXPECT_EQ(table.size(), 1u);
  table.SetPagesStarted(2);
  EXPECT_FALSE(table.PageBudgetLeft());
  EXPECT_EQ(table.RateWait(now), std::nullopt) << "no rate cap";
}

TEST(RequestTableTest, SpacesRequestsByTheRateCap) {
  RequestTable table({.max_requests_per_second = 4});
  const absl::Time now = absl::FromUnixSeconds(1'000'000);
  EXPECT_EQ(table.RateWait(now), std::nullopt);
  table.Add({.kind = RequestKind::kRobots, .start = now});
  EXPECT_EQ(table.RateWait(now), absl::Milliseconds(250));
  EXPECT_EQ(table.RateWait(now + absl::Milliseconds(100)),
            absl::Milliseconds(150));
  EXPECT_EQ(table.RateWait(now + absl::Milliseconds(250)), std::nullopt);
  // A loop running ahead of the cap: the next slot follows the last one.
  table.Add({.kind = RequestKind::kPage, .start = now});
  EXPECT_EQ(table.RateWait(now), absl::Milliseconds(500));
}

TEST(StopControlTest, TheFirstReasonWinsAndStartsTheGracePeriod) {
  StopControl stop(
      {.max_run_time = absl::Seconds(10), .grace = absl::Seconds(2)});
  const absl::Time start = absl::FromUnixSeconds(1'000'000);
  stop.Start(start);
  EXPECT_EQ(stop.deadline(), start + absl::Seconds(10));
  EXPECT_FALSE(stop.Check(start + absl::Seconds(1)));
  EXPECT_FALSE(stop.stopping());
  EXPECT_FALSE(stop.GraceOver(start + absl::Hours(1))) << "not stopping";
  stop.Stop(StopReason::kCapacity, start + absl::Seconds(3));
  stop.Stop(StopReason::kMaxPages, start + absl::Seconds(4));
  EXPECT_EQ(stop.reason(), StopReason::kCapacity);
  EXPECT_FALSE(stop.Check(start + absl::Seconds(11))) << "already stopping";
  EXPECT_FALSE(stop.GraceOver(start + absl::Seconds(4)));
  EXPECT_TRUE(stop.GraceOver(start + absl::Seconds(5)));
}

TEST(StopControlTest, StopsForARequestOrTheDeadlineAndKeepsTheFirstError) {
  StopControl at_deadline({.max_run_time = absl::Seconds(10)});
  const absl::Time start = absl::FromUnixSeconds(1'000'000);
  at_deadline.Start(start);
  EXPECT_TRUE(at_deadline.Check(start + absl::Seconds(10)));
  EXPECT_EQ(at_deadline.reason(), StopReason::kMaxRunTime);

  StopControl requested({});
  requested.Start(start);
  EXPECT_EQ(requested.deadline(), absl::InfiniteFuture());
  requested.Request();
  EXPECT_TRUE(requested.Check(start));
  EXPECT_EQ(requested.reason(), StopReason::kInterrupted);

  requested.Fail(absl::OkStatus());
  EXPECT_TRUE(requested.fatal().ok());
  requested.Fail(absl::DataLossError("first"));
  *requested.fatal_slot() = requested.fatal();  // What an owner keeps.
  requested.Fail(absl::InternalError("second"));
  EXPECT_EQ(requested.fatal().message(), "first");
}

TEST(CheckpointerTest, WritesASnapshotThatReadsBackAndSaysWhenTheNextIsDue) {
  CrawlConfig config;
  const std::filesystem::path dir = FreshDir("checkpointer");
  std::unique_ptr<CrawlFrontier> frontier =
      FrontierWith(config, dir / "scratch", 3);
  Checkpointer checkpoints(dir / "checkpoint", absl::Seconds(30));
  const absl::Time start = absl::Now();
  checkpoints.Start(start);
  EXPECT_FALSE(checkpoints.Due(start + absl::Seconds(29)));
  EXPECT_TRUE(checkpoints.Due(start + absl::Seconds(30)));
  CrawlState state;
  state.sequence = 7;
  state.counters.pages = 12;
  state.seed_hosts = {"a.test"};
  ASSERT_TRUE(checkpoints.Write(state, *frontier).ok());
  EXPECT_GE(checkpoints.next(), start + absl::Seconds(30));
  state.sequence = 8;
  ASSERT_TRUE(checkpoints.Write(state, *frontier).ok()) << "and again";

  absl::StatusOr<SnapshotReader> snapshot =
      SnapshotReader::Open(dir / "checkpoint");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  absl::StatusOr<CrawlState> read = ReadCrawlState(*snapshot);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->sequence, 8u);
  EXPECT_EQ(read->counters.pages, 12u);
  EXPECT_EQ(read->seed_hosts, std::vector<std::string>{"a.test"});
}

TEST(LinkRulesTest, KeepsLinksToTheSeedsHostsAndTakesRedirectedSeedsIn) {
  CrawlConfig config;
  const std::filesystem::path dir = FreshDir("link-rules");
  std::unique_ptr<CrawlFrontier> frontier = FrontierWith(config, dir, 0);
  RobotsCache robots;
  absl::StatusOr<std::unique_ptr<LinkRules>> rules = LinkRules::Create(config);
  ASSERT_TRUE(rules.ok()) << rules.status();
  ASSERT_TRUE((*rules)->OpenScope(config, {"a.test"}).ok());
  ASSERT_TRUE((*rules)
                  ->Start(config, /*saved_budget=*/"",
                          {.frontier = frontier.get(),
                           .robots = &robots,
                           .robots_token = "SieveBot",
                           .record_skipped = true})
                  .ok());
  const LinkPolicy& policy = (*rules)->policy();
  EXPECT_EQ(policy.robots_name, "sievebot");
  EXPECT_TRUE(policy.record_skipped);
  EXPECT_NE((*rules)->dns(), nullptr);
  EXPECT_EQ(AddDiscovered(policy, "http://a.test/x", 0, Origin{}),
            AddOutcome::kQueued);
  EXPECT_EQ(AddDiscovered(policy, "http://a.test/x", 0, Origin{}),
            AddOutcome::kSeen);
  EXPECT_EQ(AddDiscovered(policy, "http://b.test/", 0, Origin{}),
            AddOutcome::kOffSite);
  EXPECT_TRUE((*rules)->AddSeedHost("b.test"));
  EXPECT_FALSE((*rules)->AddSeedHost("b.test"));
  EXPECT_TRUE((*rules)->scope().IsSeedHost("b.test"));
  EXPECT_EQ(AddDiscovered(policy, "http://b.test/", 0, Origin{}),
            AddOutcome::kQueued);
  EXPECT_EQ(frontier->stats().queued, 2u);
  EXPECT_EQ((*rules)->domains().stats().domains, 0u);
}

}  // namespace
}  // namespace sieve
