#include "crawler/loop/worker_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace sieve {
namespace {

// What the tasks of one test saw: how many ran at once, and the most weight
// running at once. Each task waits (bounded) for a partner to start beside it,
// so tasks that may run together do.
class Overlap {
 public:
  // Runs as a task of `weight`; waits up to `patience` until two tasks have
  // run at the same time.
  int Run(size_t weight, std::chrono::milliseconds patience) {
    std::unique_lock<std::mutex> lock(mu_);
    ++running_;
    weight_ += weight;
    max_running_ = std::max(max_running_, running_);
    max_weight_ = std::max(max_weight_, weight_);
    changed_.notify_all();
    changed_.wait_for(lock, patience, [this] { return max_running_ > 1; });
    --running_;
    weight_ -= weight;
    return 0;
  }
  int max_running() {
    std::lock_guard<std::mutex> lock(mu_);
    return max_running_;
  }
  size_t max_weight() {
    std::lock_guard<std::mutex> lock(mu_);
    return max_weight_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  int running_ = 0, max_running_ = 0;
  size_t weight_ = 0, max_weight_ = 0;
};

TEST(WorkerPoolTest, RunsEveryTaskAndHandsBackEachResult) {
  WorkerPool<int> pool(2, [] {});
  for (int i = 0; i < 100; ++i) pool.Submit([i] { return i; });
  pool.WaitIdle();
  std::vector<int> results = pool.TakeResults();
  std::sort(results.begin(), results.end());
  ASSERT_EQ(results.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(results[i], i);
  EXPECT_EQ(pool.pending(), 0u);
}

// A page that parses long holds back the records of the pages fetched after
// it: the crawl writes them in the order it fetched them (a host's records
// have monotone fetched_at; crawl_records_test failed under load without it).
TEST(WorkerPoolTest, ResultsComeBackInTheOrderTheTasksWereSubmitted) {
  std::mutex mu;
  std::condition_variable cv;
  bool release_first = false, second_done = false;
  WorkerPool<int> pool(2, [] {});
  pool.Submit([&] {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return release_first; });
    return 1;
  });
  pool.Submit([&] {
    std::lock_guard<std::mutex> lock(mu);
    second_done = true;
    cv.notify_all();
    return 2;
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10),
                            [&] { return second_done; }));
  }
  // The second finished, and its result waits for the first's.
  for (int i = 0; i < 20 && pool.pending() == 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_TRUE(pool.TakeResults().empty());
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    release_first = true;
    cv.notify_all();
  }
  pool.WaitIdle();
  EXPECT_EQ(pool.TakeResults(), (std::vector<int>{1, 2}));
  EXPECT_EQ(pool.pending(), 0u);
}

TEST(WorkerPoolTest, LightTasksRunSideBySideWithinTheBudget) {
  Overlap overlap;
  WorkerPool<int> pool(
      2, [] {}, /*weight_budget=*/10);
  for (int i = 0; i < 2; ++i) {
    pool.Submit([&] { return overlap.Run(5, std::chrono::seconds(30)); }, 5);
  }
  pool.WaitIdle();
  EXPECT_EQ(overlap.max_running(), 2);
  EXPECT_EQ(overlap.max_weight(), 10u);
}

TEST(WorkerPoolTest, TasksOverTheBudgetTogetherNeverRunAtOnce) {
  Overlap overlap;
  WorkerPool<int> pool(
      2, [] {}, /*weight_budget=*/10);
  // 6 + 6 > 10, and 11 is heavier than the whole budget: each runs alone,
  // although a second thread is free and each task waits for a partner; the
  // light task behind the heavy one waits its turn.
  for (size_t weight : {6, 6, 11, 1}) {
    pool.Submit(
        [&, weight] {
          return overlap.Run(weight, std::chrono::milliseconds(200));
        },
        weight);
  }
  pool.WaitIdle();
  EXPECT_EQ(pool.TakeResults().size(), 4u);
  EXPECT_EQ(overlap.max_weight(), 11u);
  EXPECT_EQ(overlap.max_running(), 1);
}

}  // namespace
}  // namespace sieve
