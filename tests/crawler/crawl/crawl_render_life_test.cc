// The browsers' lifecycle in a crawl (#38, acceptance: "kill -9 of a browser
// process during a crawl ..."), through the `sieve` binary, with a render held
// in progress: the page's script /slow.js is answered only when the test
// opens its gate.
//   - kill -9 of the browser mid-render: the crawl goes on, the page is
//     recorded with its static links and a render_error, the browser is
//     spawned again and the next page renders (its script-built link
//     fetched); summary.json counts the crash and the second spawn;
//   - kill -9 of sieve, one Ctrl-C (SIGINT, the clean stop) and two (the
//     quick exit): no Chromium process of this crawl is left afterwards.
// "Of this crawl": Chromium's processes descend from sieve and share the
// process group of the browser sieve spawned (render/browser_process.h); the
// test takes both from /proc before the signal, so browsers of other crawls
// on the machine are never counted. Skips without chromium-headless-shell.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/gated_site.h"
#include "tests/render/render_test_util.h"

namespace sieve {
namespace {

using testing_util::FreshDir;
using testing_util::GatedSite;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

constexpr char kHtml[] = "text/html";
constexpr char kJs[] = "text/javascript";

// The site: / needs /slow.js (held until the test opens the gate) and links
// /next.html statically; /next.html's script adds a link to /made.html.
std::unique_ptr<GatedSite> LifeSite() {
  return std::make_unique<GatedSite>(
      GatedSite::Files{
          {"/",
           {kHtml,
            "<!doctype html><div id=\"app\"></div>"
            "<script src=\"/slow.js\"></script>"
            "<a href=\"/next.html\">next</a>"}},
          {"/slow.js",
           {kJs,
            "document.body.insertAdjacentHTML('beforeend', "
            "'<a href=\"/slow-made.html\">x</a>');"}},
          {"/next.html",
           {kHtml,
            "<!doctype html><div id=\"app\"></div>"
            "<script src=\"/app.js\"></script>"}},
          {"/app.js",
           {kJs,
            "document.body.insertAdjacentHTML('beforeend', "
            "'<a href=\"/made.html\">x</a>');"}},
          {"/made.html", {kHtml, "<!doctype html><p>made by a script</p>"}},
          {"/slow-made.html", {kHtml, "<!doctype html><p>made late</p>"}},
      },
      "/slow.js");
}

// One live process as /proc shows it.
struct Proc {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgrp = 0;
  std::string exe;  // empty when unreadable (a zombie, say)
};

// Every live process (zombies left out: they run nothing).
std::vector<Proc> Processes() {
  std::vector<Proc> out;
  std::error_code error;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc", error)) {
    Proc proc;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &proc.pid)) {
      continue;
    }
    const std::string stat = ReadFile(entry.path() / "stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;  // gone meanwhile
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    rest >> state >> proc.ppid >> proc.pgrp;
    if (state == "Z" || state == "X") continue;
    proc.exe = std::filesystem::read_symlink(entry.path() / "exe", error);
    out.push_back(proc);
  }
  return out;
}

bool IsChromium(const Proc& proc) {
  return absl::StrContains(proc.exe, "chromium");
}

// The Chromium processes descending from `root`, and their process groups.
struct Browsers {
  std::set<pid_t> pids;
  std::set<pid_t> groups;
  std::set<pid_t> leaders;  // spawned by `root` itself
};
Browsers BrowsersOf(pid_t root) {
  const std::vector<Proc> all = Processes();
  std::set<pid_t> tree = {root};
  for (bool grew = true; grew;) {
    grew = false;
    for (const Proc& proc : all) {
      if (tree.count(proc.ppid) && tree.insert(proc.pid).second) grew = true;
    }
  }
  Browsers found;
  for (const Proc& proc : all) {
    if (proc.pid == root || !tree.count(proc.pid) || !IsChromium(proc)) {
      continue;
    }
    found.pids.insert(proc.pid);
    found.groups.insert(proc.pgrp);
    if (proc.ppid == root) found.leaders.insert(proc.pid);
  }
  return found;
}

// The Chromium processes still running that were among `before` or share
// one of its groups, waiting up to `patience` for them to go.
std::vector<Proc> Leftovers(const Browsers& before, absl::Duration patience) {
  const absl::Time deadline = absl::Now() + patience;
  while (true) {
    std::vector<Proc> left;
    for (const Proc& proc : Processes()) {
      if (IsChromium(proc) &&
          (before.pids.count(proc.pid) || before.groups.count(proc.pgrp))) {
        left.push_back(proc);
      }
    }
    if (left.empty() || absl::Now() >= deadline) return left;
    absl::SleepFor(absl::Milliseconds(50));
  }
}

// Waits up to 30 s for a browser spawned by `sieve`.
Browsers WaitForBrowser(pid_t sieve) {
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  Browsers found;
  while ((found = BrowsersOf(sieve)).leaders.empty() &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  return found;
}

// sieve on the gated site, rendering every page, one tab (renders in turn).
pid_t StartRenderingCrawl(const GatedSite& site,
                          const std::filesystem::path& dir) {
  return StartSieve(
      {"crawl", site.url("/"), "--out", (dir / "out").string(), "--delay", "0",
       "--render", "always", "--set", "render.tabs=1", "--log-level", "debug"},
      dir / "log.txt");
}

std::string Describe(const std::vector<Proc>& procs) {
  std::string text;
  for (const Proc& proc : procs) {
    absl::StrAppend(&text, proc.pid, " (group ", proc.pgrp, ") ", proc.exe,
                    "\n");
  }
  return text;
}

TEST(CrawlRenderLifeTest, AKilledBrowserFailsItsRenderAndIsSpawnedAgain) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  std::unique_ptr<GatedSite> site = LifeSite();
  const std::filesystem::path dir = FreshDir("render-life-browser-kill");
  const pid_t sieve = StartRenderingCrawl(*site, dir);
  ASSERT_TRUE(site->WaitFor("/slow.js")) << ReadFile(dir / "log.txt");
  // The render of / is waiting for /slow.js: kill its browser.
  const Browsers before = WaitForBrowser(sieve);
  ASSERT_EQ(before.leaders.size(), 1u) << ReadFile(dir / "log.txt");
  const pid_t killed = *before.leaders.begin();
  ASSERT_EQ(::kill(killed, SIGKILL), 0);
  site->Open();

  const int rc = WaitFor(sieve);
  const std::string log = ReadFile(dir / "log.txt");
  EXPECT_EQ(rc, 0) << log;
  const std::vector<nlohmann::json> pages = ReadPages(dir / "out");
  std::map<std::string, nlohmann::json> by_url;
  std::string dump;
  for (const nlohmann::json& page : pages) {
    by_url[page.value("url", "")] = page;
    absl::StrAppend(&dump, page.dump(), "\n");
  }
  // The page: recorded with its static link and the render's error.
  ASSERT_TRUE(by_url.count(site->url("/"))) << dump << log;
  const nlohmann::json& home = by_url[site->url("/")];
  EXPECT_EQ(home.value("status", 0), 200);
  EXPECT_EQ(home.value("links_found", 0), 1) << home.dump();
  EXPECT_FALSE(home.value("render_error", "").empty()) << home.dump();
  EXPECT_FALSE(home.value("rendered", false)) << home.dump();
  // The crawl went on: the static link's page rendered in a new browser,
  // and the link its script made was followed.
  ASSERT_TRUE(by_url.count(site->url("/next.html"))) << dump << log;
  EXPECT_TRUE(by_url[site->url("/next.html")].value("rendered", false))
      << dump << log;
  EXPECT_TRUE(site->Requests("/made.html") > 0) << dump << log;
  EXPECT_FALSE(site->Requests("/slow-made.html") > 0) << dump;
  const nlohmann::json summary =
      nlohmann::json::parse(ReadFile(dir / "out" / "summary.json"), nullptr,
                            /*allow_exceptions=*/false);
  EXPECT_EQ(summary["counters"].value("render_errors", 0), 1) << summary.dump();
  EXPECT_GE(summary["counters"].value("render_pages", 0), 1) << summary.dump();
  // The browser pool's figures: the crash, and the browser spawned again (in
  // the counters, which survive --resume, and in the render object).
  EXPECT_GE(summary["counters"].value("render_browser_crashes", 0), 1)
      << summary.dump();
  EXPECT_GE(summary["counters"].value("render_browser_spawns", 0), 2)
      << summary.dump();
  const nlohmann::json render =
      summary.value("render", nlohmann::json::object());
  EXPECT_GE(render.value("browser_crashes", 0), 1) << summary.dump();
  EXPECT_GE(render.value("browser_spawns", 0), 2) << summary.dump();
  EXPECT_EQ(render.value("browser_retirements", -1), 0) << summary.dump();
  EXPECT_TRUE(render.contains("browsers_alive")) << summary.dump();
  // And nothing of either browser is left.
  EXPECT_EQ(Describe(Leftovers(before, absl::Seconds(10))), "");
}

// kill -9 of sieve, one Ctrl-C, two Ctrl-Cs: each while a render waits.
struct Ending {
  const char* name;
  std::vector<int> signals;
  int exit_code;  // WaitFor's: 128 + signal when killed
};

class CrawlRenderEndingTest : public ::testing::TestWithParam<Ending> {};

TEST_P(CrawlRenderEndingTest, LeavesNoChromiumProcess) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  const Ending& ending = GetParam();
  std::unique_ptr<GatedSite> site = LifeSite();
  const std::filesystem::path dir =
      FreshDir(absl::StrCat("render-life-", ending.name));
  const pid_t sieve = StartRenderingCrawl(*site, dir);
  ASSERT_TRUE(site->WaitFor("/slow.js")) << ReadFile(dir / "log.txt");
  const Browsers before = WaitForBrowser(sieve);
  ASSERT_FALSE(before.leaders.empty()) << ReadFile(dir / "log.txt");
  for (int sig : ending.signals) {
    ASSERT_EQ(::kill(sieve, sig), 0);
    absl::SleepFor(absl::Milliseconds(200));
  }
  // The page's script may come now: a clean stop need not wait for the
  // transfer's grace period.
  site->Open();
  EXPECT_EQ(WaitFor(sieve), ending.exit_code) << ReadFile(dir / "log.txt");
  EXPECT_EQ(Describe(Leftovers(before, absl::Seconds(10))), "")
      << "browser processes of " << before.pids.size() << " left behind";
}

INSTANTIATE_TEST_SUITE_P(
    Endings, CrawlRenderEndingTest,
    ::testing::Values(Ending{"KillNine", {SIGKILL}, 128 + SIGKILL},
                      Ending{"CtrlC", {SIGINT}, 3},
                      Ending{"CtrlCTwice", {SIGINT, SIGINT}, 128 + SIGINT}),
    [](const ::testing::TestParamInfo<Ending>& param_info) {
      return std::string(param_info.param.name);
    });

}  // namespace
}  // namespace sieve
