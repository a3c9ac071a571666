// frontier/internal/host_overflow.h: per-host URL queues on disk (RocksDB), for
// the URLs the Frontier pulls from the Sieve once its in-memory host-queue
// budget is full. Mercator keeps all its back queues on disk for the same
// reason (Heydon & Najork 1999): a huge host that must wait should not fill
// RAM, nor hide URLs of other hosts that could be fetched now.
//
// Keys are host id (8 bytes, big-endian) | seq (8 bytes, big-endian), so one
// host's records are contiguous and in FIFO order. They live in the crawl's one
// store (frontier/internal/scratch_db.h, column family "host_overflow"), which
// the Sieve owns and opens on first use; a checkpoint hard-links the store's
// files, so these records are never copied through RAM.
//
// Surprises first:
//   - Not thread-safe: the Frontier calls it under its own mutex.
//   - Each Append is one RocksDB Put; each TakeFront one short range scan plus
//     one DeleteRange; Clear one DeleteRange.
//
// Example:
//   sieve::HostOverflow overflow([&] { return sieve.OpenStore(); });
//   (void)overflow.Append(host.id, url);
//   absl::StatusOr<std::vector<sieve::QueuedUrl>> back =
//       overflow.TakeFront(host.id, 64);
#ifndef SIEVE_FRONTIER_INTERNAL_HOST_OVERFLOW_H_
#define SIEVE_FRONTIER_INTERNAL_HOST_OVERFLOW_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "frontier/internal/host_table.h"

namespace sieve {
namespace internal {
class ScratchDb;
}  // namespace internal

class HostOverflow {
 public:
  // Opens (on first call) the store the records go to.
  using StoreOpener = std::function<absl::StatusOr<internal::ScratchDb*>()>;
  explicit HostOverflow(StoreOpener open_store);
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
  // Deletes every record of `host_id`, of which the caller counts `count`.
  [[nodiscard]] absl::Status Clear(uint64_t host_id, uint64_t count);

  uint64_t size() const { return size_; }
  // After a restore: the records the store already holds.
  void set_size(uint64_t size) { size_ = size; }

 private:
  absl::Status EnsureOpen();
  absl::StatusOr<std::vector<QueuedUrl>> Scan(uint64_t host_id,
                                              uint64_t max_count) const;

  StoreOpener open_store_;
  internal::ScratchDb* db_ = nullptr;  // Owned by the Sieve.
  uint64_t size_ = 0;
};

}  // namespace sieve

#endif  // SIEVE_FRONTIER_INTERNAL_HOST_OVERFLOW_H_
