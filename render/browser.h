// render/browser.h: one headless Chromium that renders pages, several at
// once (one tab each), every request they make answered by the caller.
//
// A Browser owns its process (render/browser_process.h) and its DevTools
// connection (render/devtools_client.h). Render() takes a tab in the browser
// context of the page's host (cookies and storage shared by that host's
// pages only; a context is replaced after kPagesPerContext pages): an idle
// tab of that context when there is one, so the host's pages share a
// renderer process (Chromium starts one per new tab, ~100 ms of CPU), or a
// new one (render/internal/tab.h). It pauses
// every request of the tab (Fetch.enable), answers the page's own document
// with the caller's bytes and every other request through the caller's
// RenderHandler, lets the page run for a virtual-time budget that stands still
// while a request waits (Emulation.setVirtualTimePolicy,
// pauseIfNetworkFetchesPending) under a hard wall-clock limit, never
// "network idle", then asks for two frames (a tab draws none of its own, so
// requestAnimationFrame and the observers run in these, each followed by
// 100 ms of virtual time), then reads the links in an isolated world (the
// page's scripts cannot redefine what the reading script calls). The tab then waits
// for the host's next page (at most kMaxIdleTabs idle in all, the least
// recently used closed first); one that failed, crashed or was cut by the
// wall-clock limit is closed.
// Service workers are hidden from pages.
//
// Thread-safe: call Render() from as many threads as the browser should have
// tabs. A browser that crashed, closed its pipe or stopped answering fails
// every later Render() with kUnavailable; throw it away (the pool does,
// render/browser_pool.h). The destructor closes the pipe and kills the
// process group: no process is left behind.
//
// Example:
//   absl::StatusOr<std::unique_ptr<sieve::Browser>> browser =
//       sieve::Browser::Launch(sieve::BrowserOptions{});
//   sieve::PageToRender page{.url = url, .status = 200, .body = html};
//   absl::StatusOr<sieve::RenderResult> result =
//       (*browser)->Render(page, my_handler, sieve::RenderOptions{});
//   for (const std::string& link : result->links) ...
#ifndef SIEVE_RENDER_BROWSER_H_
#define SIEVE_RENDER_BROWSER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "render/browser_process.h"
#include "render/devtools_client.h"
#include "render/render_types.h"

namespace sieve {
namespace render_internal {
class Tab;
}  // namespace render_internal

class Browser {
 public:
  // Pages of one host rendered in one browser context before it is replaced.
  static constexpr int kPagesPerContext = 50;
  // Browser contexts kept at once; idle ones beyond it are disposed.
  static constexpr int kMaxContexts = 16;
  // Idle tabs kept for the next page of their host, in all (each holds a
  // renderer process, ~30-60 MB): render.tabs' default.
  static constexpr int kMaxIdleTabs = 4;

  // Spawns Chromium and waits until it answers (Browser.getVersion), at most
  // `startup_timeout`. Fails when it is not installed, cannot start (as root
  // without a usable sandbox, say) or does not answer in time; the process is
  // gone when it fails. Cost: 0.3-1 s of CPU.
  static absl::StatusOr<std::unique_ptr<Browser>> Launch(
      const BrowserOptions& options,
      absl::Duration startup_timeout = absl::Seconds(30));
  ~Browser();
  Browser(const Browser&) = delete;
  Browser& operator=(const Browser&) = delete;

  // Renders `page` (see the file comment). Errors: kUnavailable when the
  // browser died (crash, pipe EOF) or stopped answering, kInternal when the
  // tab crashed; a render cut by the wall-clock limit is not an error.
  absl::StatusOr<RenderResult> Render(const PageToRender& page,
                                      RenderHandler& handler,
                                      const RenderOptions& options);

  // Whether the DevTools connection is still open.
  bool alive() const { return !client_->closed(); }
  // Why it is not; OK while alive.
  absl::Status close_reason() const { return client_->close_reason(); }
  // Renders finished (successful or not) since launch.
  int64_t pages_rendered() const { return pages_rendered_.load(); }
  // PSS of all its processes (render/browser_process.h). Cost: a /proc scan.
  int64_t PssBytes() const { return process_->PssBytes(); }
  pid_t pid() const { return process_->pid(); }
  // SIGKILL to its process group now: every render in it fails with
  // kUnavailable at once (the pool does this to a hung browser).
  void Kill() { process_->SignalGroup(); }
  std::vector<pid_t> GroupPids() const { return process_->GroupPids(); }

 private:
  Browser(std::unique_ptr<BrowserProcess> process);

  struct IdleTab {
    std::unique_ptr<render_internal::Tab> tab;
    uint64_t last_used = 0;  // idle_clock_ when it went idle
  };
  struct HostContext {
    std::string id;
    int pages = 0;   // renders started in it
    int active = 0;  // renders running in it
    std::vector<IdleTab> idle;
  };
  struct Lease {
    std::string context_id;
    std::unique_ptr<render_internal::Tab> tab;  // null: open one
  };
  // The browser context of `host` for one more render (created when needed)
  // and an idle tab of it, if any.
  absl::StatusOr<Lease> AcquireContext(const std::string& host);
  // Ends a render: `tab` (may be null) waits for the host's next page or is
  // closed.
  void ReleaseContext(const std::string& host, const std::string& id,
                      std::unique_ptr<render_internal::Tab> tab);
  // Disposes of `context` and the idle tabs in it. REQUIRES: contexts_mu_.
  void DisposeLocked(HostContext& context)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(contexts_mu_);

  std::unique_ptr<BrowserProcess> process_;
  std::unique_ptr<DevToolsClient> client_;
  // Held by a tab while it asks for a frame (render/internal/tab.h).
  absl::Mutex frames_;
  std::atomic<int64_t> pages_rendered_{0};

  absl::Mutex contexts_mu_;
  absl::flat_hash_map<std::string, HostContext> contexts_
      ABSL_GUARDED_BY(contexts_mu_);
  // Replaced contexts still in use: id -> renders running in it.
  absl::flat_hash_map<std::string, int> retired_ ABSL_GUARDED_BY(contexts_mu_);
  int idle_tabs_ ABSL_GUARDED_BY(contexts_mu_) = 0;
  uint64_t idle_clock_ ABSL_GUARDED_BY(contexts_mu_) = 0;
};

}  // namespace sieve

#endif  // SIEVE_RENDER_BROWSER_H_
