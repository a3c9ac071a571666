// render/internal/tab.h: a tab of a browser context that renders pages one
// after another (the steps are in render/browser.h's file comment). A tab
// keeps its renderer process from page to page of its host: Chromium starts
// one per new tab, ~100 ms of CPU each.
#ifndef SIEVE_RENDER_INTERNAL_TAB_H_
#define SIEVE_RENDER_INTERNAL_TAB_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "render/devtools_client.h"
#include "render/render_types.h"

namespace sieve::render_internal {

class Tab {
 public:
  // Opens a tab in `context_id` and attaches to it (its DevTools session set
  // up once: Page, Fetch for every request, service workers hidden; frames
  // drawn only when a render asks for one). `frames` is the browser's: its
  // tabs ask for frames one at a time (concurrent
  // HeadlessExperimental.beginFrame calls crashed Chromium 156, 3-14 times in
  // 100 pages with 4 tabs). Fails when the browser does not answer within
  // `timeout`.
  static absl::StatusOr<std::unique_ptr<Tab>> Open(
      DevToolsClient& client, absl::Mutex& frames,
      const std::string& context_id, absl::Duration timeout);
  // Closes the tab unless Forget() was called (its context is being disposed
  // of, which closes it).
  ~Tab();
  Tab(const Tab&) = delete;
  Tab& operator=(const Tab&) = delete;

  // Renders `page` in this tab: navigates it from the page before (whose
  // leftover requests are refused, never passed to `handler`).
  absl::StatusOr<RenderResult> Render(const PageToRender& page,
                                      RenderHandler& handler,
                                      const RenderOptions& options);
  // Whether another page may be rendered here: false after an error, a
  // render cut by its wall-clock limit or a crash (the tab is closed then).
  bool reusable() const { return reusable_; }
  int pages() const { return pages_; }
  // The tab goes with its browser context: the destructor does not close it.
  void Forget() { forgotten_ = true; }

 private:
  Tab(DevToolsClient& client, absl::Mutex& frames, std::string target_id,
      std::string session)
      : client_(client),
        frames_(frames),
        target_id_(std::move(target_id)),
        session_(std::move(session)) {}

  DevToolsClient& client_;
  absl::Mutex& frames_;
  const std::string target_id_;
  const std::string session_;
  std::string user_agent_;  // The override set now ("" = none yet).
  bool reusable_ = true;
  bool forgotten_ = false;
  int pages_ = 0;
};

}  // namespace sieve::render_internal

#endif  // SIEVE_RENDER_INTERNAL_TAB_H_
