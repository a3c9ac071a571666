// The Sieve's push/pop path. Checkpoint and Restore live in
// sieve_checkpoint.cc.
#include "frontier/sieve.h"

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "filter/key_hash.h"
#include "frontier/internal/record.h"
#include "frontier/internal/scratch_db.h"
#include "frontier/internal/seen_store.h"
#include "frontier/internal/spill_queue.h"

namespace sieve {
namespace {

absl::Status ValidateOptions(const SieveOptions& options) {
  if (options.expected_urls == 0) {
    return absl::InvalidArgumentError("SieveOptions.expected_urls must be > 0");
  }
  if (!(options.fp_rate > 0 && options.fp_rate < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SieveOptions.fp_rate must be in (0, 1), got ", options.fp_rate));
  }
  return absl::OkStatus();
}

}  // namespace

DiskStages internal::FilterDiskStages(const SieveOptions& options) {
  if (options.filter_memory_bytes == 0) return {};
  std::error_code error;
  const std::filesystem::path dir =
      options.work_dir.empty() ? std::filesystem::temp_directory_path(error)
                               : options.work_dir;
  return {.ram_budget_bytes = options.filter_memory_bytes, .dir = dir.string()};
}

namespace {

absl::StatusOr<std::unique_ptr<Filter>> FilterFor(const SieveOptions& options) {
  if (absl::Status s = ValidateOptions(options); !s.ok()) return s;
  return CreateFilter({.kind = options.filter_kind,
                       .capacity = options.expected_urls,
                       .fp_rate = options.fp_rate,
                       .disk_stages = internal::FilterDiskStages(options)});
}

std::unique_ptr<Filter> FilterOrDie(const SieveOptions& options) {
  absl::StatusOr<std::unique_ptr<Filter>> filter = FilterFor(options);
  if (!filter.ok()) {
    std::fprintf(stderr, "sieve::Sieve: %s\n",
                 filter.status().ToString().c_str());
    std::abort();
  }
  return *std::move(filter);
}

}  // namespace

Sieve::Sieve(SieveOptions options) : Sieve(options, FilterOrDie(options)) {}

Sieve::Sieve(SieveOptions options, std::unique_ptr<Filter> filter)
    : options_(std::move(options)), filter_(std::move(filter)) {
  auto open_store = [this]() -> absl::StatusOr<internal::ScratchDb*> {
    // Called from inside Push/Pop/Checkpoint, with mu_ held.
    if (absl::Status s = EnsureStore(); !s.ok()) return s;
    return db_.get();
  };
  queue_ = std::make_unique<internal::SpillQueue>(options_.memory_budget_bytes,
                                                  open_store);
  if (options_.verify_positives)
    seen_ = std::make_unique<internal::SeenStore>(open_store);
  // The filter calls this from inside Add, under mu_; the user's callback runs
  // after unlock.
  filter_->OnCapacityExceeded(
      [this](const CapacityEvent& event) { pending_events_.push_back(event); });
}

absl::StatusOr<std::unique_ptr<Sieve>> Sieve::Create(SieveOptions options) {
  absl::StatusOr<std::unique_ptr<Filter>> filter = FilterFor(options);
  if (!filter.ok()) return filter.status();
  return std::unique_ptr<Sieve>(
      new Sieve(std::move(options), *std::move(filter)));
}

Sieve::~Sieve() {
  // The queue and seen store point into db_: drop them first.
  queue_.reset();
  seen_.reset();
  db_.reset();
}

absl::Status Sieve::EnsureStore() {
  if (db_ != nullptr) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<internal::ScratchDb>> db =
      internal::ScratchDb::Open(options_.work_dir, /*seed=*/{});
  if (!db.ok()) return db.status();
  db_ = *std::move(db);
  return absl::OkStatus();
}

absl::StatusOr<internal::ScratchDb*> Sieve::OpenStore() {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = EnsureStore(); !s.ok()) return s;
  return db_.get();
}

internal::ScratchDb* Sieve::OpenedStore() {
  std::lock_guard<std::mutex> lock(mu_);
  return db_.get();
}

void Sieve::NoteError(const absl::Status& s) {
  if (status_.ok() && !s.ok()) status_ = s;
}

bool Sieve::AdmitLocked(std::string_view url) {
  // One pass: Add sets the bits and reports whether any was clear ("definitely
  // new").
  return AdmitProbedLocked(url, filter_->Add(url));
}

bool Sieve::AdmitProbedLocked(std::string_view url, bool fresh) {
  ++counters_.pushed;
  if (fresh) {
    if (seen_) {
      seen_->Insert(Fingerprint64(url));
      NoteError(seen_->status());
    }
    return true;
  }
  if (seen_) {
    // "Maybe seen": only the exact store can tell a repeat from a false
    // positive.
    ++counters_.store_lookups;
    const uint64_t fingerprint = Fingerprint64(url);
    if (!seen_->Contains(fingerprint)) {
      ++counters_.false_positives_caught;
      seen_->Insert(fingerprint);
      NoteError(seen_->status());
      return true;
    }
  }
  ++counters_.dropped_as_seen;
  return false;
}

bool Sieve::Push(std::string_view url) { return Push(url, {}); }

bool Sieve::Push(std::string_view url, std::string_view payload) {
  return Push(url, payload, url);
}

bool Sieve::Push(std::string_view url, std::string_view payload,
                 std::string_view dedup_key) {
  std::vector<CapacityEvent> events;
  bool queued = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queued = AdmitLocked(dedup_key.empty() ? url : dedup_key);
    if (queued) {
      ++counters_.queued;
      queue_->Push(internal::EncodeRecord(url, payload));
      NoteError(queue_->status());
    }
    if (!pending_events_.empty()) events.swap(pending_events_);
  }
  if (!events.empty()) DeliverCapacityEvents(std::move(events));
  return queued;
}

void Sieve::PushUnfiltered(std::string_view url, std::string_view payload,
                           std::string_view dedup_key) {
  const std::string_view key = dedup_key.empty() ? url : dedup_key;
  std::vector<CapacityEvent> events;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Marks it seen as AdmitLocked does, without its drop.
    ++counters_.pushed;
    const bool fresh = filter_->Add(key);
    if (seen_) {
      const uint64_t fingerprint = Fingerprint64(key);
      if (fresh || !seen_->Contains(fingerprint)) seen_->Insert(fingerprint);
      NoteError(seen_->status());
    }
    ++counters_.queued;
    queue_->Push(internal::EncodeRecord(url, payload));
    NoteError(queue_->status());
    if (!pending_events_.empty()) events.swap(pending_events_);
  }
  if (!events.empty()) DeliverCapacityEvents(std::move(events));
}

void Sieve::PushMany(std::span<const std::string_view> urls,
                     std::span<const std::string_view> payloads,
                     std::span<bool> queued,
                     std::span<const std::string_view> dedup_keys) {
  assert(urls.size() == payloads.size() && urls.size() == queued.size());
  assert(dedup_keys.empty() || dedup_keys.size() == urls.size());
  const std::span<const std::string_view> keys =
      dedup_keys.empty() ? urls : dedup_keys;
  std::vector<CapacityEvent> events;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The filter's answers, in order, as one Add each would give them.
    filter_->AddMany(keys, queued);
    for (size_t i = 0; i < urls.size(); ++i) {
      queued[i] = AdmitProbedLocked(keys[i], queued[i]);
      if (queued[i]) {
        ++counters_.queued;
        queue_->Push(internal::EncodeRecord(urls[i], payloads[i]));
        NoteError(queue_->status());
      }
    }
    if (!pending_events_.empty()) events.swap(pending_events_);
  }
  if (!events.empty()) DeliverCapacityEvents(std::move(events));
}

void Sieve::DeliverCapacityEvents(std::vector<CapacityEvent> events) {
  CapacityCallback callback;
  {
    std::lock_guard<std::mutex> lock(mu_);
    callback = user_callback_;
  }
  if (!callback) return;
  for (const CapacityEvent& event : events) callback(event);
}

std::optional<SieveEntry> Sieve::PopEntry() {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<std::string> record = queue_->Pop();
  NoteError(queue_->status());
  if (!record) return std::nullopt;
  ++counters_.popped;
  std::optional<internal::RecordView> view = internal::DecodeRecord(*record);
  if (!view) {
    NoteError(absl::DataLossError("malformed queue record"));
    return SieveEntry{*std::move(record), {}};
  }
  return SieveEntry{std::string(view->url), std::string(view->payload)};
}

std::optional<std::string> Sieve::Pop() {
  std::optional<SieveEntry> entry = PopEntry();
  if (!entry) return std::nullopt;
  return std::move(entry->url);
}

bool Sieve::MaybeSeen(std::string_view url) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!filter_->MayContain(url)) return false;
  if (!seen_) return true;
  return seen_->Contains(Fingerprint64(url));
}

size_t Sieve::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_->size();
}

SieveStats Sieve::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  SieveStats stats = counters_;
  stats.spilled = queue_->spilled();
  stats.size = queue_->size();
  stats.records_on_disk = queue_->disk_count();
  stats.queue_bytes_in_memory = queue_->bytes_in_memory();
  stats.filter_estimated_count = filter_->EstimatedCount();
  stats.filter_capacity = filter_->capacity();
  stats.filter_estimated_fp_rate = filter_->EstimatedFalsePositiveRate();
  stats.filter_bytes = filter_->MemoryBytes();
  stats.filter_bytes_on_disk = filter_->DiskBytes();
  stats.store_bytes_on_disk = db_ ? db_->DiskBytes() : 0;
  return stats;
}

absl::Status Sieve::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void Sieve::OnCapacityExceeded(CapacityCallback callback) {
  std::lock_guard<std::mutex> lock(mu_);
  user_callback_ = std::move(callback);
}

}  // namespace sieve
