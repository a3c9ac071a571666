#include "crawler/render/render_queue.h"

#include <chrono>
#include <utility>

#include "absl/time/clock.h"

namespace sieve {

class RenderQueue::LoopHandler : public RenderHandler {
 public:
  explicit LoopHandler(RenderQueue& queue) : queue_(queue) {}
  absl::StatusOr<SubresourceResponse> Fetch(
      const SubresourceRequest& request) override {
    return queue_.Post(request);
  }

 private:
  RenderQueue& queue_;
};

absl::StatusOr<std::unique_ptr<RenderQueue>> RenderQueue::Create(
    const Options& options, std::function<void()> wakeup,
    std::function<void(RenderJob&)> on_rendered, bool start_now) {
  std::unique_ptr<RenderQueue> queue(
      new RenderQueue(options, std::move(wakeup), std::move(on_rendered)));
  if (start_now) {
    absl::Status why;
    if (queue->Browsers(why) == nullptr) return why;
  }
  return queue;
}

RenderQueue::RenderQueue(const Options& options, std::function<void()> wakeup,
                         std::function<void(RenderJob&)> on_rendered)
    : options_(options),
      wakeup_(std::move(wakeup)),
      on_rendered_(std::move(on_rendered)),
      handler_(std::make_unique<LoopHandler>(*this)),
      cache_(std::make_unique<CachingHandler>(*handler_, options.cache_bytes)),
      renders_(std::make_unique<WorkerPool<RenderJob>>(
          options.pool.browsers * options.pool.tabs, wakeup_)) {}

RenderQueue::~RenderQueue() {
  Close();
  renders_.reset();  // Waits for the renders running; drops queued ones.
}

BrowserPool* RenderQueue::Browsers(absl::Status& why) {
  std::lock_guard<std::mutex> lock(pool_.mu);
  if (!pool_.tried) {
    pool_.tried = true;
    absl::StatusOr<std::unique_ptr<BrowserPool>> pool =
        BrowserPool::Create(options_.pool);
    if (pool.ok()) {
      pool_.browsers = *std::move(pool);
      pool_ready_ = pool_.browsers.get();
    } else {
      pool_.error = pool.status();
      pool_failed_ = true;
    }
  }
  why = pool_.error;
  return pool_.browsers.get();
}

absl::Status RenderQueue::unavailable() const {
  if (pool_failed_) {
    std::lock_guard<std::mutex> lock(pool_.mu);
    return pool_.error;
  }
  const BrowserPool* pool = pool_ready_;
  return pool != nullptr ? pool->disabled_reason() : absl::OkStatus();
}

BrowserPool::Stats RenderQueue::browser_stats() const {
  const BrowserPool* pool = pool_ready_;
  return pool != nullptr ? pool->stats() : BrowserPool::Stats{};
}

BrowserPool::Stats RenderQueue::TakeBrowserCounts() {
  const BrowserPool::Stats now = browser_stats();
  const BrowserPool::Stats before = std::exchange(browsers_counted_, now);
  return BrowserPool::Stats{.pages = now.pages - before.pages,
                            .crashes = now.crashes - before.crashes,
                            .retirements = now.retirements - before.retirements,
                            .spawns = now.spawns - before.spawns,
                            .browsers_alive = now.browsers_alive};
}

std::optional<absl::Status> RenderQueue::TakeOffNotice() {
  if (off_noticed_) return std::nullopt;
  absl::Status off = unavailable();
  if (off.ok()) return std::nullopt;
  off_noticed_ = true;
  return off;
}

void RenderQueue::Submit(RenderJob job) {
  renders_->Submit([this, job = std::move(job)]() mutable {
    absl::Status why;
    BrowserPool* pool = Browsers(why);
    if (pool == nullptr) {
      job.result = why;
      return std::move(job);
    }
    PageToRender page;
    page.url = job.response.url;
    page.status = job.response.status;
    page.headers = {{"Content-Type", job.response.headers.content_type}};
    // Its cookies, for the requests the page makes (the browser context's
    // jar keeps them).
    for (const std::string& cookie : job.response.headers.set_cookie) {
      page.headers.emplace_back("Set-Cookie", cookie);
    }
    page.body = job.response.body;
    job.result = pool->Render(page, *cache_, options_.render);
    if (job.result.ok()) on_rendered_(job);
    return std::move(job);
  });
}

absl::StatusOr<SubresourceResponse> RenderQueue::Post(
    const SubresourceRequest& request) {
  auto answer =
      std::make_shared<std::promise<absl::StatusOr<SubresourceResponse>>>();
  std::future<absl::StatusOr<SubresourceResponse>> future =
      answer->get_future();
  uint64_t ticket = 0;
  {
    std::lock_guard<std::mutex> lock(inbox_.mu);
    if (inbox_.closed) return absl::UnavailableError("the crawl is ending");
    ticket = inbox_.next_ticket++;
    inbox_.asks.push_back(Ask{.ticket = ticket, .request = request});
    inbox_.waiting.emplace(ticket, answer);
  }
  wakeup_();
  if (future.wait_until(absl::ToChronoTime(request.deadline)) ==
      std::future_status::ready) {
    return future.get();
  }
  std::lock_guard<std::mutex> lock(inbox_.mu);
  inbox_.waiting.erase(ticket);
  return absl::DeadlineExceededError("render timeout waiting for the fetch");
}

std::vector<RenderQueue::Ask> RenderQueue::TakeAsks() {
  std::vector<Ask> out;
  std::lock_guard<std::mutex> lock(inbox_.mu);
  for (Ask& ask : held_) {
    if (inbox_.waiting.contains(ask.ticket)) out.push_back(std::move(ask));
  }
  held_.clear();
  for (Ask& ask : inbox_.asks) {
    if (inbox_.waiting.contains(ask.ticket)) out.push_back(std::move(ask));
  }
  inbox_.asks.clear();
  return out;
}

void RenderQueue::Answer(uint64_t ticket,
                         absl::StatusOr<SubresourceResponse> answer) {
  std::shared_ptr<std::promise<absl::StatusOr<SubresourceResponse>>> waiter;
  {
    std::lock_guard<std::mutex> lock(inbox_.mu);
    auto it = inbox_.waiting.find(ticket);
    if (it == inbox_.waiting.end()) return;
    waiter = std::move(it->second);
    inbox_.waiting.erase(it);
  }
  waiter->set_value(std::move(answer));
}

void RenderQueue::Close() {
  absl::flat_hash_map<
      uint64_t,
      std::shared_ptr<std::promise<absl::StatusOr<SubresourceResponse>>>>
      waiting;
  {
    std::lock_guard<std::mutex> lock(inbox_.mu);
    inbox_.closed = true;
    inbox_.asks.clear();
    waiting.swap(inbox_.waiting);
  }
  held_.clear();
  for (auto& [ticket, waiter] : waiting) {
    waiter->set_value(absl::UnavailableError("the crawl is ending"));
  }
}

}  // namespace sieve
