// frontier/internal/snapshot.h: the Sieve's files in a snapshot
// (frontier/snapshot.h), under a prefix such as "sieve/", and their encoding.
//
//   <prefix>state       text, one "key value" per line: format, lossless
//                       mode, counters, queue layout (disk_begin, disk_end,
//                       head and tail record counts), then "end"
//   <prefix>filter.bin  Filter::Serialize
//   <prefix>ram_queue   the in-RAM records, head then tail, each as
//                       varint32 length + bytes
//   <prefix>store/      RocksDB checkpoint of the crawl's store (absent if
//                       it was never opened)
//
// Changing any of this (or frontier/internal/record.h) needs a new
// kSieveStateVersion and kSnapshotFormatVersion.
#ifndef SIEVE_FRONTIER_INTERNAL_SNAPSHOT_H_
#define SIEVE_FRONTIER_INTERNAL_SNAPSHOT_H_

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "frontier/snapshot.h"

namespace sieve::internal {

inline constexpr uint64_t kSieveStateVersion = 2;

struct SnapshotManifest {
  uint64_t format = kSieveStateVersion;
  bool verify_positives = false;
  uint64_t pushed = 0;
  uint64_t queued = 0;
  uint64_t dropped_as_seen = 0;
  uint64_t false_positives_caught = 0;
  uint64_t store_lookups = 0;
  uint64_t popped = 0;
  uint64_t spilled = 0;
  uint64_t disk_begin = 0;
  uint64_t disk_end = 0;
  uint64_t head_records = 0;
  uint64_t tail_records = 0;
  bool has_store = false;
};

std::string EncodeManifest(const SnapshotManifest& manifest);
// InvalidArgument/DataLoss naming the missing or bad key, or an unknown format.
absl::StatusOr<SnapshotManifest> DecodeManifest(std::string_view text);

// Writes the in-RAM records, head then tail, each as varint32 length + bytes,
// into snapshot file `name` through a 1 MiB buffer (so a queue of any size
// costs 1 MiB of RAM to write).
absl::Status WriteRamQueue(SnapshotWriter& snapshot, const std::string& name,
                           const std::deque<std::string>& head,
                           const std::deque<std::string>& tail);
struct RamQueue {
  std::vector<std::string> head;
  std::vector<std::string> tail;
};
// DataLoss unless the bytes hold exactly `head_records` + `tail_records`
// records.
absl::StatusOr<RamQueue> DecodeRamQueue(std::string_view bytes,
                                        uint64_t head_records,
                                        uint64_t tail_records);

}  // namespace sieve::internal

#endif  // SIEVE_FRONTIER_INTERNAL_SNAPSHOT_H_
