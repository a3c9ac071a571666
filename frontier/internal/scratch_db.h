// frontier/internal/scratch_db.h: the one RocksDB of a crawl, owned by the
// Sieve, in a fresh directory that is deleted with it. Five column families:
// "queue" (the Sieve's spilled records keyed by a big-endian 64-bit sequence
// number, so key order is FIFO order), "seen" (lossless mode's 64-bit URL
// fingerprints, big-endian keys, empty values), "host_overflow" (the
// Frontier's per-host queues on disk, frontier/internal/host_overflow.h) and
// "url_records" (a caller's record per URL keyed by the URL,
// frontier/url_record_store.h) and "parked_hosts" (the Frontier's idle hosts
// past its RAM budget for them, frontier/internal/parked_store.h).
//
// The store is scratch space: durability comes from checkpoints. Writes go
// through the write-ahead log without syncing it, so CheckpointTo can
// hard-link the table files and copy the log instead of flushing memtables.
#ifndef SIEVE_FRONTIER_INTERNAL_SCRATCH_DB_H_
#define SIEVE_FRONTIER_INTERNAL_SCRATCH_DB_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "rocksdb/db.h"

namespace sieve::internal {

class ScratchDb {
 public:
  // Makes a fresh directory under `parent` (the system temp directory if empty)
  // and opens a database there. If `seed` is non-empty it names a RocksDB
  // checkpoint whose files are copied in first (table files hard-linked when
  // possible), so the seed is never modified.
  static absl::StatusOr<std::unique_ptr<ScratchDb>> Open(
      const std::filesystem::path& parent, const std::filesystem::path& seed);
  ~ScratchDb();  // Closes the database and deletes its directory.
  ScratchDb(const ScratchDb&) = delete;
  ScratchDb& operator=(const ScratchDb&) = delete;

  rocksdb::DB* db() const { return db_.get(); }
  rocksdb::ColumnFamilyHandle* queue_cf() const { return queue_cf_; }
  rocksdb::ColumnFamilyHandle* seen_cf() const { return seen_cf_; }
  rocksdb::ColumnFamilyHandle* overflow_cf() const { return overflow_cf_; }
  rocksdb::ColumnFamilyHandle* url_records_cf() const {
    return url_records_cf_;
  }
  rocksdb::ColumnFamilyHandle* parked_cf() const { return parked_cf_; }
  // Write-ahead log on, not synced (see the file comment).
  const rocksdb::WriteOptions& write_options() const { return write_options_; }
  const std::filesystem::path& dir() const { return dir_; }
  // Bytes the store holds on disk: its table files plus the data not yet
  // flushed from the memtables (which the write-ahead log holds), from
  // RocksDB's own counts. Cost: O(column families); no file-system walk (a
  // walk per call cost the crawl ~8 % of its CPU with the metrics endpoint
  // on, growing with the files: issue 36).
  uint64_t DiskBytes() const;

  // Writes a RocksDB checkpoint at `target`, which must not exist: table files
  // hard-linked, the write-ahead log copied (no flush). Consistent with every
  // write made before the call.
  absl::Status CheckpointTo(const std::filesystem::path& target) const;
  // Flushes every column family's memtable to table files and waits, so the
  // write-ahead log a following CheckpointTo copies is short. Thread-safe;
  // called before the checkpoint's locks are taken.
  absl::Status FlushMemtables() const;

 private:
  ScratchDb() = default;
  // Every family's handle, the default one first.
  std::vector<rocksdb::ColumnFamilyHandle*> Families() const;

  std::filesystem::path dir_;
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* queue_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* seen_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* overflow_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* url_records_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* parked_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* default_cf_ = nullptr;
  rocksdb::WriteOptions write_options_;
};

// Converts a RocksDB status, prefixing `context`.
absl::Status FromRocks(const rocksdb::Status& s, std::string_view context);

// 8-byte big-endian key: bytewise order equals numeric order.
std::string BigEndianKey(uint64_t value);
uint64_t ParseBigEndianKey(const rocksdb::Slice& key);

}  // namespace sieve::internal

#endif  // SIEVE_FRONTIER_INTERNAL_SCRATCH_DB_H_
