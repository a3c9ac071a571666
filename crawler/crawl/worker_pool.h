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

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

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
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      tasks_.clear();
    }
    work_cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<Result()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back(std::move(task));
      ++pending_;
    }
    work_cv_.notify_one();
  }

  // Results finished since the last call, in completion order.
  std::vector<Result> TakeResults() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Result> out;
    out.swap(results_);
    pending_ -= out.size();
    return out;
  }

  // Blocks until every submitted task has finished (its result waits in
  // TakeResults).
  void WaitIdle() {
    std::unique_lock<std::mutex> lock(mu_);
    idle_cv_.wait(lock, [this] { return tasks_.empty() && running_ == 0; });
  }

  // Tasks submitted whose result has not been taken.
  size_t pending() const {
    std::lock_guard<std::mutex> lock(mu_);
    return pending_;
  }

 private:
  void Work() {
    while (true) {
      std::function<Result()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_cv_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (stopping_) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
        ++running_;
      }
      Result result = task();
      {
        std::lock_guard<std::mutex> lock(mu_);
        results_.push_back(std::move(result));
        --running_;
      }
      idle_cv_.notify_all();
      notify_();
    }
  }

  const std::function<void()> notify_;
  // std::mutex, not absl::Mutex: the installed Abseil has no TSan annotations,
  // so ThreadSanitizer reported absl::Condition's reads as races.
  mutable std::mutex mu_;
  std::condition_variable work_cv_;            // A task queued, or stopping.
  std::condition_variable idle_cv_;            // A task finished.
  std::deque<std::function<Result()>> tasks_;  // Guarded by mu_.
  std::vector<Result> results_;                // Guarded by mu_.
  size_t running_ = 0;                         // Guarded by mu_.
  size_t pending_ = 0;                         // Guarded by mu_.
  bool stopping_ = false;                      // Guarded by mu_.
  std::vector<std::thread> threads_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CRAWL_WORKER_POOL_H_
