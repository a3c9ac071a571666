// frontier/internal/host_snapshot.h: the Frontier's own part of a checkpoint
// (the Sieve adds its own): per-host RAM queues with the URLs that were in
// flight put back at their heads, host ids and counts of URLs on disk (the
// records themselves are in the store's checkpoint), page counts, crawl delays,
// dropped hosts and counters, as one file with a checksum.
//
// File layout (little-endian; "str" is a u32 length, then the bytes):
//   "SIEVEFRS" | u32 version | u64 next_seq | u32 n | n x u64 counters |
//   u64 hosts | per host:
//     str name | i64 crawl_delay_ns | u8 flags | u64 urls | u64 id |
//     u64 urls_dispatched | u64 overflow_count | per URL:
//       str url | str metadata | u32 depth | u32 throttle_retries |
//       u32 error_retries | u8 counted | u64 seq
//   | u64 XXH3-64 of every byte before it.
// flags: bit 0 dropped, bits 1-7 renders_without_links (version 2 wrote 0 or
// 1 there, so its files read the same).
// Changing the layout means bumping kHostSnapshotVersion; readers refuse
// other versions.
//
// Example:
//   std::string bytes = sieve::EncodeHostSnapshot(snapshot);
//   absl::StatusOr<sieve::HostSnapshot> back =
//       sieve::DecodeHostSnapshot(bytes);
#ifndef SIEVE_FRONTIER_INTERNAL_HOST_SNAPSHOT_H_
#define SIEVE_FRONTIER_INTERNAL_HOST_SNAPSHOT_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "frontier/internal/host_table.h"

namespace sieve {

inline constexpr uint32_t kHostSnapshotVersion = 2;

struct HostSnapshot {
  struct Host {
    std::string name;
    absl::Duration crawl_delay = absl::ZeroDuration();
    bool dropped = false;
    uint8_t renders_without_links = 0;  // HostState's
    uint64_t id = 0;
    uint64_t urls_dispatched = 0;
    // URLs of this host in the store's "host_overflow" family.
    uint64_t overflow_count = 0;
    std::vector<QueuedUrl>
        urls;  // In flight first (oldest first), then the queue in order.
  };
  uint64_t next_seq = 1;
  // The Frontier's cumulative counters (FrontierTotals, in the order of
  // SIEVE_FRONTIER_STATS in frontier/frontier_stats.h); a reader that knows
  // fewer takes the first ones, one that knows more keeps the rest at 0.
  std::vector<uint64_t> counters;
  std::vector<Host> hosts;
};

std::string EncodeHostSnapshot(const HostSnapshot& snapshot);
// DataLoss names what is wrong: truncated, bad magic, unknown version, checksum
// mismatch.
absl::StatusOr<HostSnapshot> DecodeHostSnapshot(std::string_view bytes);

}  // namespace sieve

#endif  // SIEVE_FRONTIER_INTERNAL_HOST_SNAPSHOT_H_
