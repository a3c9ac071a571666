// Sieve::Checkpoint and Sieve::Restore: the Sieve's files in a snapshot
// (frontier/snapshot.h); their encoding is in frontier/internal/snapshot.h.
//
// The in-memory parts (filter, in-RAM queue, counters) are captured and the
// store's RocksDB checkpoint is taken under the Sieve's mutex, so they describe
// one instant. The filter is written to its file there, piece by piece from
// where its bits lie (a copy would double its RAM at every checkpoint: 24 MB
// at the default 10^7 URLs, 10x that late in a broad crawl), and synced after
// the mutex is released; the queue's RAM records are lent and written after.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "frontier/internal/scratch_db.h"
#include "frontier/internal/seen_store.h"
#include "frontier/internal/snapshot.h"
#include "frontier/internal/spill_queue.h"
#include "frontier/sieve.h"

namespace sieve {
namespace fs = std::filesystem;

absl::Status Sieve::PrepareCheckpoint() const {
  internal::ScratchDb* db = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    db = db_.get();  // Lives as long as the Sieve once opened.
  }
  return db == nullptr ? absl::OkStatus() : db->FlushMemtables();
}

absl::StatusOr<Sieve::Image> Sieve::CaptureLocked(
    SnapshotWriter& snapshot, std::string_view prefix) const {
  // Fingerprints still in RAM go to the store, which its checkpoint captures.
  if (seen_) {
    if (absl::Status s = seen_->Flush(); !s.ok()) return s;
  }
  if (queue_->lending()) {
    return absl::FailedPreconditionError("a checkpoint is already running");
  }
  Image image;
  absl::StatusOr<std::unique_ptr<AtomicFileWriter>> filter_file =
      snapshot.CreateFile(absl::StrCat(std::string(prefix), "filter.bin"));
  if (!filter_file.ok()) return filter_file.status();
  absl::Status written;
  filter_->SerializeTo([&](std::string_view piece) {
    if (written.ok()) written = (*filter_file)->Append(piece);
  });
  if (!written.ok()) return written;
  image.filter = *std::move(filter_file);
  internal::SnapshotManifest state;
  state.verify_positives = options_.verify_positives;
  state.pushed = counters_.pushed;
  state.queued = counters_.queued;
  state.dropped_as_seen = counters_.dropped_as_seen;
  state.false_positives_caught = counters_.false_positives_caught;
  state.store_lookups = counters_.store_lookups;
  state.popped = counters_.popped;
  state.spilled = queue_->spilled();
  state.disk_begin = queue_->disk_begin();
  state.disk_end = queue_->disk_end();
  state.has_store = db_ != nullptr;
  if (db_ != nullptr) {
    absl::StatusOr<fs::path> dir =
        snapshot.AddDirectory(absl::StrCat(std::string(prefix), "store"));
    if (!dir.ok()) return dir.status();
    if (absl::Status s = db_->CheckpointTo(*dir); !s.ok()) return s;
  }
  // Last, so nothing can fail after the queue is lent.
  internal::SpillQueue::Lent lent = queue_->Lend();
  state.head_records = lent.head->size();
  state.tail_records = lent.tail->size();
  image.state = internal::EncodeManifest(state);
  image.ram_head = std::move(lent.head);
  image.ram_tail = std::move(lent.tail);
  return image;
}

absl::Status Sieve::WriteImage(SnapshotWriter& snapshot,
                               std::string_view prefix, Image image) const {
  const std::string p(prefix);
  // The lent records are read (never changed) while Pop may copy them.
  absl::Status status = internal::WriteRamQueue(
      snapshot, p + "ram_queue", *image.ram_head, *image.ram_tail);
  image.ram_head.reset();
  image.ram_tail.reset();
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_->EndLending();
  }
  if (!status.ok()) return status;
  if (absl::Status s = image.filter->Commit(); !s.ok()) return s;
  return snapshot.AddFile(p + "state", image.state);
}

absl::Status Sieve::Checkpoint(SnapshotWriter& snapshot,
                               std::string_view prefix) const {
  if (absl::Status s = PrepareCheckpoint(); !s.ok()) return s;
  absl::StatusOr<Image> image;
  {
    std::lock_guard<std::mutex> lock(mu_);
    image = CaptureLocked(snapshot, prefix);
  }
  if (!image.ok()) return image.status();
  return WriteImage(snapshot, prefix, *std::move(image));
}

absl::Status Sieve::Checkpoint(const fs::path& dir) const {
  absl::StatusOr<SnapshotWriter> snapshot = SnapshotWriter::Begin(dir);
  if (!snapshot.ok()) return snapshot.status();
  if (absl::Status s = Checkpoint(*snapshot, "sieve/"); !s.ok()) return s;
  return snapshot->Commit();
}

absl::StatusOr<std::unique_ptr<Sieve>> Sieve::Restore(const fs::path& dir,
                                                      SieveOptions options) {
  absl::StatusOr<SnapshotReader> snapshot = SnapshotReader::Open(dir);
  if (!snapshot.ok()) return snapshot.status();
  return Restore(*snapshot, "sieve/", std::move(options));
}

absl::StatusOr<std::unique_ptr<Sieve>> Sieve::Restore(
    const SnapshotReader& snapshot, std::string_view prefix,
    SieveOptions options) {
  const std::string p(prefix);
  absl::StatusOr<std::string> state_text = snapshot.ReadFile(p + "state");
  if (!state_text.ok()) return state_text.status();
  absl::StatusOr<internal::SnapshotManifest> state =
      internal::DecodeManifest(*state_text);
  if (!state.ok()) return state.status();
  if (state->verify_positives != options.verify_positives) {
    return absl::InvalidArgumentError(absl::StrCat(
        "snapshot was written with verify_positives=", state->verify_positives,
        ", options ask for ", options.verify_positives));
  }
  absl::StatusOr<std::string> filter_bytes =
      snapshot.ReadFile(p + "filter.bin");
  if (!filter_bytes.ok()) return filter_bytes.status();
  absl::StatusOr<std::unique_ptr<Filter>> filter = DeserializeFilter(
      *filter_bytes,
      LoadOptions{.disk_stages = internal::FilterDiskStages(options)});
  if (!filter.ok()) {
    return absl::DataLossError(
        absl::StrCat(snapshot.PathOf(p + "filter.bin").string(), ": ",
                     filter.status().message()));
  }
  filter_bytes->clear();
  absl::StatusOr<std::string> ram_bytes = snapshot.ReadFile(p + "ram_queue");
  if (!ram_bytes.ok()) return ram_bytes.status();
  absl::StatusOr<internal::RamQueue> ram = internal::DecodeRamQueue(
      *ram_bytes, state->head_records, state->tail_records);
  if (!ram.ok()) return ram.status();

  options.filter_kind = (*filter)->kind();
  options.expected_urls = (*filter)->capacity();
  auto sieve =
      std::unique_ptr<Sieve>(new Sieve(std::move(options), *std::move(filter)));
  std::lock_guard<std::mutex> lock(sieve->mu_);
  if (state->has_store) {
    if (!snapshot.Contains(p + "store")) {
      return absl::DataLossError(absl::StrCat(
          snapshot.PathOf(p + "store").string(), ": missing store directory"));
    }
    absl::StatusOr<std::unique_ptr<internal::ScratchDb>> db =
        internal::ScratchDb::Open(sieve->options_.work_dir,
                                  snapshot.PathOf(p + "store"));
    if (!db.ok()) return db.status();
    sieve->db_ = *std::move(db);
    if (sieve->seen_) sieve->seen_->Attach(sieve->db_.get());
  }
  if (absl::Status s = sieve->queue_->Restore(
          std::move(ram->head), state->disk_begin, state->disk_end,
          std::move(ram->tail), state->spilled);
      !s.ok()) {
    return s;
  }
  sieve->counters_.pushed = state->pushed;
  sieve->counters_.queued = state->queued;
  sieve->counters_.dropped_as_seen = state->dropped_as_seen;
  sieve->counters_.false_positives_caught = state->false_positives_caught;
  sieve->counters_.store_lookups = state->store_lookups;
  sieve->counters_.popped = state->popped;
  return sieve;
}

}  // namespace sieve
