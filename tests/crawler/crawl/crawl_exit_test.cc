// How a run of `sieve crawl` ends, through the binary (issue 27): the exit
// codes of docs/crawling.md ("Exit codes"), the live line on a terminal (a
// pseudo-terminal here) cleared before a log line and redrawn after, and the
// rate of a resumed run counting its own pages only.
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "crawler/demo/demo_site.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"

namespace sieve {
namespace {

using ::testing::HasSubstr;
using testing_util::FreshDir;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

// A site whose every answer takes `delay`, so a crawl lasts and has a
// transfer in flight when a signal comes.
std::unique_ptr<DemoSite> SlowSite(absl::Duration delay, int pages = 60) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site =
      DemoSite::Start({.pages = pages,
                       .slow_page_delay = absl::ZeroDuration(),
                       .response_delay = delay});
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

std::vector<std::string> Args(const DemoSite& site,
                              const std::filesystem::path& out) {
  return {"crawl", site.root_url(), "--out", out.string(), "--delay",
          "0",     "--log-level",   "info"};
}

// Waits until OUT/pages.jsonl holds `n` whole records; false (and the test
// fails) when it does not within 30 s.
[[nodiscard]] bool WaitForPages(const std::filesystem::path& out, size_t n) {
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  size_t records = 0;
  while ((records = std::ranges::count(ReadFile(out / "pages.jsonl"), '\n')) <
         n) {
    if (absl::Now() >= deadline) {
      ADD_FAILURE() << out << ": " << records << " pages after 30 s, not " << n;
      return false;
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  return true;
}

TEST(CrawlExitTest, AFinishedCrawlExitsZero) {
  std::unique_ptr<DemoSite> site = SlowSite(absl::ZeroDuration(), 20);
  ASSERT_NE(site, nullptr);
  const auto dir = FreshDir("exit-finished");
  EXPECT_EQ(WaitFor(StartSieve(Args(*site, dir / "out"), dir / "log.txt")), 0)
      << ReadFile(dir / "log.txt");
}

TEST(CrawlExitTest, OneSignalStopsCleanlyWithThree) {
  for (int sig : {SIGINT, SIGTERM}) {
    std::unique_ptr<DemoSite> site = SlowSite(absl::Milliseconds(200));
    ASSERT_NE(site, nullptr);
    const auto dir = FreshDir(absl::StrCat("exit-signal-", sig));
    const pid_t pid = StartSieve(Args(*site, dir / "out"), dir / "log.txt");
    ASSERT_TRUE(WaitForPages(dir / "out", 1));
    ASSERT_EQ(::kill(pid, sig), 0);
    EXPECT_EQ(WaitFor(pid), 3) << ReadFile(dir / "log.txt");
    EXPECT_TRUE(std::filesystem::exists(dir / "out" / "summary.json"));
  }
}

TEST(CrawlExitTest, MaxRunTimeStopsWithThree) {
  std::unique_ptr<DemoSite> site = SlowSite(absl::Milliseconds(200));
  ASSERT_NE(site, nullptr);
  const auto dir = FreshDir("exit-max-run-time");
  std::vector<std::string> args = Args(*site, dir / "out");
  args.insert(args.end(), {"--max-run-time", "1"});
  EXPECT_EQ(WaitFor(StartSieve(args, dir / "log.txt")), 3)
      << ReadFile(dir / "log.txt");
}

TEST(CrawlExitTest, ASecondCtrlCQuitsAtOnceWith130) {
  // Answers take 3 s: the first SIGINT waits for the transfer in flight.
  std::unique_ptr<DemoSite> site = SlowSite(absl::Seconds(3), 10);
  ASSERT_NE(site, nullptr);
  const auto dir = FreshDir("exit-second-signal");
  const pid_t pid = StartSieve(Args(*site, dir / "out"), dir / "log.txt");
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (absl::Now() < deadline && site->requests().empty())
    absl::SleepFor(absl::Milliseconds(20));
  absl::SleepFor(absl::Milliseconds(300));
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  absl::SleepFor(absl::Milliseconds(300));
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  EXPECT_EQ(WaitFor(pid), 130) << ReadFile(dir / "log.txt");
}

// Runs the binary on a pseudo-terminal (its stderr is a TTY) for `run_for`,
// then SIGINT; returns everything it wrote.
std::string RunOnTerminal(const std::vector<std::string>& args) {
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    std::vector<char*> argv;
    std::string binary = SIEVE_BINARY;
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  std::string text;
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(master, buffer, sizeof(buffer));
    if (n <= 0) break;  // EIO once the child is gone.
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return text;
}

TEST(CrawlTerminalTest, ALogLineClearsTheLiveLineAndItIsRedrawnAfter) {
  // Answers take 100 ms, so the live line shows between pages; debug logs a
  // line for each 404 of the site, in the middle of the crawl.
  std::unique_ptr<DemoSite> site = SlowSite(absl::Milliseconds(100));
  ASSERT_NE(site, nullptr);
  const auto dir = FreshDir("terminal");
  std::vector<std::string> args = Args(*site, dir / "out");
  args.insert(args.end(), {"--log-level", "debug", "--max-run-time", "4"});
  const std::string text = RunOnTerminal(args);
  int cleared = 0;
  int redrawn = 0;
  const std::vector<std::string> lines = absl::StrSplit(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    // A status line, then a log line on the same terminal line.
    const size_t status = line.find("| queued ");
    if (status == std::string::npos) continue;
    const size_t log = line.find("] [", status);
    if (log == std::string::npos) continue;
    // The last report, logged once the live line is gone for good.
    if (line.find("| queued ", log) != std::string::npos) continue;
    const size_t clear = line.find("\r\033[K", status);
    EXPECT_TRUE(clear != std::string::npos && clear < log)
        << "a log line printed over the live line: " << line;
    ++cleared;
    if (i + 1 < lines.size() &&
        lines[i + 1].find("\033[Kpages ") != std::string::npos &&
        lines[i + 1].find("\033[Kpages ") < 4) {
      ++redrawn;
    }
  }
  EXPECT_GT(cleared, 0) << text;
  EXPECT_EQ(redrawn, cleared) << text;
}

TEST(CrawlRateTest, AResumedRunCountsItsOwnPages) {
  std::unique_ptr<DemoSite> site = SlowSite(absl::ZeroDuration(), 200);
  ASSERT_NE(site, nullptr);
  const auto dir = FreshDir("rate");
  std::vector<std::string> args = Args(*site, dir / "out");
  args.insert(args.end(), {"--max-pages", "30"});
  ASSERT_EQ(WaitFor(StartSieve(args, dir / "log1.txt")), 0)
      << ReadFile(dir / "log1.txt");
  ASSERT_EQ(WaitFor(StartSieve({"crawl", "--resume", (dir / "out").string(),
                                "--max-pages", "50"},
                               dir / "log2.txt")),
            0)
      << ReadFile(dir / "log2.txt");
  const nlohmann::json summary =
      nlohmann::json::parse(ReadFile(dir / "out" / "summary.json"));
  EXPECT_EQ(summary["counters"]["pages"], 50);
  EXPECT_EQ(summary["pages_this_run"], 20);
  const double rate = summary["pages_per_second"];
  const double seconds = summary["seconds"];
  EXPECT_NEAR(rate * seconds, 20, 0.5);
}

}  // namespace
}  // namespace sieve
