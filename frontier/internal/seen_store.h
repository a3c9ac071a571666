// frontier/internal/seen_store.h: lossless mode's exact set of 64-bit URL
// fingerprints.
//
// New fingerprints collect in a RAM set and go to RocksDB's "seen" family in
// one WriteBatch per kFlushEvery of them, so a push of a new URL costs a
// hash-set insert, not a disk write. Contains checks the RAM set, then RocksDB
// (whose own Bloom filter answers most absent keys without a block read). Not
// thread-safe: the Sieve serialises calls.
#ifndef SIEVE_FRONTIER_INTERNAL_SEEN_STORE_H_
#define SIEVE_FRONTIER_INTERNAL_SEEN_STORE_H_

#include <cstddef>
#include <cstdint>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "frontier/internal/spill_queue.h"

namespace sieve::internal {

class SeenStore {
 public:
  static constexpr size_t kFlushEvery = size_t{1} << 14;

  explicit SeenStore(SpillQueue::StoreOpener open_store)
      : open_store_(std::move(open_store)) {}

  // Uses `store` (already open, e.g. restored from a checkpoint) from now on.
  void Attach(ScratchDb* store) { store_ = store; }
  // Records `fingerprint`. An error (the fingerprint then stays in RAM) is also
  // kept in status().
  void Insert(uint64_t fingerprint);
  // Exact membership; on a disk error returns false (the caller then queues a
  // possible duplicate rather than lose a URL) and records the error.
  bool Contains(uint64_t fingerprint);
  // Writes the RAM set to RocksDB (before a checkpoint).
  absl::Status Flush();

  size_t pending() const { return pending_.size(); }
  const absl::Status& status() const { return status_; }

 private:
  SpillQueue::StoreOpener open_store_;
  ScratchDb* store_ = nullptr;
  absl::flat_hash_set<uint64_t> pending_;
  absl::Status status_;
};

}  // namespace sieve::internal

#endif  // SIEVE_FRONTIER_INTERNAL_SEEN_STORE_H_
