// Tests of render/browser_pool.h with the real Chromium: a kill -9 of a
// browser during a render is reported and the slot respawns; old browsers are
// retired; repeated crashes switch rendering off; nothing outlives the pool.
#include "render/browser_pool.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/render/render_test_util.h"

namespace sieve {
namespace {

using render_test::HtmlPage;
using render_test::MemorySite;

bool Alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() &&
         line[close + 2] != 'Z' && line[close + 2] != 'X';
}

bool AllGone(const std::vector<pid_t>& pids, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    bool any = false;
    for (pid_t pid : pids) any = any || Alive(pid);
    if (!any) return true;
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(50));
  }
}

// Kills, with SIGKILL, the browser whose pid it is given while the page
// waits for its script.
class KillingSite : public RenderHandler {
 public:
  std::atomic<pid_t> victim{0};
  absl::StatusOr<SubresourceResponse> Fetch(
      const SubresourceRequest&) override {
    if (pid_t pid = victim.exchange(0); pid > 0) kill(pid, SIGKILL);
    return SubresourceResponse{};
  }
};

// The browser's own process among a pool's: the leader of its process group.
// Not the smallest pid: pids wrap around (at 32,768 on this machine, soon
// during a build), and a renderer may then have a smaller one.
pid_t BrowserLeader(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    if (getpgid(pid) == pid) return pid;
  }
  return 0;
}

const PageToRender& PageWithScript() {
  static const PageToRender page =
      HtmlPage("http://app.test/",
               "<a href=\"/static\">s</a><script src=\"/a.js\">"
               "</script>");
  return page;
}

TEST(BrowserPoolTest, AKilledBrowserIsReportedAndRespawned) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  BrowserPoolOptions options;
  options.tabs = 2;
  options.respawn_backoff = absl::ZeroDuration();
  absl::StatusOr<std::unique_ptr<BrowserPool>> pool =
      BrowserPool::Create(options);
  ASSERT_TRUE(pool.ok()) << pool.status();
  std::vector<pid_t> first = (*pool)->ProcessIds();
  ASSERT_FALSE(first.empty());

  // Two tabs at once, then a kill -9 of the browser (its process group's
  // leader) in the middle of a render.
  MemorySite site;
  site.Add("http://app.test/a.js", "text/javascript", "");
  std::thread other([&] {
    EXPECT_TRUE((*pool)->Render(PageWithScript(), site, RenderOptions{}).ok());
  });
  EXPECT_TRUE((*pool)->Render(PageWithScript(), site, RenderOptions{}).ok());
  other.join();

  KillingSite killer;
  killer.victim = BrowserLeader(first);
  ASSERT_GT(killer.victim, 0);
  absl::StatusOr<RenderResult> killed =
      (*pool)->Render(PageWithScript(), killer, RenderOptions{});
  EXPECT_EQ(killed.status().code(), absl::StatusCode::kUnavailable)
      << killed.status();
  EXPECT_TRUE(AllGone(first, absl::Seconds(5)));

  absl::StatusOr<RenderResult> after =
      (*pool)->Render(PageWithScript(), site, RenderOptions{});
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_FALSE(after->links.empty());
  BrowserPool::Stats stats = (*pool)->stats();
  EXPECT_EQ(stats.crashes, 1);
  EXPECT_EQ(stats.spawns, 2);
  EXPECT_EQ(stats.pages, 4);
  EXPECT_EQ(stats.browsers_alive, 1);
  EXPECT_TRUE((*pool)->disabled_reason().ok());

  std::vector<pid_t> second = (*pool)->ProcessIds();
  pool->reset();
  EXPECT_TRUE(AllGone(second, absl::Seconds(5)))
      << "a browser process outlived the pool";
}

TEST(BrowserPoolTest, ABrowserIsRetiredAfterItsPagesAndCrashesSwitchItOff) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  BrowserPoolOptions options;
  options.tabs = 1;
  options.pages_per_browser = 2;
  options.max_crashes = 1;
  absl::StatusOr<std::unique_ptr<BrowserPool>> pool =
      BrowserPool::Create(options);
  ASSERT_TRUE(pool.ok()) << pool.status();
  MemorySite site;
  site.Add("http://app.test/a.js", "text/javascript", "");
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*pool)->Render(PageWithScript(), site, RenderOptions{}).ok());
  }
  BrowserPool::Stats stats = (*pool)->stats();
  EXPECT_EQ(stats.retirements, 1);
  EXPECT_EQ(stats.spawns, 2);
  EXPECT_EQ(stats.crashes, 0);

  // One crash is max_crashes here: rendering goes off, and says why.
  std::vector<pid_t> pids = (*pool)->ProcessIds();
  KillingSite killer;
  killer.victim = BrowserLeader(pids);
  ASSERT_GT(killer.victim, 0);
  EXPECT_FALSE((*pool)->Render(PageWithScript(), killer, RenderOptions{}).ok());
  absl::StatusOr<RenderResult> off =
      (*pool)->Render(PageWithScript(), site, RenderOptions{});
  EXPECT_EQ(off.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE((*pool)->disabled_reason().message().find("switched off"),
            std::string::npos);
  EXPECT_TRUE(AllGone(pids, absl::Seconds(5)));
}

TEST(BrowserPoolTest, BadOptionsAreRefused) {
  BrowserPoolOptions options;
  options.tabs = 0;
  EXPECT_EQ(BrowserPool::Create(options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sieve
