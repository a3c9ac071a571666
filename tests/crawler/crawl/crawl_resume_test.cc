// The `sieve` binary stopped and resumed: SIGINT halfway then --resume, and
// SIGKILL at random moments then --resume, again and again. In the end
// pages.jsonl must hold every reachable page of the site, and no URL twice.
// Also `sieve crawl --demo` end to end.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "crawler/demo/demo_site.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/crawl_warc_check.h"
#include "tests/crawler/crawl/site_answer_key.h"

namespace sieve {
namespace {

using ::testing::HasSubstr;
using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

size_t CountLines(const std::filesystem::path& path) {
  std::string text = ReadFile(path);
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

struct Fixture {
  std::unique_ptr<DemoSite> site;
  std::filesystem::path dir;
  std::filesystem::path out;
  std::filesystem::path seeds;
  std::filesystem::path log;
};

Fixture Prepare(const std::string& name, int pages) {
  Fixture f;
  absl::StatusOr<std::unique_ptr<DemoSite>> site = DemoSite::Start(
      {.pages = pages, .slow_page_delay = absl::Milliseconds(200)});
  EXPECT_TRUE(site.ok());
  f.site = std::move(*site);
  f.dir = FreshDir(name);
  f.out = f.dir / "out";
  f.seeds = f.dir / "seeds.txt";
  f.log = f.dir / "log.txt";
  std::ofstream(f.seeds) << "# test seeds\n" << f.site->root_url() << "\n";
  return f;
}

std::vector<std::string> CrawlArgs(const Fixture& f) {
  return {"crawl",
          "--seeds",
          f.seeds.string(),
          "--out",
          f.out.string(),
          "--delay",
          "0.01",
          "--per-host-connections",
          "2",
          "--log-level",
          "info",
          "--expected-urls",
          "100000"};
}

std::vector<std::string> ResumeArgs(const Fixture& f) {
  return {"crawl", "--resume", f.out.string()};
}

// The union of all runs' records is exactly the site, no URL twice.
void ExpectExactlyTheSite(const Fixture& f) {
  std::map<std::string, int> seen;
  for (const nlohmann::json& page : ReadPages(f.out))
    ++seen[PathOf(page["url"])];
  const testing_util::ExpectedCrawl expected =
      testing_util::Expected(f.site->graph());
  for (const auto& [path, n] : seen) {
    EXPECT_EQ(n, 1) << path << " recorded " << n << " times";
    EXPECT_TRUE(expected.fetched.contains(path)) << "unexpected " << path;
  }
  for (const auto& [path, depth] : expected.fetched) {
    EXPECT_TRUE(seen.contains(path)) << "missing " << path;
  }
  for (const SiteRequest& r : f.site->requests()) {
    EXPECT_FALSE(SiteGraph::MustNotBeRequested(r.path)) << r.path;
  }
}

void WaitForLines(const std::filesystem::path& pages, size_t lines,
                  absl::Duration limit) {
  const absl::Time deadline = absl::Now() + limit;
  while (absl::Now() < deadline && CountLines(pages) < lines) {
    absl::SleepFor(absl::Milliseconds(20));
  }
}

TEST(CrawlResumeTest, SigintHalfwayThenResumeGivesExactlyTheSite) {
  Fixture f = Prepare("sigint", 300);
  const size_t total = testing_util::Expected(f.site->graph()).fetched.size();
  pid_t pid = StartSieve(CrawlArgs(f), f.log);
  WaitForLines(f.out / "pages.jsonl", total / 2, absl::Seconds(60));
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  const absl::Time sent = absl::Now();
  // 3: stopped with work left (docs/crawling.md, "Exit codes").
  EXPECT_EQ(WaitFor(pid), 3) << ReadFile(f.log);
  EXPECT_LT(absl::Now() - sent, absl::Seconds(10)) << "the stop is bounded";
  const size_t first = CountLines(f.out / "pages.jsonl");
  EXPECT_LT(first, total) << "stopped before the end";
  EXPECT_THAT(ReadFile(f.log), HasSubstr("--resume"));
  EXPECT_TRUE(std::filesystem::exists(f.out / "summary.json"));

  EXPECT_EQ(WaitFor(StartSieve(ResumeArgs(f), f.log)), 0) << ReadFile(f.log);
  ExpectExactlyTheSite(f);
}

// With `warc`: --warc, files rotated at 64 KiB and a checkpoint every second,
// so kills land between checkpoints, mid-record and mid-rotation.
std::vector<std::string> WarcCrawlArgs(const Fixture& f) {
  const std::filesystem::path config = f.dir / "warc.toml";
  std::ofstream(config) << "[crawl]\ncheckpoint_seconds = 1\n\n"
                        << "[output]\nwarc = true\nwarc_max_bytes = 65536\n";
  std::vector<std::string> args = CrawlArgs(f);
  args.insert(args.end(), {"--config", config.string(), "--warc"});
  return args;
}

// After the last resume of a --warc crawl: every file reads to its end, its
// CDXJ matches it, every digest verifies (CheckCrawlWarc), and each page has
// one response record, the one pages.jsonl names. robots.txt is the one URL
// archived more than once: each run fetches it again (its rules are not
// checkpointed), and a fetch before a checkpoint stays in the files.
void ExpectOneResponsePerPage(const Fixture& f) {
  const testing_util::CrawlWarc warc = testing_util::CheckCrawlWarc(f.out);
  EXPECT_GT(warc.files.size(), 1u);
  std::set<std::string> recorded;
  for (const nlohmann::json& page : ReadPages(f.out)) {
    const std::string url = page["url"];
    recorded.insert(url);
    if (page["status"].get<int>() == 0) continue;
    EXPECT_TRUE(page.contains("warc_file")) << page.dump();
    EXPECT_EQ(warc.responses.count(url) ? warc.responses.at(url) : 0, 1) << url;
  }
  for (const auto& [uri, n] : warc.responses) {
    if (PathOf(uri) == "/robots.txt") continue;
    EXPECT_TRUE(recorded.contains(uri)) << uri << " archived, not recorded";
  }
}

void KillAndResume(const std::string& name, int kills, uint32_t seed,
                   bool warc = false) {
  Fixture f = Prepare(name, 250);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> after_ms(300, 1800);
  bool started = false;
  for (int i = 0; i < kills; ++i) {
    pid_t pid = StartSieve(
        started ? ResumeArgs(f) : (warc ? WarcCrawlArgs(f) : CrawlArgs(f)),
        f.log);
    if (!started) {
      // The first run writes the settings --resume needs before it crawls; a
      // kill before that (a loaded machine starts slowly) leaves nothing to
      // resume. Counted from there.
      for (int wait = 0;
           wait < 3000 && !std::filesystem::exists(f.out / "config.toml");
           ++wait) {
        absl::SleepFor(absl::Milliseconds(10));
      }
    }
    started = true;
    absl::SleepFor(absl::Milliseconds(after_ms(gen)));
    ::kill(pid, SIGKILL);
    int code = WaitFor(pid);
    // Killed, or already finished (then the next resume finds nothing left to
    // do).
    EXPECT_TRUE(code == 128 + SIGKILL || code == 0) << code << "\n"
                                                    << ReadFile(f.log);
  }
  EXPECT_EQ(WaitFor(StartSieve(ResumeArgs(f), f.log)), 0) << ReadFile(f.log);
  ExpectExactlyTheSite(f);
  if (warc) ExpectOneResponsePerPage(f);
}

TEST(CrawlResumeTest,
     SigkillAtRandomMomentsFiveTimesThenResumeLosesAndRepeatsNothing) {
  KillAndResume("sigkill5", 5, 2024);
}

TEST(
    CrawlResumeTest,
    SigkillDuringAWarcCrawlFiveTimesLeavesFilesThatReadToTheEndAndMatchTheIndex) {
  KillAndResume("sigkill5-warc", 5, 99, /*warc=*/true);
}

TEST(CrawlResumeSlowTest, SigkillTwentyTimes) {
  KillAndResume("sigkill20", 20, 7);
}

TEST(CrawlResumeSlowTest, SigkillDuringAWarcCrawlTwentyTimes) {
  KillAndResume("sigkill20-warc", 20, 8, /*warc=*/true);
}

TEST(CrawlDemoTest, DemoFinishesAndPrintsItsSummary) {
  const auto dir = FreshDir("demo");
  const auto log = dir / "log.txt";
  const absl::Time start = absl::Now();
  int code = WaitFor(StartSieve({"crawl", "--demo", "--max-pages", "300",
                                 "--out", (dir / "out").string()},
                                log));
  const std::string output = ReadFile(log);
  EXPECT_EQ(code, 0) << output;
  EXPECT_LT(absl::Now() - start, absl::Seconds(60));
  EXPECT_THAT(output, HasSubstr("pages fetched"));
  EXPECT_THAT(output, HasSubstr("demo site:"));
  EXPECT_EQ(ReadPages(dir / "out").size(), 300u);
}

TEST(CrawlDemoTest, LogsTheCapacityWarningWhenTheFilterOutgrowsExpectedUrls) {
  for (const std::string policy : {"warn", "grow"}) {
    const auto dir = FreshDir("capacity-" + policy);
    const auto log = dir / "log.txt";
    int code = WaitFor(StartSieve(
        {"crawl", "--demo", "--max-pages", "100", "--expected-urls", "50",
         "--on-capacity", policy, "--out", (dir / "out").string()},
        log));
    const std::string output = ReadFile(log);
    EXPECT_EQ(code, 0) << output;
    if (policy == "warn") {
      EXPECT_THAT(output, HasSubstr("past its capacity of 50"));
      EXPECT_THAT(output, HasSubstr("Raise sieve.expected_urls"));
    } else {
      EXPECT_THAT(output, HasSubstr("past expected_urls (50): it grows"));
    }
  }
}

TEST(CrawlCommandTest, ABadSeedLineIsReportedWithItsNumberAndSkipped) {
  Fixture f = Prepare("badseed", 20);
  std::ofstream(f.seeds) << "# seeds\nnot-a-url\n"
                         << f.site->root_url() << "\n";
  std::vector<std::string> args = CrawlArgs(f);
  EXPECT_EQ(WaitFor(StartSieve(args, f.log)), 0);
  EXPECT_THAT(ReadFile(f.log), HasSubstr("seeds.txt:2:"));
  EXPECT_GT(ReadPages(f.out).size(), 10u);
}

}  // namespace
}  // namespace sieve
