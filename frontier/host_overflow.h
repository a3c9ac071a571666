// frontier/host_overflow.h: per-host URL queues on disk (RocksDB), for the URLs
// the Frontier pulls from the Sieve once its in-memory host-queue budget is
// full. Mercator keeps all its back queues on disk for the same reason (Heydon
// & Najork 1999): a huge host that must wait should not fill RAM, nor hide URLs
// of other hosts that could be fetched now.
//
// Keys are host id (8 bytes, big-endian) | seq (8 bytes, big-endian), so one
// host's records are contiguous and in FIFO order. The store is scratch space
// in a fresh directory under `parent`, opened on first use, written without a
// write-ahead log and deleted with the object; checkpoints copy its records
// into the Frontier's state file.
//
// Surprises first:
//   - Not thread-safe: the Frontier calls it under its own mutex.
//   - Each Append is one RocksDB Put (no WAL); each TakeFront one short range
//     scan plus one DeleteRange.
//
// Example:
//   sieve::HostOverflow overflow(work_dir);
//   (void)overflow.Append(host.id, url);
//   absl::StatusOr<std::vector<sieve::QueuedUrl>> back =
//       overflow.TakeFront(host.id, 64);
#ifndef SIEVE_FRONTIER_HOST_OVERFLOW_H_
#define SIEVE_FRONTIER_HOST_OVERFLOW_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "frontier/host_table.h"

namespace sieve {
namespace internal {
class ScratchDb;
}  // namespace internal

class HostOverflow {
 public:
  // `parent`: directory for the scratch store (the system temp directory if
  // empty).
  explicit HostOverflow(std::filesystem::path parent);
  ~HostOverflow();
  HostOverflow(const HostOverflow&) = delete;
  HostOverflow& operator=(const HostOverflow&) = delete;

  // Appends `url` to the disk queue of host `host_id`. REQUIRES: url.seq larger
  // than the seq of every record of that host already here (the Frontier's seqs
  // only grow).
  [[nodiscard]] absl::Status Append(uint64_t host_id, const QueuedUrl& url);
  // Removes and returns up to `max_count` (>= 1) of the oldest records of
  // `host_id`, in order.
  [[nodiscard]] absl::StatusOr<std::vector<QueuedUrl>> TakeFront(
      uint64_t host_id, uint64_t max_count);
  // Every record of `host_id` in order, left in place (for checkpoints).
  [[nodiscard]] absl::StatusOr<std::vector<QueuedUrl>> ReadAll(
      uint64_t host_id) const;
  // Deletes every record of `host_id`.
  [[nodiscard]] absl::Status Clear(uint64_t host_id);

  uint64_t size() const { return size_; }

 private:
  absl::Status EnsureOpen();
  absl::StatusOr<std::vector<QueuedUrl>> Scan(uint64_t host_id,
                                              uint64_t max_count) const;

  const std::filesystem::path parent_;
  std::unique_ptr<internal::ScratchDb> db_;
  uint64_t size_ = 0;
};

}  // namespace sieve

#endif  // SIEVE_FRONTIER_HOST_OVERFLOW_H_
