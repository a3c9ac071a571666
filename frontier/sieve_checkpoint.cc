// Sieve::Checkpoint and Sieve::Restore. The snapshot layout is in
// frontier/internal/snapshot.h.
//
// Publication is two renames, each followed by an fsync of the directory:
//   snap-<n>.tmp/ (fully written and fsynced)  ->  snap-<n>/
//   CURRENT.tmp ("snap-<n>")                   ->  CURRENT
// A crash before the second rename leaves CURRENT naming the previous
// snapshot, which is only deleted after CURRENT names the new one; so CURRENT
// always names a complete snapshot.
#include <algorithm>
#include <charconv>
#include <string>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "frontier/internal/durable_file.h"
#include "frontier/internal/scratch_db.h"
#include "frontier/internal/seen_store.h"
#include "frontier/internal/snapshot.h"
#include "frontier/internal/spill_queue.h"
#include "frontier/sieve.h"

namespace sieve {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kSnapshotPrefix = "snap-";

absl::Status FsError(std::string_view what, const fs::path& path,
                     const std::error_code& ec) {
  return absl::InternalError(
      absl::StrCat(std::string(what), " ", path.string(), ": ", ec.message()));
}

// n of a "snap-<n>" or "snap-<n>.tmp" name, 0 if none.
uint64_t SnapshotNumber(std::string_view name) {
  if (!name.starts_with(kSnapshotPrefix)) return 0;
  name.remove_prefix(kSnapshotPrefix.size());
  uint64_t n = 0;
  std::from_chars(name.data(), name.data() + name.size(), n);
  return n;
}

// Deletes every snap-* entry of `dir` except `keep` (best effort: leftovers are
// harmless).
void RemoveOtherSnapshots(const fs::path& dir, const std::string& keep) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(kSnapshotPrefix) && name != keep)
      fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

absl::Status Sieve::Checkpoint(const fs::path& dir) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return FsError("creating", dir, ec);
  // Fingerprints still in RAM go to the store, which the RocksDB checkpoint
  // then captures.
  if (seen_) {
    if (absl::Status s = seen_->Flush(); !s.ok()) return s;
  }
  uint64_t number = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    number = std::max(number, SnapshotNumber(entry.path().filename().string()));
  }
  if (ec) return FsError("listing", dir, ec);
  const std::string name =
      absl::StrCat(std::string(kSnapshotPrefix), number + 1);
  const fs::path staging = dir / (name + ".tmp");
  fs::remove_all(staging, ec);
  fs::create_directory(staging, ec);
  if (ec) return FsError("creating", staging, ec);

  if (absl::Status s = filter_->SaveToFile((staging / "filter.bin").string());
      !s.ok())
    return s;
  if (absl::Status s = internal::WriteFileAndSync(
          staging / "ram_queue",
          internal::EncodeRamQueue(queue_->head(), queue_->tail()));
      !s.ok()) {
    return s;
  }
  if (db_ != nullptr) {
    if (absl::Status s = db_->CheckpointTo(staging / "db"); !s.ok()) return s;
  }
  internal::SnapshotManifest manifest;
  manifest.verify_positives = options_.verify_positives;
  manifest.pushed = counters_.pushed;
  manifest.queued = counters_.queued;
  manifest.dropped_as_seen = counters_.dropped_as_seen;
  manifest.false_positives_caught = counters_.false_positives_caught;
  manifest.store_lookups = counters_.store_lookups;
  manifest.popped = counters_.popped;
  manifest.spilled = queue_->spilled();
  manifest.disk_begin = queue_->disk_begin();
  manifest.disk_end = queue_->disk_end();
  manifest.head_records = queue_->head().size();
  manifest.tail_records = queue_->tail().size();
  manifest.has_store = db_ != nullptr;
  if (absl::Status s = internal::WriteFileAndSync(
          staging / "MANIFEST", internal::EncodeManifest(manifest));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = internal::SyncTree(staging); !s.ok()) return s;

  fs::rename(staging, dir / name, ec);
  if (ec) return FsError("renaming", staging, ec);
  if (absl::Status s = internal::SyncDirectory(dir); !s.ok()) return s;
  if (absl::Status s =
          internal::WriteFileAndSync(dir / "CURRENT.tmp", name + "\n");
      !s.ok()) {
    return s;
  }
  fs::rename(dir / "CURRENT.tmp", dir / "CURRENT", ec);
  if (ec) return FsError("renaming", dir / "CURRENT.tmp", ec);
  if (absl::Status s = internal::SyncDirectory(dir); !s.ok()) return s;
  RemoveOtherSnapshots(dir, name);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Sieve>> Sieve::Restore(const fs::path& dir,
                                                      SieveOptions options) {
  absl::StatusOr<std::string> current =
      internal::ReadWholeFile(dir / "CURRENT");
  if (!current.ok()) return current.status();
  const std::string name(absl::StripAsciiWhitespace(*current));
  if (SnapshotNumber(name) == 0) {
    return absl::DataLossError(
        absl::StrCat(dir.string(), "/CURRENT names no snapshot"));
  }
  const fs::path snapshot = dir / name;
  absl::StatusOr<std::string> manifest_text =
      internal::ReadWholeFile(snapshot / "MANIFEST");
  if (!manifest_text.ok()) return manifest_text.status();
  absl::StatusOr<internal::SnapshotManifest> manifest =
      internal::DecodeManifest(*manifest_text);
  if (!manifest.ok()) return manifest.status();
  if (manifest->verify_positives != options.verify_positives) {
    return absl::InvalidArgumentError(
        absl::StrCat("snapshot was written with verify_positives=",
                     manifest->verify_positives, ", options ask for ",
                     options.verify_positives));
  }
  absl::StatusOr<std::unique_ptr<Filter>> filter =
      LoadFilterFromFile((snapshot / "filter.bin").string());
  if (!filter.ok()) return filter.status();
  absl::StatusOr<std::string> ram_bytes =
      internal::ReadWholeFile(snapshot / "ram_queue");
  if (!ram_bytes.ok()) return ram_bytes.status();
  absl::StatusOr<internal::RamQueue> ram = internal::DecodeRamQueue(
      *ram_bytes, manifest->head_records, manifest->tail_records);
  if (!ram.ok()) return ram.status();

  options.filter_kind = (*filter)->kind();
  options.expected_urls = (*filter)->capacity();
  auto sieve =
      std::unique_ptr<Sieve>(new Sieve(std::move(options), *std::move(filter)));
  std::lock_guard<std::mutex> lock(sieve->mu_);
  if (manifest->has_store) {
    absl::StatusOr<std::unique_ptr<internal::ScratchDb>> db =
        internal::ScratchDb::Open(sieve->options_.work_dir, snapshot / "db");
    if (!db.ok()) return db.status();
    sieve->db_ = *std::move(db);
    if (sieve->seen_) sieve->seen_->Attach(sieve->db_.get());
  }
  if (absl::Status s = sieve->queue_->Restore(
          std::move(ram->head), manifest->disk_begin, manifest->disk_end,
          std::move(ram->tail), manifest->spilled);
      !s.ok()) {
    return s;
  }
  sieve->counters_.pushed = manifest->pushed;
  sieve->counters_.queued = manifest->queued;
  sieve->counters_.dropped_as_seen = manifest->dropped_as_seen;
  sieve->counters_.false_positives_caught = manifest->false_positives_caught;
  sieve->counters_.store_lookups = manifest->store_lookups;
  sieve->counters_.popped = manifest->popped;
  return sieve;
}

}  // namespace sieve
