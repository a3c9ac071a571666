// crawler/loop/worker_pool.h: a small fixed pool of threads that runs tasks
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
//   - Results come back in submission order: a finished task's result waits
//     for those of the tasks submitted before it (the crawl writes a host's
//     records in the order it fetched them).
//   - Tasks start in submission order, and a task with a `weight` starts only
//     when the weights of the tasks running beside it leave room for it under
//     the pool's `weight_budget`; a task heavier than the budget runs alone. So
//     one heavy task holds back the ones behind it until it has room. The
//     crawl weighs a page by its body size: gumbo's tree is about 15 times
//     the HTML, and two 10 MB pages parsed at once hold 300 MiB.
//   - The destructor waits for running tasks and drops queued ones.
#ifndef SIEVE_CRAWLER_LOOP_WORKER_POOL_H_
#define SIEVE_CRAWLER_LOOP_WORKER_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace sieve {

template <typename Result>
class WorkerPool {
 public:
  // Starts `threads` threads (>= 1). `notify` is called (from a pool thread)
  // after each result. Tasks running at once weigh at most `weight_budget`
  // together (see Submit), except one heavier task running alone.
  WorkerPool(int threads, std::function<void()> notify,
             size_t weight_budget = SIZE_MAX)
      : notify_(std::move(notify)), weight_budget_(weight_budget) {
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

  // The pool's threads.
  size_t threads() const { return threads_.size(); }

  // Queues `task`; it starts once the tasks before it have started and the
  // running tasks' weights plus `weight` fit the budget (or nothing runs).
  void Submit(std::function<Result()> task, size_t weight = 0) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back(Task{std::move(task), weight, next_submitted_++});
      ++pending_;
    }
    work_cv_.notify_one();
  }

  // The results not taken yet whose tasks, and every task submitted before
  // them, have finished; in submission order.
  std::vector<Result> TakeResults() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Result> out;
    for (auto it = results_.begin();
         it != results_.end() && it->first == next_taken_;
         it = results_.erase(it)) {
      out.push_back(std::move(it->second));
      ++next_taken_;
    }
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
      Task task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_cv_.wait(lock, [this] { return stopping_ || FrontFits(); });
        if (stopping_) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
        ++running_;
        running_weight_ += task.weight;
      }
      Result result = task.run();
      {
        std::lock_guard<std::mutex> lock(mu_);
        results_.emplace(task.seq, std::move(result));
        --running_;
        running_weight_ -= task.weight;
      }
      idle_cv_.notify_all();
      // A finished task may make room for the next one: wake every waiting
      // thread, as the one woken by Submit may have found no room.
      work_cv_.notify_all();
      notify_();
    }
  }

  struct Task {
    std::function<Result()> run;
    size_t weight = 0;
    uint64_t seq = 0;  // Submission order.
  };

  // Guarded by mu_: the next task may start now.
  bool FrontFits() const {
    if (tasks_.empty()) return false;
    return running_ == 0 ||
           (running_weight_ <= weight_budget_ &&
            tasks_.front().weight <= weight_budget_ - running_weight_);
  }

  const std::function<void()> notify_;
  const size_t weight_budget_;
  // std::mutex, not absl::Mutex: the installed Abseil has no TSan annotations,
  // so ThreadSanitizer reported absl::Condition's reads as races.
  mutable std::mutex mu_;
  std::condition_variable work_cv_;     // A task queued, or stopping.
  std::condition_variable idle_cv_;     // A task finished.
  std::deque<Task> tasks_;              // Guarded by mu_.
  std::map<uint64_t, Result> results_;  // By Task::seq. Guarded by mu_.
  uint64_t next_submitted_ = 0;         // Guarded by mu_.
  uint64_t next_taken_ = 0;             // Guarded by mu_.
  size_t running_ = 0;                  // Guarded by mu_.
  size_t running_weight_ = 0;           // Guarded by mu_.
  size_t pending_ = 0;                  // Guarded by mu_.
  bool stopping_ = false;               // Guarded by mu_.
  std::vector<std::thread> threads_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_WORKER_POOL_H_
