#include "frontier/internal/scratch_db.h"

#include <stdlib.h>

#include <algorithm>
#include <limits>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/checkpoint.h"

namespace sieve::internal {
namespace fs = std::filesystem;

namespace {

constexpr char kQueueFamily[] = "queue";
constexpr char kSeenFamily[] = "seen";
constexpr char kOverflowFamily[] = "host_overflow";
constexpr char kUrlRecordsFamily[] = "url_records";
constexpr char kParkedFamily[] = "parked_hosts";

// Spilled URL records compress well (LZ4 typically halves them); fingerprints
// are random bytes.
rocksdb::CompressionType QueueCompression() {
  const std::vector<rocksdb::CompressionType> supported =
      rocksdb::GetSupportedCompressions();
  for (rocksdb::CompressionType want :
       {rocksdb::kLZ4Compression, rocksdb::kSnappyCompression,
        rocksdb::kZSTD}) {
    if (std::find(supported.begin(), supported.end(), want) != supported.end())
      return want;
  }
  return rocksdb::kNoCompression;
}

// Small memtables and cache: the store must not eat the RAM the memory budget
// saves. 8 MiB memtables x 2 per family + 8 MiB block cache keep RocksDB's own
// footprint near 40 MiB (a family written to adds at most 16 MiB; url_records
// is written to only in a revisit crawl).
rocksdb::ColumnFamilyOptions FamilyOptions(
    const std::shared_ptr<rocksdb::Cache>& cache, bool with_bloom,
    rocksdb::CompressionType compression) {
  rocksdb::ColumnFamilyOptions options;
  options.write_buffer_size = size_t{8} << 20;
  options.max_write_buffer_number = 2;
  options.compression = compression;
  options.level0_slowdown_writes_trigger = 40;
  options.level0_stop_writes_trigger = 60;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  // Lossless mode looks up fingerprints that are mostly absent (the filter's
  // false positives): RocksDB's own Bloom filter (10 bits/key, ~1 %) answers
  // those without reading a block.
  if (with_bloom) table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

absl::Status CopyDirForOpen(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(from, ec)) {
    const fs::path target = to / entry.path().filename();
    // Table files are immutable once written, so a hard link is a safe copy.
    if (entry.path().extension() == ".sst") {
      fs::create_hard_link(entry.path(), target, ec);
      if (!ec) continue;
      ec.clear();
    }
    fs::copy_file(entry.path(), target, ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat("copying ", entry.path().string(), ": ", ec.message()));
    }
  }
  if (ec)
    return absl::InternalError(
        absl::StrCat("listing ", from.string(), ": ", ec.message()));
  return absl::OkStatus();
}

}  // namespace

absl::Status FromRocks(const rocksdb::Status& s, std::string_view context) {
  if (s.ok()) return absl::OkStatus();
  const std::string message =
      absl::StrCat(std::string(context), ": ", s.ToString());
  if (s.IsCorruption()) return absl::DataLossError(message);
  if (s.IsNotFound()) return absl::NotFoundError(message);
  if (s.IsInvalidArgument()) return absl::InvalidArgumentError(message);
  return absl::InternalError(message);
}

std::string BigEndianKey(uint64_t value) {
  std::string key(8, '\0');
  for (int i = 7; i >= 0; --i) {
    key[static_cast<size_t>(i)] = static_cast<char>(value & 0xff);
    value >>= 8;
  }
  return key;
}

uint64_t ParseBigEndianKey(const rocksdb::Slice& key) {
  uint64_t value = 0;
  for (size_t i = 0; i < 8 && i < key.size(); ++i) {
    value = (value << 8) | static_cast<uint8_t>(key[i]);
  }
  return value;
}

absl::StatusOr<std::unique_ptr<ScratchDb>> ScratchDb::Open(
    const fs::path& parent, const fs::path& seed) {
  std::error_code ec;
  const fs::path base = parent.empty() ? fs::temp_directory_path(ec) : parent;
  if (ec)
    return absl::InternalError(
        absl::StrCat("no temp directory: ", ec.message()));
  fs::create_directories(base, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("creating ", base.string(), ": ", ec.message()));
  }
  std::string pattern = (base / "sieve-store-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("mkdtemp ", pattern, " failed"));
  }
  auto store = std::unique_ptr<ScratchDb>(new ScratchDb());
  store->dir_ = pattern;
  const fs::path db_dir = store->dir_ / "db";
  if (!seed.empty()) {
    fs::create_directory(db_dir, ec);
    if (ec)
      return absl::InternalError(
          absl::StrCat("mkdir ", db_dir.string(), ec.message()));
    if (absl::Status s = CopyDirForOpen(seed, db_dir); !s.ok()) return s;
  }

  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = 2;
  db_options.keep_log_file_num = 2;
  // The write-ahead log is on (not synced), so a checkpoint can hard-link the
  // table files and copy the log instead of flushing the memtables while the
  // Frontier is locked; this bounds the log a checkpoint copies.
  db_options.max_total_wal_size = uint64_t{32} << 20;
  std::shared_ptr<rocksdb::Cache> cache = rocksdb::NewLRUCache(size_t{8} << 20);
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {kQueueFamily,
       FamilyOptions(cache, /*with_bloom=*/false, QueueCompression())},
      {kSeenFamily,
       FamilyOptions(cache, /*with_bloom=*/true, rocksdb::kNoCompression)},
      {kOverflowFamily,
       FamilyOptions(cache, /*with_bloom=*/false, QueueCompression())},
      // Looked up once per fetch, mostly for URLs never fetched before.
      {kUrlRecordsFamily,
       FamilyOptions(cache, /*with_bloom=*/true, QueueCompression())},
      // Looked up once per new host, mostly for hosts never parked.
      {kParkedFamily,
       FamilyOptions(cache, /*with_bloom=*/true, rocksdb::kNoCompression)},
  };
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s =
      rocksdb::DB::Open(db_options, db_dir.string(), families, &handles, &raw);
  if (!s.ok()) return FromRocks(s, absl::StrCat("opening ", db_dir.string()));
  store->db_.reset(raw);
  store->default_cf_ = handles[0];
  store->queue_cf_ = handles[1];
  store->seen_cf_ = handles[2];
  store->overflow_cf_ = handles[3];
  store->url_records_cf_ = handles[4];
  store->parked_cf_ = handles[5];
  store->write_options_.disableWAL = false;
  store->write_options_.sync = false;
  return store;
}

std::vector<rocksdb::ColumnFamilyHandle*> ScratchDb::Families() const {
  return {default_cf_,  queue_cf_,       seen_cf_,
          overflow_cf_, url_records_cf_, parked_cf_};
}

ScratchDb::~ScratchDb() {
  if (db_) {
    for (rocksdb::ColumnFamilyHandle* handle : Families()) {
      if (handle != nullptr)
        db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
    }
    db_->Close().PermitUncheckedError();
    db_.reset();
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);  // Best effort: scratch space.
}

uint64_t ScratchDb::DiskBytes() const {
  uint64_t tables = 0, unflushed = 0;
  if (!db_->GetAggregatedIntProperty(
          rocksdb::DB::Properties::kTotalSstFilesSize, &tables)) {
    tables = 0;
  }
  if (!db_->GetAggregatedIntProperty(
          rocksdb::DB::Properties::kCurSizeAllMemTables, &unflushed)) {
    unflushed = 0;
  }
  return tables + unflushed;
}

absl::Status ScratchDb::FlushMemtables() const {
  rocksdb::FlushOptions options;
  options.wait = true;
  return FromRocks(db_->Flush(options, Families()), "flushing the store");
}

absl::Status ScratchDb::CheckpointTo(const fs::path& target) const {
  rocksdb::Checkpoint* raw = nullptr;
  rocksdb::Status s = rocksdb::Checkpoint::Create(db_.get(), &raw);
  if (!s.ok()) return FromRocks(s, "creating RocksDB checkpoint object");
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  // No flush: the table files are hard-linked and the live write-ahead log
  // copied (at most max_total_wal_size), which replays on open.
  s = checkpoint->CreateCheckpoint(
      target.string(),
      /*log_size_for_flush=*/std::numeric_limits<uint64_t>::max());
  return FromRocks(s, absl::StrCat("RocksDB checkpoint to ", target.string()));
}

}  // namespace sieve::internal
