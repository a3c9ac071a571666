// crawler/loop/checkpointer.h: when the crawl saves itself, and where:
// OUT/checkpoint, one snapshot of the crawl's state (crawl_state.h) and the
// frontier's files, every crawl.checkpoint_seconds and at the run's start and
// end (WriteCheckpoint publishes each through CURRENT).
//
// Owns: the checkpoint directory, the interval, when the next one is due, and
// the checksums of the files the last snapshot linked (so unchanged files,
// such as RocksDB's table files, are not read again).
//
// What a checkpoint holds at one instant (every parsed page recorded, the
// output files synced) is the loop's to arrange before Write.
//
// Not thread-safe: the crawl loop's thread only.
//
// Example:
//   Checkpointer checkpoints(out / "checkpoint", absl::Seconds(30));
//   checkpoints.Start(absl::Now());
//   if (checkpoints.Due(now)) status = checkpoints.Write(state, *frontier);
#ifndef SIEVE_CRAWLER_LOOP_CHECKPOINTER_H_
#define SIEVE_CRAWLER_LOOP_CHECKPOINTER_H_

#include <filesystem>
#include <utility>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "crawler/loop/crawl_state.h"
#include "frontier/crawl_frontier.h"
#include "frontier/snapshot.h"

namespace sieve {

class Checkpointer {
 public:
  // `every`: crawl.checkpoint_seconds. REQUIRES: > 0.
  Checkpointer(std::filesystem::path dir, absl::Duration every)
      : dir_(std::move(dir)), every_(every) {}

  // The run starts now: the next checkpoint is due one interval from now.
  void Start(absl::Time now) { next_ = now + every_; }
  // Whether a checkpoint is due at `now`.
  bool Due(absl::Time now) const { return now >= next_; }
  // When the next is due (the loop's longest wait).
  absl::Time next() const { return next_; }
  // Writes `state` and `frontier` as the newest snapshot; the next is due one
  // interval after it. Cost: the frontier's files copied or linked, fsyncs.
  [[nodiscard]] absl::Status Write(const CrawlState& state,
                                   CrawlFrontier& frontier);

 private:
  const std::filesystem::path dir_;
  const absl::Duration every_;
  absl::Time next_ = absl::InfiniteFuture();
  SnapshotChecksumCache checksums_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_CHECKPOINTER_H_
