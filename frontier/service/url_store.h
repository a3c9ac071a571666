// frontier/service/url_store.h: the URLFrontier server's durable store, one
// RocksDB database holding one record per URL (key: url_key.h; value: the
// URL's last URLItem, serialized).
//
// Surprises first:
//   - Write returns once the batch is in RocksDB's write-ahead log: a process
//     killed after that (kill -9) loses nothing. `sync` (fsync per write) also
//     covers a power loss, at the cost of a disk flush per batch.
//   - Not synchronised beyond RocksDB's own thread safety: the server
//     serialises writes that must be atomic with its RAM state.
//
// Example:
//   auto store = sieve::service::UrlStore::Open({.dir = "/var/lib/frontier"});
//   rocksdb::WriteBatch batch;  // through Put below
//   (*store)->Put(batch_key, value);
#ifndef SIEVE_FRONTIER_SERVICE_URL_STORE_H_
#define SIEVE_FRONTIER_SERVICE_URL_STORE_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rocksdb {
class DB;
}

namespace sieve::service {

struct UrlStoreOptions {
  // The database directory; created if missing. REQUIRES: not empty.
  std::filesystem::path dir{};
  // fsync the write-ahead log on each write. Default: false (survives a
  // process crash, not a power loss).
  bool sync = false;
};

// One atomic write: puts and deletes, applied together or not at all.
struct StoreBatch {
  std::vector<std::pair<std::string, std::string>> puts;
  std::vector<std::string> deletes;
  bool empty() const { return puts.empty() && deletes.empty(); }
};

class UrlStore {
 public:
  // Opens (or creates) the database. Errors name the directory.
  static absl::StatusOr<std::unique_ptr<UrlStore>> Open(
      UrlStoreOptions options);
  ~UrlStore();
  UrlStore(const UrlStore&) = delete;
  UrlStore& operator=(const UrlStore&) = delete;

  // The value at `key`, nullopt if absent. Cost: one point lookup (RocksDB's
  // own Bloom filters skip most files that lack the key).
  absl::StatusOr<std::optional<std::string>> Get(std::string_view key) const;
  // Applies `batch` as one RocksDB write.
  absl::Status Write(const StoreBatch& batch);
  // Calls `visit(key, value)` for each key starting with `prefix`, in key
  // order, until it returns false. Cost: one iterator over the range.
  absl::Status Scan(
      std::string_view prefix,
      const std::function<bool(std::string_view key, std::string_view value)>&
          visit) const;
  // Bytes of the database's files on disk (SST + WAL), from the directory.
  uint64_t DiskBytes() const;
  // Flushes the memtables to SST files (for DiskBytes after a bulk load).
  absl::Status Flush();

 private:
  UrlStore(UrlStoreOptions options, std::unique_ptr<rocksdb::DB> db);
  const UrlStoreOptions options_;
  std::unique_ptr<rocksdb::DB> db_;
};

}  // namespace sieve::service

#endif  // SIEVE_FRONTIER_SERVICE_URL_STORE_H_
