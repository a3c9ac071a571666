#include "frontier/internal/host_overflow.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "frontier/internal/record.h"
#include "frontier/internal/scratch_db.h"
#include "rocksdb/db.h"

namespace sieve {
namespace {

// host id | seq, both big-endian: bytewise order is (host, seq) order.
std::string Key(uint64_t host_id, uint64_t seq) {
  return internal::BigEndianKey(host_id) + internal::BigEndianKey(seq);
}

// varint32(depth) | varint32(throttle_retries) | varint32(error_retries) |
// varint32(counted) | varint32(url size) | url | metadata.
std::string EncodeValue(const QueuedUrl& url) {
  std::string value;
  value.reserve(url.url.size() + url.metadata.size() + 20);
  internal::AppendVarint32(value, url.depth);
  internal::AppendVarint32(value, url.throttle_retries);
  internal::AppendVarint32(value, url.error_retries);
  internal::AppendVarint32(value, url.counted ? 1 : 0);
  internal::AppendVarint32(value, static_cast<uint32_t>(url.url.size()));
  value.append(url.url);
  value.append(url.metadata);
  return value;
}

std::optional<QueuedUrl> DecodeValue(std::string_view value, uint64_t seq) {
  std::optional<uint32_t> depth = internal::ReadVarint32(value);
  std::optional<uint32_t> retries = internal::ReadVarint32(value);
  std::optional<uint32_t> error_retries = internal::ReadVarint32(value);
  std::optional<uint32_t> counted = internal::ReadVarint32(value);
  std::optional<uint32_t> url_size = internal::ReadVarint32(value);
  if (!depth || !retries || !error_retries || !counted || !url_size ||
      *url_size > value.size()) {
    return std::nullopt;
  }
  return QueuedUrl{.url = std::string(value.substr(0, *url_size)),
                   .metadata = std::string(value.substr(*url_size)),
                   .depth = *depth,
                   .throttle_retries = *retries,
                   .error_retries = *error_retries,
                   .counted = *counted != 0,
                   .seq = seq};
}

}  // namespace

HostOverflow::HostOverflow(StoreOpener open_store)
    : open_store_(std::move(open_store)) {}

HostOverflow::~HostOverflow() = default;

absl::Status HostOverflow::EnsureOpen() {
  if (db_ != nullptr) return absl::OkStatus();
  absl::StatusOr<internal::ScratchDb*> db = open_store_();
  if (!db.ok()) return db.status();
  db_ = *db;
  return absl::OkStatus();
}

absl::Status HostOverflow::Append(uint64_t host_id, const QueuedUrl& url) {
  if (absl::Status s = EnsureOpen(); !s.ok()) return s;
  rocksdb::Status s = db_->db()->Put(db_->write_options(), db_->overflow_cf(),
                                     Key(host_id, url.seq), EncodeValue(url));
  if (!s.ok()) return internal::FromRocks(s, "host overflow append");
  ++size_;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<QueuedUrl>> HostOverflow::Scan(
    uint64_t host_id, uint64_t max_count) const {
  std::vector<QueuedUrl> out;
  if (db_ == nullptr) return out;
  const std::string lower = Key(host_id, 0);
  const std::string upper = Key(host_id + 1, 0);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions read_options;
  read_options.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(
      db_->db()->NewIterator(read_options, db_->overflow_cf()));
  for (it->Seek(lower); it->Valid() && out.size() < max_count; it->Next()) {
    const uint64_t seq = internal::ParseBigEndianKey(
        rocksdb::Slice(it->key().data() + 8, it->key().size() - 8));
    std::optional<QueuedUrl> url = DecodeValue(
        std::string_view(it->value().data(), it->value().size()), seq);
    if (!url.has_value()) {
      return absl::DataLossError("host overflow: malformed record");
    }
    out.push_back(std::move(*url));
  }
  if (!it->status().ok()) {
    return internal::FromRocks(it->status(), "host overflow scan");
  }
  return out;
}

absl::StatusOr<std::vector<QueuedUrl>> HostOverflow::TakeFront(
    uint64_t host_id, uint64_t max_count) {
  // After a restore the records are in the store before any Append opened it.
  if (absl::Status s = EnsureOpen(); !s.ok()) return s;
  absl::StatusOr<std::vector<QueuedUrl>> out = Scan(host_id, max_count);
  if (!out.ok() || out->empty()) return out;
  // Delete [host|0, host|last seq + 1): exactly the records just read.
  rocksdb::Status s = db_->db()->DeleteRange(
      db_->write_options(), db_->overflow_cf(), Key(host_id, 0),
      Key(host_id, out->back().seq + 1));
  if (!s.ok()) return internal::FromRocks(s, "host overflow delete");
  size_ -= out->size();
  return out;
}

absl::Status HostOverflow::Clear(uint64_t host_id, uint64_t count) {
  if (count == 0) return absl::OkStatus();
  if (absl::Status s = EnsureOpen(); !s.ok()) return s;
  rocksdb::Status s =
      db_->db()->DeleteRange(db_->write_options(), db_->overflow_cf(),
                             Key(host_id, 0), Key(host_id + 1, 0));
  if (!s.ok()) return internal::FromRocks(s, "host overflow clear");
  size_ -= std::min(size_, count);
  return absl::OkStatus();
}

}  // namespace sieve
