// render/browser_pool.h: `browsers` Chromium processes with `tabs` tabs each,
// replaced when they grow old, fat, or die.
//
// Render() takes a free tab (spawning a browser when a slot has none), renders
// there (render/browser.h) and gives the tab back. A browser is:
//  - retired (closed once its renders end, the next one spawned at once)
//    after `pages_per_browser` pages, or when the PSS of its processes
//    (/proc/<pid>/smaps_rollup, checked every kPssCheckEvery pages) passes
//    `max_browser_mb`: browsers leak, and a fresh one costs about a second;
//  - killed (its whole process group) when it crashed, closed its pipe or
//    stopped answering; the render that saw it fails with kUnavailable (the
//    caller keeps the page's static links), and the slot respawns after a
//    back-off (1 s, doubling to 60 s while crashes go on);
//  - after `max_crashes` crashes within `crash_window` the pool switches
//    itself off: every later Render() fails with kFailedPrecondition and
//    disabled_reason() says why, once for the caller to warn.
// Destruction kills every browser: no process is left behind.
//
// Thread-safe; Render() blocks while every tab is busy, at most the render's
// own timeout.
//
// Example:
//   sieve::BrowserPoolOptions options;
//   options.browsers = 2;
//   absl::StatusOr<std::unique_ptr<sieve::BrowserPool>> pool =
//       sieve::BrowserPool::Create(options);  // fails: rendering unavailable
//   absl::StatusOr<sieve::RenderResult> result =
//       (*pool)->Render(page, handler, sieve::RenderOptions{});
#ifndef SIEVE_RENDER_BROWSER_POOL_H_
#define SIEVE_RENDER_BROWSER_POOL_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "render/browser.h"

namespace sieve {

struct BrowserPoolOptions {
  BrowserOptions browser;
  // Browser processes at most (render.browsers). REQUIRES: >= 1. Default: 1.
  int browsers = 1;
  // Pages rendered at once in one browser (render.tabs). REQUIRES: >= 1.
  // Default: 4.
  int tabs = 4;
  // Pages a browser renders before it is replaced (render.pages_per_browser).
  // REQUIRES: >= 1. Default: 500.
  int pages_per_browser = 500;
  // PSS of a browser's processes, in MiB, past which it is replaced
  // (render.max_browser_mb). REQUIRES: >= 64. Default: 1024.
  int64_t max_browser_mb = 1024;
  // Crashes (deaths, pipe EOFs, hangs, failed starts) within crash_window
  // that switch rendering off. REQUIRES: >= 1. Default: 5 in 10 minutes.
  int max_crashes = 5;
  absl::Duration crash_window = absl::Minutes(10);
  // First wait before a dead browser's slot spawns again; doubles with each
  // crash in the window, up to 60 s. REQUIRES: >= 0. Default: 1 s.
  absl::Duration respawn_backoff = absl::Seconds(1);
  // How long a browser may take to answer after it is spawned.
  // REQUIRES: > 0. Default: 30 s.
  absl::Duration startup_timeout = absl::Seconds(30);
};

class BrowserPool {
 public:
  // PSS is read every this many pages of a browser.
  static constexpr int kPssCheckEvery = 8;

  // Checks the options and starts the first browser, so a machine where
  // Chromium cannot run (not installed, no sandbox possible) is known at
  // once: the error says why.
  static absl::StatusOr<std::unique_ptr<BrowserPool>> Create(
      const BrowserPoolOptions& options);
  ~BrowserPool();
  BrowserPool(const BrowserPool&) = delete;
  BrowserPool& operator=(const BrowserPool&) = delete;

  // Renders `page` in a free tab (see the file comment). Errors: those of
  // Browser::Render; kFailedPrecondition once the pool is off;
  // kDeadlineExceeded when no tab came free within options.timeout.
  absl::StatusOr<RenderResult> Render(const PageToRender& page,
                                      RenderHandler& handler,
                                      const RenderOptions& options);

  struct Stats {
    int64_t pages = 0;        // renders finished, failed ones included
    int64_t crashes = 0;      // browsers that died, hung or failed to start
    int64_t retirements = 0;  // browsers replaced for age or memory
    int64_t spawns = 0;       // browsers started
    int browsers_alive = 0;
  };
  Stats stats() const;
  // OK while rendering is on; why it was switched off otherwise.
  absl::Status disabled_reason() const;
  // The pids of every live process of every browser (for tests and metrics).
  std::vector<pid_t> ProcessIds() const;

 private:
  explicit BrowserPool(const BrowserPoolOptions& options);

  struct Slot {
    std::shared_ptr<Browser> browser;
    int active = 0;         // renders running in it
    bool spawning = false;  // a thread is launching its browser
    bool retiring = false;  // no new renders; closed when active is 0
    absl::Time next_spawn = absl::InfinitePast();
  };
  // A slot with a free tab, spawning a browser when needed; blocks until
  // `deadline`.
  struct Lease {
    size_t slot;
    std::shared_ptr<Browser> browser;
  };
  absl::StatusOr<Lease> Acquire(absl::Time deadline);
  // Gives the tab back; decides retirement or death from the render's end.
  // Returns a browser to destroy outside the lock.
  std::shared_ptr<Browser> Release(const Lease& lease,
                                   const absl::Status& status);
  void RecordCrashLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Duration BackoffLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const BrowserPoolOptions options_;
  mutable absl::Mutex mu_;
  std::vector<Slot> slots_ ABSL_GUARDED_BY(mu_);
  std::deque<absl::Time> crash_times_ ABSL_GUARDED_BY(mu_);
  absl::Status disabled_ ABSL_GUARDED_BY(mu_);
  int64_t changes_ ABSL_GUARDED_BY(mu_) = 0;  // wakes Acquire()
  Stats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace sieve

#endif  // SIEVE_RENDER_BROWSER_POOL_H_
