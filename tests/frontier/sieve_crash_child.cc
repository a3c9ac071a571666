// The crash test's child: restores the Sieve from the last checkpoint (or
// starts empty), runs the shared workload, checkpointing every `every`
// operations, writes one byte to `ready_fd` after its first checkpoint, and
// goes on until the parent kills it with SIGKILL.
//
// Usage:
//   frontier_sieve_crash_child <snapshot_dir> <work_dir> <every> <ready_fd>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "frontier/sieve.h"
#include "tests/frontier/sieve_crash_workload.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s snapshot_dir work_dir every ready_fd\n",
                 argv[0]);
    return 2;
  }
  namespace fs = std::filesystem;
  using namespace sieve::crash_workload;  // NOLINT: a test program's main.
  const fs::path snapshot_dir = argv[1];
  const fs::path work_dir = argv[2];
  const uint64_t every = std::strtoull(argv[3], nullptr, 10);
  int ready_fd = std::atoi(argv[4]);

  std::unique_ptr<sieve::Sieve> s;
  if (fs::exists(snapshot_dir / "CURRENT")) {
    absl::StatusOr<std::unique_ptr<sieve::Sieve>> restored =
        sieve::Sieve::Restore(snapshot_dir, Options(work_dir));
    if (!restored.ok()) {
      std::fprintf(stderr, "child: restore failed: %s\n",
                   restored.status().ToString().c_str());
      return 3;
    }
    s = *std::move(restored);
  } else {
    s = std::make_unique<sieve::Sieve>(Options(work_dir));
  }
  const sieve::SieveStats start = s->stats();
  uint64_t op = start.pushed + start.popped;

  for (;;) {
    const Step step = StepAt(op, s->size());
    if (step.pop) {
      if (!s->PopEntry().has_value()) {
        std::fprintf(stderr, "child: queue empty at op %llu\n",
                     static_cast<unsigned long long>(op));
        return 5;
      }
    } else {
      s->Push(Url(step.id), Payload(step.id));
    }
    ++op;
    if (op % every == 0) {
      if (absl::Status status = s->Checkpoint(snapshot_dir); !status.ok()) {
        std::fprintf(stderr, "child: checkpoint failed: %s\n",
                     status.ToString().c_str());
        return 6;
      }
      // After this run's first checkpoint: every round makes progress, however
      // slow the machine, and the kill lands anywhere after it.
      if (ready_fd >= 0) {
        const char ready = 'r';
        if (write(ready_fd, &ready, 1) != 1) return 4;
        close(ready_fd);
        ready_fd = -1;
      }
    }
  }
}
