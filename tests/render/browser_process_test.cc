// Tests of the browser's process (render/browser_process.h, render/browser.h)
// with the real Chromium: who it runs as, and that nothing of it survives its
// owner: destruction, a kill -9 of the owner, a kill -9 of the browser itself.
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "render/browser.h"
#include "tests/render/render_test_util.h"

extern char** environ;

namespace sieve {
namespace {

// Whether `pid` is a live process (a zombie waiting for init counts as gone).
bool Alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() &&
         line[close + 2] != 'Z' && line[close + 2] != 'X';
}

// Waits up to `timeout` for every pid to be gone; returns those still alive.
std::vector<pid_t> Survivors(const std::vector<pid_t>& pids,
                             absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::vector<pid_t> alive;
  do {
    alive.clear();
    for (pid_t pid : pids) {
      if (Alive(pid)) alive.push_back(pid);
    }
    if (alive.empty()) break;
    absl::SleepFor(absl::Milliseconds(50));
  } while (absl::Now() < deadline);
  return alive;
}

TEST(BrowserProcessTest, RunsInItsOwnGroupAsAnUnprivilegedUserWhenRoot) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  absl::StatusOr<std::unique_ptr<Browser>> browser =
      Browser::Launch(BrowserOptions{});
  ASSERT_TRUE(browser.ok()) << browser.status();
  std::vector<pid_t> pids = (*browser)->GroupPids();
  EXPECT_GE(pids.size(), 2u);  // the browser and its helpers
  EXPECT_GT((*browser)->PssBytes(), 10 << 20);
  EXPECT_NE(getpgrp(), (*browser)->pid());
  if (geteuid() == 0) {
    for (pid_t pid : pids) {
      struct stat st;
      ASSERT_EQ(stat(("/proc/" + std::to_string(pid)).c_str(), &st), 0);
      EXPECT_NE(st.st_uid, 0u) << "pid " << pid << " runs as root";
    }
  }
  browser->reset();
  EXPECT_TRUE(Survivors(pids, absl::Seconds(5)).empty())
      << "processes of the browser outlived it";
}

TEST(BrowserProcessTest, AKilledBrowserFailsTheRenderAndLeavesNothing) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  absl::StatusOr<std::unique_ptr<Browser>> browser =
      Browser::Launch(BrowserOptions{});
  ASSERT_TRUE(browser.ok()) << browser.status();
  // The handler kill -9s the browser (not its group) in the middle of a render.
  class Killer : public RenderHandler {
   public:
    explicit Killer(pid_t pid) : pid_(pid) {}
    absl::StatusOr<SubresourceResponse> Fetch(
        const SubresourceRequest&) override {
      kill(pid_, SIGKILL);
      return SubresourceResponse{};
    }
    pid_t pid_;
  } killer((*browser)->pid());
  std::vector<pid_t> pids = (*browser)->GroupPids();
  const absl::Time start = absl::Now();
  absl::StatusOr<RenderResult> result = (*browser)->Render(
      render_test::HtmlPage("http://app.test/",
                            "<script src=\"/app.js\"></script>"),
      killer, RenderOptions{});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable)
      << result.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));  // not the 30 s limit
  EXPECT_FALSE((*browser)->alive());
  browser->reset();
  EXPECT_TRUE(Survivors(pids, absl::Seconds(5)).empty());
}

// Run as a child process by the test below: launches a browser, prints its
// pids to the file named by SIEVE_RENDER_PID_FILE, then waits to be killed.
TEST(BrowserProcessTest, ChildHoldingABrowser) {
  const char* pid_file = getenv("SIEVE_RENDER_PID_FILE");
  if (pid_file == nullptr) GTEST_SKIP() << "run by KillingTheOwner...";
  absl::StatusOr<std::unique_ptr<Browser>> browser =
      Browser::Launch(BrowserOptions{});
  ASSERT_TRUE(browser.ok()) << browser.status();
  {
    std::ofstream out(std::string(pid_file) + ".tmp");
    for (pid_t pid : (*browser)->GroupPids()) out << pid << "\n";
  }
  std::rename((std::string(pid_file) + ".tmp").c_str(), pid_file);
  absl::SleepFor(absl::Seconds(60));
}

TEST(BrowserProcessTest, KillingTheOwnerWithSigkillTakesTheBrowserDown) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  const std::string pid_file =
      ::testing::TempDir() + "render_pids_" + std::to_string(getpid());
  std::remove(pid_file.c_str());
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.push_back(*e);
  env_strings.push_back("SIEVE_RENDER_PID_FILE=" + pid_file);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string filter = "--gtest_filter=BrowserProcessTest.ChildHoldingABrowser";
  std::string self = "/proc/self/exe";
  char* argv[] = {self.data(), filter.data(), nullptr};
  pid_t child;
  ASSERT_EQ(
      posix_spawn(&child, self.c_str(), nullptr, nullptr, argv, envp.data()),
      0);
  std::vector<pid_t> pids;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (pids.empty() && absl::Now() < deadline) {
    std::ifstream in(pid_file);
    std::string line;
    while (std::getline(in, line)) {
      int pid;
      if (absl::SimpleAtoi(line, &pid)) pids.push_back(pid);
    }
    if (pids.empty()) absl::SleepFor(absl::Milliseconds(50));
  }
  ASSERT_FALSE(pids.empty()) << "the child did not start its browser";
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  std::remove(pid_file.c_str());
  EXPECT_TRUE(Survivors(pids, absl::Seconds(10)).empty())
      << "Chromium outlived a kill -9 of its owner";
}

}  // namespace
}  // namespace sieve
