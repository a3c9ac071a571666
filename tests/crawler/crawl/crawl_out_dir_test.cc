// The output directory of `sieve crawl`, through the real binary: it is locked
// for the run, its config.toml round-trips any setting and is required by
// --resume, and a write error stops the crawl cleanly so that --resume after
// freeing space loses nothing.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "crawler/cli/crawl_command.h"
#include "crawler/config/config_loader.h"
#include "crawler/demo/demo_site.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/site_answer_key.h"

namespace sieve {
namespace {

using ::testing::HasSubstr;
using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::StartSieveWithFileLimit;
using testing_util::WaitFor;

struct Fixture {
  std::unique_ptr<DemoSite> site;
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
  const std::filesystem::path dir = FreshDir(name);
  f.out = dir / "out";
  f.seeds = dir / "seeds.txt";
  f.log = dir / "log.txt";
  std::ofstream(f.seeds) << f.site->root_url() << "\n";
  return f;
}

std::vector<std::string> CrawlArgs(const Fixture& f, std::string delay) {
  return {"crawl",   "--seeds",   f.seeds.string(), "--out", f.out.string(),
          "--delay", delay,       "--log-level",    "info",  "--expected-urls",
          "10000",   "--fp-rate", "0.0001"};
}

// Every page of the site (but those ending in `denied_suffix`, when given)
// recorded exactly once.
void ExpectExactlyTheSite(const Fixture& f, std::string denied_suffix = "") {
  std::map<std::string, int> seen;
  for (const nlohmann::json& page : ReadPages(f.out))
    ++seen[PathOf(page["url"])];
  const testing_util::ExpectedCrawl expected =
      testing_util::Expected(f.site->graph());
  for (const auto& [path, n] : seen) {
    EXPECT_EQ(n, 1) << path << " recorded " << n << " times";
  }
  size_t denied = 0;
  for (const auto& [path, depth] : expected.fetched) {
    if (!denied_suffix.empty() && path.ends_with(denied_suffix)) {
      EXPECT_FALSE(seen.contains(path)) << "denied but fetched " << path;
      ++denied;
      continue;
    }
    EXPECT_TRUE(seen.contains(path)) << "missing " << path;
  }
  EXPECT_EQ(seen.size(), expected.fetched.size() - denied);
}

TEST(CrawlOutDirTest, ASecondCrawlOnALockedOutDirExitsOneNamingTheHolder) {
  Fixture f = Prepare("locked", 200);
  const pid_t first = StartSieve(CrawlArgs(f, "0.02"), f.log);
  // Wait until the first crawl holds the lock and has begun writing.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline &&
         ReadFile(f.out / "pages.jsonl").size() < 500) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  const std::filesystem::path second_log = f.out.parent_path() / "second.txt";
  const int fresh = WaitFor(StartSieve(CrawlArgs(f, "0"), second_log));
  const int resume =
      WaitFor(StartSieve({"crawl", "--resume", f.out.string()}, second_log));
  const std::string said = ReadFile(second_log);
  EXPECT_EQ(fresh, 1) << said;
  EXPECT_EQ(resume, 1) << said;
  EXPECT_THAT(said, HasSubstr(absl::StrCat("pid ", first)));
  EXPECT_THAT(said, HasSubstr("in use"));
  // The running crawl did not notice: it finishes with the whole site.
  EXPECT_EQ(WaitFor(first), 0) << ReadFile(f.log);
  ExpectExactlyTheSite(f);
}

TEST(CrawlOutDirTest, ConfigTomlRoundTripsBackslashesAndQuotes) {
  CrawlConfig config;
  config.crawl.deny = {R"(\.pdf$)", R"(^https?://[^/]+/a\\b\?x="y")"};
  config.fetch.user_agent = R"(SieveBot/0.1 "quoted" \ back 'single')";
  config.sieve.fp_rate = 1e-7;
  CrawlConfig back;
  ASSERT_TRUE(ApplyConfigToml(ConfigToToml(config), "config.toml", back).ok())
      << ConfigToToml(config);
  EXPECT_EQ(back.crawl.deny, config.crawl.deny);
  EXPECT_EQ(back.fetch.user_agent, config.fetch.user_agent);
  EXPECT_EQ(back.sieve.fp_rate, config.sieve.fp_rate);
  EXPECT_EQ(ConfigToToml(back), ConfigToToml(config));
}

TEST(CrawlOutDirTest, ResumeReadsTheSavedSettingsAndNeedsThem) {
  Fixture f = Prepare("savedconfig", 30);
  const std::filesystem::path config = f.out.parent_path() / "c.toml";
  std::ofstream(config) << "[crawl]\ndeny = ['\\.pdf$', 'a\\\\b\"']\n"
                        << "[fetch]\nuser_agent = 'SieveBot/0.1 \"q\" \\ x'\n";
  std::vector<std::string> args = CrawlArgs(f, "0");
  args.insert(args.end(), {"--config", config.string(), "--max-pages", "5"});
  ASSERT_EQ(WaitFor(StartSieve(args, f.log)), 0) << ReadFile(f.log);
  CrawlConfig saved;
  ASSERT_TRUE(ApplyConfigFile((f.out / "config.toml").string(), saved).ok());
  EXPECT_EQ(saved.crawl.deny,
            (std::vector<std::string>{R"(\.pdf$)", R"(a\\b")"}));
  EXPECT_EQ(saved.fetch.user_agent, R"(SieveBot/0.1 "q" \ x)");
  EXPECT_EQ(saved.crawl.max_pages, 5);
  // --resume reads them back (and finishes the site past max-pages when told).
  EXPECT_EQ(
      WaitFor(StartSieve(
          {"crawl", "--resume", f.out.string(), "--max-pages", "0"}, f.log)),
      0)
      << ReadFile(f.log);
  ExpectExactlyTheSite(f, /*denied_suffix=*/".pdf");  // The saved deny holds.
  // Without config.toml, --resume is an error, not the defaults.
  std::filesystem::remove(f.out / "config.toml");
  const std::filesystem::path log = f.out.parent_path() / "noconfig.txt";
  EXPECT_EQ(WaitFor(StartSieve({"crawl", "--resume", f.out.string()}, log)), 1);
  EXPECT_THAT(ReadFile(log), HasSubstr("config.toml"));
}

TEST(CrawlOutDirTest, AWriteErrorStopsTheCrawlAndResumeLosesNothing) {
  Fixture f = Prepare("fsize", 300);
  // 300 pages make about 150 KB of pages.jsonl: the limit cuts it midway.
  const int code =
      WaitFor(StartSieveWithFileLimit(CrawlArgs(f, "0"), f.log, 64 * 1024));
  const std::string said = ReadFile(f.log);
  EXPECT_EQ(code, 1) << said;
  EXPECT_THAT(said, HasSubstr("File too large")) << said;
  EXPECT_THAT(said, HasSubstr(f.out.string())) << said;
  // The limit raised: the crawl goes on from its last good checkpoint.
  const std::filesystem::path log = f.out.parent_path() / "resume.txt";
  ASSERT_EQ(WaitFor(StartSieve({"crawl", "--resume", f.out.string()}, log)), 0)
      << ReadFile(log);
  ExpectExactlyTheSite(f);
}

}  // namespace
}  // namespace sieve
