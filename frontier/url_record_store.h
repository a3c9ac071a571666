// frontier/url_record_store.h: UrlRecordStore, one opaque record per URL kept
// on disk in the crawl's store (the Sieve's RocksDB, column family
// "url_records"), for a caller that must remember something of every URL it
// fetched without holding it in RAM. The crawler keeps each URL's revisit
// history there (crawler/policy/url_history.h): the frontier owns the storage,
// the caller the meaning of the bytes.
//
// Handed out by CrawlFrontier::UrlRecords (the local Frontier only; its store
// is opened then, if it was not yet). A Frontier checkpoint holds every record
// put before it began (the store's RocksDB checkpoint, "sieve/store/"), and
// Frontier::Restore brings them back; records put after the last checkpoint
// are lost with a crash, as the rest of the store is.
//
// Surprises first:
//   - Thread-safe (RocksDB's own locking); a Put racing a Checkpoint may or
//     may not be in it.
//   - Next to no RAM per record: every call is a RocksDB call (memtable, an
//     8 MiB block cache shared with the store's other families, then disk);
//     RocksDB keeps the index and Bloom filter blocks of the family's table
//     files in RAM, about 7 bytes per record (bench/crawler/
//     url_history_bench.cc, docs/benchmarks.md "Revisit history").
//   - Records compress with LZ4 (or Snappy/ZSTD, whatever RocksDB has), and
//     a Bloom filter (10 bits per key) answers most Gets of an absent URL
//     without reading a block.
//
// Example:
//   absl::StatusOr<sieve::UrlRecordStore*> store = frontier.UrlRecords();
//   if (!store.ok()) return store.status();
//   if (absl::Status s = (*store)->Put("http://a.example/", bytes); !s.ok())
//     return s;
//   absl::StatusOr<std::optional<std::string>> back =
//       (*store)->Get("http://a.example/");  // nullopt: none kept.
#ifndef SIEVE_FRONTIER_URL_RECORD_STORE_H_
#define SIEVE_FRONTIER_URL_RECORD_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sieve {
namespace internal {
class ScratchDb;
}  // namespace internal

class UrlRecordStore {
 public:
  // Over `db`'s "url_records" family. REQUIRES: `db` outlives the store.
  explicit UrlRecordStore(internal::ScratchDb* db) : db_(db) {}
  UrlRecordStore(const UrlRecordStore&) = delete;
  UrlRecordStore& operator=(const UrlRecordStore&) = delete;

  // Sets `url`'s record to `bytes` (replacing any). Written through the
  // store's write-ahead log, not synced. Cost: one RocksDB Put.
  [[nodiscard]] absl::Status Put(std::string_view url, std::string_view bytes);

  // `url`'s record, or nullopt when none was put; an error of the store
  // (Internal, DataLoss) otherwise. Cost: one RocksDB Get.
  [[nodiscard]] absl::StatusOr<std::optional<std::string>> Get(
      std::string_view url) const;

  // Calls `visit(url, bytes)` for every record, in URL byte order, on a
  // consistent view of the store (records put meanwhile may be missed); stops
  // at the first non-OK status `visit` returns and returns it. Cost: a scan of
  // the family, O(records) time, O(1) RAM beyond RocksDB's read blocks.
  //
  //   (*store)->ForEach([&](std::string_view url, std::string_view bytes) {
  //     return Queue(url, bytes);
  //   });
  [[nodiscard]] absl::Status ForEach(
      absl::FunctionRef<absl::Status(std::string_view url,
                                     std::string_view bytes)>
          visit) const;

  // How many records there are: a scan (ForEach), O(records).
  [[nodiscard]] absl::StatusOr<uint64_t> Count() const;

 private:
  internal::ScratchDb* const db_;
};

}  // namespace sieve

#endif  // SIEVE_FRONTIER_URL_RECORD_STORE_H_
