// UrlRecordStore (frontier/url_record_store.h): the "url_records" column
// family of the crawl's ScratchDb, keyed by the URL's bytes.
#include "frontier/url_record_store.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "frontier/internal/scratch_db.h"
#include "rocksdb/db.h"

namespace sieve {

absl::Status UrlRecordStore::Put(std::string_view url, std::string_view bytes) {
  return internal::FromRocks(
      db_->db()->Put(db_->write_options(), db_->url_records_cf(),
                     rocksdb::Slice(url.data(), url.size()),
                     rocksdb::Slice(bytes.data(), bytes.size())),
      absl::StrCat("storing the record of ", std::string(url)));
}

absl::StatusOr<std::optional<std::string>> UrlRecordStore::Get(
    std::string_view url) const {
  std::string value;
  rocksdb::Status s =
      db_->db()->Get(rocksdb::ReadOptions(), db_->url_records_cf(),
                     rocksdb::Slice(url.data(), url.size()), &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok())
    return internal::FromRocks(
        s, absl::StrCat("reading the record of ", std::string(url)));
  return value;
}

absl::Status UrlRecordStore::ForEach(
    absl::FunctionRef<absl::Status(std::string_view url,
                                   std::string_view bytes)>
        visit) const {
  rocksdb::ReadOptions options;
  options.fill_cache = false;  // One pass: keep the cache for lookups.
  std::unique_ptr<rocksdb::Iterator> it(
      db_->db()->NewIterator(options, db_->url_records_cf()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (absl::Status s =
            visit(it->key().ToStringView(), it->value().ToStringView());
        !s.ok()) {
      return s;
    }
  }
  return internal::FromRocks(it->status(), "scanning the URL records");
}

absl::StatusOr<uint64_t> UrlRecordStore::Count() const {
  uint64_t count = 0;
  if (absl::Status s = ForEach([&count](std::string_view, std::string_view) {
        ++count;
        return absl::OkStatus();
      });
      !s.ok()) {
    return s;
  }
  return count;
}

}  // namespace sieve
