#include "frontier/internal/seen_store.h"

#include <algorithm>
#include <string>
#include <vector>

#include "rocksdb/write_batch.h"

namespace sieve::internal {

void SeenStore::Insert(uint64_t fingerprint) {
  pending_.insert(fingerprint);
  if (pending_.size() >= kFlushEvery && status_.ok()) status_ = Flush();
}

bool SeenStore::Contains(uint64_t fingerprint) {
  if (pending_.contains(fingerprint)) return true;
  if (store_ == nullptr) return false;  // Nothing flushed yet.
  std::string ignored;
  rocksdb::Status s =
      store_->db()->Get(rocksdb::ReadOptions(), store_->seen_cf(),
                        BigEndianKey(fingerprint), &ignored);
  if (s.ok()) return true;
  if (!s.IsNotFound() && status_.ok())
    status_ = FromRocks(s, "looking up a fingerprint");
  return false;
}

absl::Status SeenStore::Flush() {
  if (pending_.empty()) return absl::OkStatus();
  if (store_ == nullptr) {
    absl::StatusOr<ScratchDb*> opened = open_store_();
    if (!opened.ok()) return opened.status();
    store_ = *opened;
  }
  // In key order: the memtable's skip list then inserts each key next to the
  // previous one instead of searching from the top (measured: the flush costs a
  // third of unsorted).
  std::vector<uint64_t> sorted(pending_.begin(), pending_.end());
  std::sort(sorted.begin(), sorted.end());
  rocksdb::WriteBatch batch;
  for (uint64_t fingerprint : sorted) {
    batch.Put(store_->seen_cf(), BigEndianKey(fingerprint), rocksdb::Slice());
  }
  absl::Status s =
      FromRocks(store_->db()->Write(store_->write_options(), &batch),
                "writing fingerprints");
  if (s.ok()) pending_.clear();
  return s;
}

}  // namespace sieve::internal
