// crawler/render/render_queue.h: the crawl's renders (render.mode): pages
// rendered in headless Chromium off the loop thread, every request they make
// handed to the loop to fetch.
//
// Owns: the browser pool (render/browser_pool.h), the render threads (one per
// tab, since BrowserPool::Render blocks), the crawl-wide cache of scripts and
// stylesheets (render/caching_handler.h), and the inbox of subresource
// requests: a render thread's RenderHandler::Fetch posts its request here,
// wakes the loop and waits for the answer (at most the render's deadline);
// the loop drains the inbox each turn (TakeAsks), fetches or refuses each
// request and Answers it. Requests the loop cannot start yet (the host's
// delay) are held here (Hold) and come back first at the next TakeAsks.
//
// A page's way:
//   Submit(job)        the parsed page, its static links judged already
//   render thread      BrowserPool::Render with the crawl's handler
//   TakeDone()         the jobs whose renders ended, result or error, in
//                      submission order (one slow render holds back those
//                      after it)
//
// Surprises first:
//   - Submit, TakeDone, TakeAsks, Hold, Answer and pending are for the loop's
//     thread; Fetch runs on render threads.
//   - Close() (the crawl ends) refuses every request waiting and every later
//     one, so renders still running end at once with what they have; the
//     destructor closes, waits for them, then kills the browsers.
//
// Example:
//   auto queue = RenderQueue::Create(options, [&] { fetcher.Wakeup(); });
//   queue->Submit(std::move(job));
//   for (RenderQueue::Ask& ask : queue->TakeAsks()) queue->Answer(...);
//   for (RenderJob& done : queue->TakeDone()) WriteRecord(done);
#ifndef SIEVE_CRAWLER_RENDER_RENDER_QUEUE_H_
#define SIEVE_CRAWLER_RENDER_RENDER_QUEUE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "crawler/loop/worker_pool.h"
#include "crawler/output/page_record.h"
#include "crawler/policy/link_policy.h"
#include "fetch/fetch_types.h"
#include "frontier/crawl_frontier.h"
#include "render/browser_pool.h"
#include "render/caching_handler.h"
#include "render/render_types.h"

namespace sieve {

// A parsed page on its way through a render.
struct RenderJob {
  PageRecord record;
  FrontierUrl url;
  PageLinks links;         // Its static links, judged already.
  PageLinks rendered;      // The links rendering added (on_rendered).
  FetchResponse response;  // The page as fetched: the render's document.
  // Set by the render thread. Default: not rendered.
  absl::StatusOr<RenderResult> result = absl::UnknownError("not rendered");
};

class RenderQueue {
 public:
  struct Options {
    BrowserPoolOptions pool;  // render.browsers, render.tabs.
    RenderOptions render;     // render.timeout, render.max_requests_per_page.
    // Bytes of scripts and stylesheets kept for later renders.
    // Default: 64 MiB.
    int64_t cache_bytes = int64_t{64} << 20;
  };

  // `wakeup` wakes the loop (the Fetcher's Wakeup); called from render
  // threads. `on_rendered` runs on the render thread after each render (the
  // crawl judges the rendered links there). With `start_now` the browser pool
  // starts here (Chromium runs, or the error says why not); otherwise at the
  // first render (a crawl that renders nothing starts no browser), and a
  // failure then is every render's error and unavailable()'s.
  static absl::StatusOr<std::unique_ptr<RenderQueue>> Create(
      const Options& options, std::function<void()> wakeup,
      std::function<void(RenderJob&)> on_rendered, bool start_now);
  ~RenderQueue();
  RenderQueue(const RenderQueue&) = delete;
  RenderQueue& operator=(const RenderQueue&) = delete;

  void Submit(RenderJob job);
  // Jobs submitted and not taken back by TakeDone.
  size_t pending() const { return renders_->pending(); }
  std::vector<RenderJob> TakeDone() { return renders_->TakeResults(); }

  // One request of a render, waiting for the loop's answer.
  struct Ask {
    uint64_t ticket = 0;
    SubresourceRequest request;
    // The loop held it for robots.txt of its origin (fetched for it, or in
    // flight already). Default: false.
    bool awaited_robots = false;
  };
  // The held requests, then the new ones, oldest first; requests whose
  // render gave up waiting (its deadline) are dropped.
  std::vector<Ask> TakeAsks();
  // Keeps `ask` for the next TakeAsks (its host is not ready yet).
  void Hold(Ask ask) { held_.push_back(std::move(ask)); }
  // Answers the request `ticket` (a render that gave up waiting ignores it).
  void Answer(uint64_t ticket, absl::StatusOr<SubresourceResponse> answer);
  // Refuses every request waiting or to come (the crawl ends).
  void Close();
  // Waits for every render submitted (after Close: they end at once).
  void WaitIdle() { renders_->WaitIdle(); }
  bool closed() {
    std::lock_guard<std::mutex> lock(inbox_.mu);
    return inbox_.closed;
  }
  // OK while rendering works; why not once the browser pool could not start
  // or switched itself off (BrowserPool::disabled_reason).
  absl::Status unavailable() const;
  // unavailable() the first time it is not OK, for the caller to warn once;
  // nullopt otherwise.
  std::optional<absl::Status> TakeOffNotice();
  // The browser pool's figures now (BrowserPool::Stats); zeros before it
  // starts. Thread-safe. Cost: a lock of the pool.
  BrowserPool::Stats browser_stats() const;
  // What the pool counted (pages, spawns, crashes, retirements) since the
  // last call, with browsers_alive now: the loop adds it to the crawl's
  // counters, which survive --resume. The loop's.
  BrowserPool::Stats TakeBrowserCounts();

 private:
  class LoopHandler;
  RenderQueue(const Options& options, std::function<void()> wakeup,
              std::function<void(RenderJob&)> on_rendered);
  // The pool, started on first use; nullptr with `why` set when it cannot.
  BrowserPool* Browsers(absl::Status& why);
  // The render thread's side of a request (LoopHandler::Fetch).
  absl::StatusOr<SubresourceResponse> Post(const SubresourceRequest& request);

  const Options options_;
  const std::function<void()> wakeup_;
  const std::function<void(RenderJob&)> on_rendered_;
  // Started by the first render; its mutex is held while the pool starts
  // (seconds), so unavailable() reads the atomics below instead.
  struct PoolStart {
    std::mutex mu;
    std::unique_ptr<BrowserPool> browsers;  // Guarded by mu.
    absl::Status error;                     // Guarded by mu.
    bool tried = false;                     // Guarded by mu.
  };
  // Requests of renders waiting for the loop; all guarded by mu.
  struct Inbox {
    std::mutex mu;
    bool closed = false;
    uint64_t next_ticket = 1;
    std::vector<Ask> asks;  // Not taken by the loop yet.
    absl::flat_hash_map<
        uint64_t,
        std::shared_ptr<std::promise<absl::StatusOr<SubresourceResponse>>>>
        waiting;  // Not answered yet, by ticket.
  };
  mutable PoolStart pool_;
  std::atomic<BrowserPool*> pool_ready_{nullptr};  // Once started.
  std::atomic<bool> pool_failed_{false};           // pool_.error is set.
  bool off_noticed_ = false;                       // The loop's.
  BrowserPool::Stats browsers_counted_;  // The loop's: TakeBrowserCounts'.
  std::unique_ptr<LoopHandler> handler_;
  std::unique_ptr<CachingHandler> cache_;
  std::deque<Ask> held_;  // The loop's.
  Inbox inbox_;
  // Last: its threads use everything above; destroyed first.
  std::unique_ptr<WorkerPool<RenderJob>> renders_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_RENDER_RENDER_QUEUE_H_
