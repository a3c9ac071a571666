// frontier/cluster/worker_stats.h: the counters each worker of a shared crawl
// publishes in Redis (field WORKER of the hash sieve:{ID}:stats) at every
// lease upkeep, so `sieve cluster status` can show per-worker rates without
// talking to the workers. A worker's entry stays after it exits (its last
// counters count in the crawl's totals).
//
// The text form is "key=value" pairs separated by spaces; unknown keys are
// ignored, so older and newer workers can share a crawl.
//
// Example:
//   sieve::cluster::WorkerStats w{.worker_id = "w1", .pages = 10};
//   std::string text = sieve::cluster::EncodeWorkerStats(w);
//   absl::StatusOr<sieve::cluster::WorkerStats> back =
//       sieve::cluster::DecodeWorkerStats("w1", text);
#ifndef SIEVE_FRONTIER_CLUSTER_WORKER_STATS_H_
#define SIEVE_FRONTIER_CLUSTER_WORKER_STATS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace sieve::cluster {

struct WorkerStats {
  std::string worker_id{};
  int64_t started_ms = 0;  // Unix ms when the worker joined.
  int64_t updated_ms = 0;  // Unix ms of this publication.
  // URLs finished and acknowledged (their records written).
  uint64_t pages = 0;
  uint64_t dispatched = 0;  // URLs handed to the crawl loop.
  uint64_t added = 0;       // URLs this worker queued (new to the filter).
  uint64_t duplicates = 0;  // URLs the filter answered "seen".
  // URLs taken over from a worker that stopped without finishing them (each
  // may have been fetched twice).
  uint64_t reclaimed = 0;
  uint32_t shards = 0;    // Leases held.
  uint64_t commands = 0;  // Redis commands it sent (a script counts one).
  int64_t lease_ms = 0;   // Its lease ttl: live while its heartbeat is younger.
  // Pages per second between this publication and the one before.
  double recent_rate = 0;
  // Set by ReadClusterStatus: heartbeat younger than lease_ms.
  bool live = false;
};

std::string EncodeWorkerStats(const WorkerStats& stats);
// InvalidArgument if a known key has a malformed value.
absl::StatusOr<WorkerStats> DecodeWorkerStats(std::string_view worker_id,
                                              std::string_view text);

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_WORKER_STATS_H_
