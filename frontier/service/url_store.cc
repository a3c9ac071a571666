#include "frontier/service/url_store.h"

#include <system_error>

#include "absl/strings/str_cat.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/write_batch.h"

namespace sieve::service {
namespace {

absl::Status FromRocks(const rocksdb::Status& s, const char* what) {
  if (s.ok()) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, ": ", s.ToString()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<UrlStore>> UrlStore::Open(
    UrlStoreOptions options) {
  if (options.dir.empty())
    return absl::InvalidArgumentError("URL store: no directory");
  std::error_code ec;
  std::filesystem::create_directories(options.dir, ec);
  if (ec) {
    return absl::InternalError(absl::StrCat(
        "URL store: cannot create ", options.dir.string(), ": ", ec.message()));
  }
  rocksdb::Options o;
  o.create_if_missing = true;
  o.compression = rocksdb::kNoCompression;
  // Point lookups of absent keys (discovered URLs the Bloom filter in front
  // could not rule out) skip SST files through RocksDB's own filters.
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::DB* raw = nullptr;
  const rocksdb::Status s = rocksdb::DB::Open(o, options.dir.string(), &raw);
  if (!s.ok()) {
    return absl::InternalError(absl::StrCat(
        "URL store: cannot open ", options.dir.string(), ": ", s.ToString()));
  }
  return std::unique_ptr<UrlStore>(
      new UrlStore(std::move(options), std::unique_ptr<rocksdb::DB>(raw)));
}

UrlStore::UrlStore(UrlStoreOptions options, std::unique_ptr<rocksdb::DB> db)
    : options_(std::move(options)), db_(std::move(db)) {}

UrlStore::~UrlStore() = default;

absl::StatusOr<std::optional<std::string>> UrlStore::Get(
    std::string_view key) const {
  std::string value;
  const rocksdb::Status s = db_->Get(
      rocksdb::ReadOptions(), rocksdb::Slice(key.data(), key.size()), &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) return FromRocks(s, "URL store read");
  return value;
}

absl::Status UrlStore::Write(const StoreBatch& batch) {
  if (batch.empty()) return absl::OkStatus();
  rocksdb::WriteBatch wb;
  for (const std::string& key : batch.deletes) wb.Delete(key);
  for (const auto& [key, value] : batch.puts) wb.Put(key, value);
  rocksdb::WriteOptions w;
  w.sync = options_.sync;
  return FromRocks(db_->Write(w, &wb), "URL store write");
}

absl::Status UrlStore::Scan(
    std::string_view prefix,
    const std::function<bool(std::string_view, std::string_view)>& visit)
    const {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}));
  for (it->Seek(rocksdb::Slice(prefix.data(), prefix.size())); it->Valid();
       it->Next()) {
    const rocksdb::Slice k = it->key();
    if (!k.starts_with(rocksdb::Slice(prefix.data(), prefix.size()))) break;
    const rocksdb::Slice v = it->value();
    if (!visit(std::string_view(k.data(), k.size()),
               std::string_view(v.data(), v.size())))
      break;
  }
  return FromRocks(it->status(), "URL store scan");
}

uint64_t UrlStore::DiskBytes() const {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(options_.dir, ec)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".sst" || ext == ".log") total += entry.file_size(ec);
  }
  return total;
}

absl::Status UrlStore::Flush() {
  return FromRocks(db_->Flush(rocksdb::FlushOptions()), "URL store flush");
}

}  // namespace sieve::service
