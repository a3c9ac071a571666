// tests/frontier/sieve_crash_workload.h: the deterministic push/pop sequence
// shared by the crash test (tests/frontier/sieve_crash_test.cc) and its child
// process (sieve_crash_child.cc).
//
// Operation `op` depends only on `op` and the queue size before it. In lossless
// mode the Sieve's answers are exact, so a model (deque + set) replays the same
// sequence, and a restored Sieve's pushed + popped counters say how many
// operations its snapshot contains.
#ifndef SIEVE_TESTS_FRONTIER_SIEVE_CRASH_WORKLOAD_H_
#define SIEVE_TESTS_FRONTIER_SIEVE_CRASH_WORKLOAD_H_

#include <cstdint>
#include <deque>
#include <filesystem>
#include <string>
#include <unordered_set>
#include <utility>

#include "frontier/sieve.h"

namespace sieve::crash_workload {

// SplitMix64 finaliser (Steele, Lea & Flood 2014): a fixed, well-mixed function
// of `x`.
inline uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline std::string Url(uint64_t id) {
  return "http://h" + std::to_string(id % 13) + ".test/p/" + std::to_string(id);
}
inline std::string Payload(uint64_t id) {
  return "depth=" + std::to_string(id % 7);
}

struct Step {
  bool pop = false;
  uint64_t id = 0;  // URL id, for a push.
};

// 30 % pops (when the queue is non-empty), 10 % pushes of an older id (often a
// duplicate), the rest pushes of a new URL: the queue grows by ~0.35 records
// per operation.
inline Step StepAt(uint64_t op, uint64_t queue_size) {
  const uint64_t r = Mix(op);
  if (r % 10 < 3 && queue_size > 0) return {.pop = true};
  if (r % 10 == 4) return {.pop = false, .id = (r >> 16) % (op + 1)};
  return {.pop = false, .id = op};
}

// Lossless (so the model is exact) and a tiny budget (so most of the queue is
// on disk).
inline SieveOptions Options(const std::filesystem::path& work_dir) {
  return SieveOptions{.expected_urls = 50'000,
                      .fp_rate = 0.01,
                      .memory_budget_bytes = 2048,
                      .verify_positives = true,
                      .work_dir = work_dir};
}

// The same sequence on a deque and a set.
class Model {
 public:
  void Advance() {
    const Step step = StepAt(ops_, queue_.size());
    if (step.pop) {
      queue_.pop_front();
      ++popped_;
    } else {
      ++pushed_;
      if (seen_.insert(step.id).second) {
        queue_.push_back(step.id);
        ++queued_;
      }
    }
    ++ops_;
  }
  uint64_t ops() const { return ops_; }
  uint64_t pushed() const { return pushed_; }
  uint64_t popped() const { return popped_; }
  uint64_t queued() const { return queued_; }
  const std::deque<uint64_t>& queue() const { return queue_; }

 private:
  std::deque<uint64_t> queue_;
  std::unordered_set<uint64_t> seen_;
  uint64_t ops_ = 0;
  uint64_t pushed_ = 0;
  uint64_t popped_ = 0;
  uint64_t queued_ = 0;
};

}  // namespace sieve::crash_workload

#endif  // SIEVE_TESTS_FRONTIER_SIEVE_CRASH_WORKLOAD_H_
