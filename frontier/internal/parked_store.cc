#include "frontier/internal/parked_store.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "frontier/internal/scratch_db.h"
#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"

namespace sieve {
namespace {

constexpr size_t kValueSize = 26;
constexpr uint8_t kCapped = 1, kDropped = 2;
// The empty key sorts first and is no host name: size | dropped | next id.
constexpr std::string_view kMetaKey = "";

uint64_t At(std::string_view bytes, size_t offset) {
  return internal::ParseBigEndianKey(rocksdb::Slice(bytes.data() + offset, 8));
}

}  // namespace

std::string EncodeParkedHost(const ParkedHost& host) {
  std::string out = internal::BigEndianKey(host.id);
  out += internal::BigEndianKey(host.urls_dispatched);
  out += internal::BigEndianKey(
      static_cast<uint64_t>(absl::ToInt64Microseconds(host.crawl_delay)));
  out.push_back(static_cast<char>((host.crawl_delay_capped ? kCapped : 0) |
                                  (host.dropped ? kDropped : 0)));
  out.push_back(static_cast<char>(host.renders_without_links));
  return out;
}

std::optional<ParkedHost> DecodeParkedHost(std::string_view bytes) {
  if (bytes.size() != kValueSize) return std::nullopt;
  const auto flags = static_cast<uint8_t>(bytes[24]);
  const auto delay = static_cast<int64_t>(At(bytes, 16));
  const auto renders = static_cast<uint8_t>(bytes[25]);
  if ((flags & ~(kCapped | kDropped)) != 0 || delay < 0 ||
      renders > kMaxRendersWithoutLinks) {
    return std::nullopt;
  }
  return ParkedHost{.id = At(bytes, 0),
                    .urls_dispatched = At(bytes, 8),
                    .crawl_delay = absl::Microseconds(delay),
                    .crawl_delay_capped = (flags & kCapped) != 0,
                    .dropped = (flags & kDropped) != 0,
                    .renders_without_links = renders};
}

ParkedStore::ParkedStore(StoreOpener open_store)
    : open_store_(std::move(open_store)) {}

absl::Status ParkedStore::EnsureOpen() {
  if (db_.load() != nullptr) return absl::OkStatus();
  absl::StatusOr<internal::ScratchDb*> db = open_store_();
  if (!db.ok()) return db.status();
  db_.store(*db);
  return absl::OkStatus();
}

absl::Status ParkedStore::PutMany(
    std::span<const std::pair<std::string, ParkedHost>> hosts,
    uint64_t next_id) {
  if (absl::Status s = EnsureOpen(); !s.ok()) return s;
  internal::ScratchDb* db = db_.load();
  uint64_t written = 0, dropped = 0;
  rocksdb::WriteBatch batch;
  for (const auto& [name, host] : hosts) {
    if (name.empty()) continue;  // Not a host name: the meta key.
    batch.Put(db->parked_cf(), name, EncodeParkedHost(host));
    ++written;
    if (host.dropped) ++dropped;
  }
  next_id_ = std::max(next_id_, next_id);
  const uint64_t size = size_.load() + written;
  const uint64_t all_dropped = dropped_.load() + dropped;
  batch.Put(db->parked_cf(), kMetaKey,
            internal::BigEndianKey(size) + internal::BigEndianKey(all_dropped) +
                internal::BigEndianKey(next_id_));
  rocksdb::Status s = db->db()->Write(db->write_options(), &batch);
  if (!s.ok()) return internal::FromRocks(s, "parked hosts write");
  dropped_.store(all_dropped);
  size_.store(size);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<ParkedHost>> ParkedStore::Take(
    std::string_view host) {
  if (size_.load() == 0 || host.empty()) return std::nullopt;
  internal::ScratchDb* db = db_.load();
  std::string value;
  rocksdb::Status s =
      db->db()->Get(rocksdb::ReadOptions(), db->parked_cf(), host, &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) return internal::FromRocks(s, "parked hosts read");
  std::optional<ParkedHost> parked = DecodeParkedHost(value);
  if (!parked.has_value()) {
    return absl::DataLossError(
        absl::StrCat("parked hosts: malformed record of ", AbslView(host)));
  }
  const uint64_t size = size_.load() - 1;
  const uint64_t dropped = dropped_.load() - (parked->dropped ? 1 : 0);
  rocksdb::WriteBatch batch;
  batch.Delete(db->parked_cf(), host);
  batch.Put(db->parked_cf(), kMetaKey,
            internal::BigEndianKey(size) + internal::BigEndianKey(dropped) +
                internal::BigEndianKey(next_id_));
  s = db->db()->Write(db->write_options(), &batch);
  if (!s.ok()) return internal::FromRocks(s, "parked hosts delete");
  size_.store(size);
  dropped_.store(dropped);
  return parked;
}

bool ParkedStore::IsDropped(std::string_view host) const {
  if (dropped_.load(std::memory_order_relaxed) == 0 || host.empty()) {
    return false;
  }
  internal::ScratchDb* db = db_.load();
  std::string value;
  if (!db->db()
           ->Get(rocksdb::ReadOptions(), db->parked_cf(), host, &value)
           .ok()) {
    return false;
  }
  std::optional<ParkedHost> parked = DecodeParkedHost(value);
  return parked.has_value() && parked->dropped;
}

absl::StatusOr<uint64_t> ParkedStore::Restore(internal::ScratchDb* db) {
  if (db == nullptr) return 0;
  std::string meta;
  rocksdb::Status s =
      db->db()->Get(rocksdb::ReadOptions(), db->parked_cf(), kMetaKey, &meta);
  if (s.IsNotFound()) return 0;
  if (!s.ok()) return internal::FromRocks(s, "parked hosts read");
  if (meta.size() != 24) {
    return absl::DataLossError("parked hosts: malformed count");
  }
  db_.store(db);
  next_id_ = At(meta, 16);
  dropped_.store(At(meta, 8));
  size_.store(At(meta, 0));
  return next_id_;
}

absl::Status ParkedStore::ForEach(
    const std::function<void(std::string_view, const ParkedHost&)>& fn) const {
  if (size_.load() == 0) return absl::OkStatus();
  internal::ScratchDb* db = db_.load();
  std::unique_ptr<rocksdb::Iterator> it(
      db->db()->NewIterator(rocksdb::ReadOptions(), db->parked_cf()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (it->key().empty()) continue;
    std::optional<ParkedHost> parked = DecodeParkedHost(
        std::string_view(it->value().data(), it->value().size()));
    if (!parked.has_value()) {
      return absl::DataLossError("parked hosts: malformed record");
    }
    fn(std::string_view(it->key().data(), it->key().size()), *parked);
  }
  return internal::FromRocks(it->status(), "parked hosts scan");
}

}  // namespace sieve
