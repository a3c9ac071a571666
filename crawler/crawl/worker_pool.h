// crawler/crawl/worker_pool.h: a small fixed pool of threads that runs tasks
// and queues their results for the crawl loop to collect.
//
// The crawl loop submits one task per fetched HTML page (parse, scope, push
// links into the Frontier) and collects the finished pages on its own thread,
// where it writes their records. A task's result wakes the loop through
// `notify` (the Fetcher's Wakeup), so the loop never sleeps on a finished page.
//
// Surprises first:
//   - Submit, TakeResults, WaitIdle and pending are for one thread (the loop);
//     tasks run on the pool's threads.
//   - The destructor waits for running tasks and drops queued ones.
#ifndef SIEVE_CRAWLER_CRAWL_WORKER_POOL_H_
#define SIEVE_CRAWLER_CRAWL_WORKER_POOL_H_

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace sieve {

template <typename Result>
class WorkerPool {
 public:
  // Starts `threads` threads (>= 1). `notify` is called (from a pool thread)
  // after each result.
  WorkerPool(int threads, std::function<void()> notify)
      : notify_(std::move(notify)) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
  }
  ~WorkerPool() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
      tasks_.clear();
    }
    for (std::thread& t : threads_) t.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<Result()> task) {
    absl::MutexLock lock(&mu_);
    tasks_.push_back(std::move(task));
    ++pending_;
  }

  // Results finished since the last call, in completion order.
  std::vector<Result> TakeResults() {
    absl::MutexLock lock(&mu_);
    std::vector<Result> out;
    out.swap(results_);
    pending_ -= out.size();
    return out;
  }

  // Blocks until every submitted task has finished (its result waits in
  // TakeResults).
  void WaitIdle() {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](WorkerPool* p) { return p->tasks_.empty() && p->running_ == 0; },
        this));
  }

  // Tasks submitted whose result has not been taken.
  size_t pending() const {
    absl::MutexLock lock(&mu_);
    return pending_;
  }

 private:
  void Work() {
    while (true) {
      std::function<Result()> task;
      {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(
            +[](WorkerPool* p) { return p->stopping_ || !p->tasks_.empty(); },
            this));
        if (stopping_) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
        ++running_;
      }
      Result result = task();
      {
        absl::MutexLock lock(&mu_);
        results_.push_back(std::move(result));
        --running_;
      }
      notify_();
    }
  }

  const std::function<void()> notify_;
  mutable absl::Mutex mu_;
  std::deque<std::function<Result()>> tasks_ ABSL_GUARDED_BY(mu_);
  std::vector<Result> results_ ABSL_GUARDED_BY(mu_);
  size_t running_ ABSL_GUARDED_BY(mu_) = 0;
  size_t pending_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CRAWL_WORKER_POOL_H_
