// Crash test: a child process runs a push/pop workload with a checkpoint every
// kEvery operations and is killed with SIGKILL at a random moment, 20 times in
// a row, each child resuming from the previous one's last checkpoint. After
// each kill the last checkpoint must hold exactly the queue a model computes
// for that many operations: every URL queued then comes out, in order, none
// lost.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>

#include "frontier/sieve.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"
#include "tests/frontier/sieve_crash_workload.h"

#ifndef SIEVE_CRASH_CHILD
#error \
    "SIEVE_CRASH_CHILD must name the child executable (tests/frontier/CMakeLists.txt)"
#endif

namespace sieve {
namespace {

namespace fs = std::filesystem;
using namespace crash_workload;  // NOLINT: test-local helpers.

constexpr int kRounds = 20;
constexpr uint64_t kEvery = 10;

// Starts the child, waits until it has written its first checkpoint of this
// run, lets it run for a random further time (so the kill lands anywhere:
// mid-push, mid-spill, mid-checkpoint) and kills it.
void RunAndKillChild(const fs::path& snapshot_dir, const fs::path& work_dir,
                     std::chrono::milliseconds run_for) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(ready[0]);
    const std::string every = std::to_string(kEvery);
    const std::string fd = std::to_string(ready[1]);
    execl(SIEVE_CRASH_CHILD, SIEVE_CRASH_CHILD, snapshot_dir.c_str(),
          work_dir.c_str(), every.c_str(), fd.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(ready[1]);
  char byte = 0;
  const ssize_t n =
      read(ready[0], &byte, 1);  // 0 if the child died before it was ready.
  close(ready[0]);
  if (n == 1) std::this_thread::sleep_for(run_for);
  kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the child stopped on its own, exit code "
      << (WIFEXITED(status) ? WEXITSTATUS(status) : -1)
      << " (see its stderr above)";
}

TEST(SieveCrashTest, EveryUrlQueuedAtTheLastCheckpointSurvivesSigkill) {
  const test::ScopedTempDir base;
  const fs::path snapshot_dir = base / "snapshot";
  const fs::path child_work = base / "child_work";
  const fs::path parent_work = base / "parent_work";
  std::mt19937_64 rng(20261122);
  Model model;
  int rounds_with_progress = 0;
  for (int round = 0; round < kRounds; ++round) {
    const auto run_for = std::chrono::milliseconds(rng() % 300);
    ASSERT_NO_FATAL_FAILURE(RunAndKillChild(snapshot_dir, child_work, run_for));
    fs::remove_all(
        child_work);  // A killed child leaves its scratch store behind.
    if (!fs::exists(snapshot_dir / "CURRENT"))
      continue;  // Killed before its first checkpoint.

    absl::StatusOr<std::unique_ptr<Sieve>> restored =
        Sieve::Restore(snapshot_dir, Options(parent_work));
    ASSERT_TRUE(restored.ok())
        << "round " << round << ": " << restored.status();
    Sieve& s = **restored;
    const SieveStats stats = s.stats();
    const uint64_t ops = stats.pushed + stats.popped;
    ASSERT_EQ(ops % kEvery, 0u)
        << "a checkpoint is taken every " << kEvery << " operations";
    ASSERT_GE(ops, model.ops())
        << "round " << round << ": the snapshot went back in time";
    if (ops > model.ops()) ++rounds_with_progress;
    while (model.ops() < ops) model.Advance();
    EXPECT_EQ(stats.queued, model.queued());
    EXPECT_EQ(stats.popped, model.popped());
    ASSERT_EQ(s.size(), model.queue().size()) << "round " << round;
    for (uint64_t id : model.queue()) {
      std::optional<SieveEntry> entry = s.PopEntry();
      ASSERT_TRUE(entry.has_value())
          << "round " << round << ": lost " << Url(id);
      ASSERT_EQ(entry->url, Url(id)) << "round " << round;
      ASSERT_EQ(entry->payload, Payload(id));
    }
    EXPECT_EQ(s.Pop(), std::nullopt);
    std::printf(
        "round %2d: killed after %3lld ms; snapshot at op %llu, %zu queued, "
        "%llu on disk\n",
        round, static_cast<long long>(run_for.count()),
        static_cast<unsigned long long>(ops), model.queue().size(),
        static_cast<unsigned long long>(stats.records_on_disk));
  }
  // Every child got past at least one checkpoint before its kill, so every
  // round's snapshot is newer than the last.
  EXPECT_EQ(rounds_with_progress, kRounds);
}

}  // namespace
}  // namespace sieve
