// frontier/sieve.h: the Sieve, a FIFO of URLs guarded by a Bloom filter (the
// seed design).
//
// Push(url) asks the filter whether `url` was seen; if it (probably) was, the
// URL is dropped and Push returns false, otherwise the URL is added to the
// filter and appended to the queue. Pop() returns the oldest queued URL. The
// queue keeps at most `memory_budget_bytes` of records in RAM; the rest goes
// to an on-disk store (RocksDB) and comes back in order.
//
// Surprises first:
//   - False positives: by default a URL never pushed before is dropped with
//     probability about `fp_rate` (more once the filter is past
//     `expected_urls`). Set `verify_positives` to confirm every "maybe seen"
//     against an exact store of 64-bit URL fingerprints: then nothing is lost
//     (barring a 64-bit fingerprint collision, ~n^2/2^65 for n URLs).
//   - Thread-safe: every call takes one internal mutex, so Push may be called
//     from several threads while another Pops. `filter()` is the exception.
//   - The on-disk store is scratch space: a crash loses it. Durability comes
//     from Checkpoint(), which adds filter, queue and counters to a snapshot
//     (frontier/snapshot.h).
//   - The Sieve does not parse or normalise URLs: "http://a/" and "HTTP://a"
//     are different keys.
//
// Example:
//   sieve::Sieve s(
//       sieve::SieveOptions{.expected_urls = 1'000'000, .fp_rate = 0.01});
//   s.OnCapacityExceeded([](const sieve::CapacityEvent& e) { /* log it */ });
//   bool queued = s.Push("http://a/");  // false when (probably) seen before
//   std::optional<std::string> next = s.Pop();  // "http://a/"
#ifndef SIEVE_FRONTIER_SIEVE_H_
#define SIEVE_FRONTIER_SIEVE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "filter/filter.h"
#include "frontier/snapshot.h"

namespace sieve {

namespace internal {
class SpillQueue;
class SeenStore;
class ScratchDb;
}  // namespace internal

struct SieveOptions {
  // URLs the filter is designed for (its capacity); past it the capacity
  // warning fires and the false-positive rate climbs. REQUIRES: > 0.
  // Default: 1'000'000.
  uint64_t expected_urls = 1'000'000;
  // Target false-positive rate at `expected_urls`. REQUIRES: 0 < fp_rate < 1.
  // Default: 0.01.
  double fp_rate = 0.01;
  // Any of the filter module's kinds. Default: kClassic.
  FilterKind filter_kind = FilterKind::kClassic;
  // Bytes of queued records kept in RAM (URL + payload + ~48 bytes of
  // bookkeeping each); past it, records go to disk in batches of about half
  // the budget. Below 64 KiB the batches get small and slow. Default: 64 MiB.
  size_t memory_budget_bytes = size_t{64} << 20;
  // The scalable filter's RAM (filter_kind kScalable): its stages fill in RAM
  // and, when a new one needs the room, the full ones go to files under
  // work_dir, each probed with one pread and never written again
  // (filter/filter.h, DiskStages), so the filter's RAM stops growing. The
  // first stage is always in RAM. 0: every stage in RAM. Default: 0.
  uint64_t filter_memory_bytes = 0;
  // Lossless mode: confirm each "maybe seen" answer of the filter against an
  // exact store of 64-bit URL fingerprints (RAM, then RocksDB); a false
  // positive caught there is queued after all and counted in
  // SieveStats::false_positives_caught. "Definitely new" answers touch no
  // disk. Default: false.
  bool verify_positives = false;
  // Directory under which the Sieve creates its private scratch store (a
  // fresh subdirectory, deleted with the Sieve; a killed process leaves it
  // behind). Nothing is opened on disk until the queue first spills or, in
  // lossless mode, 16384 fingerprints have collected in RAM.
  // Default: empty, meaning the system temp directory.
  std::filesystem::path work_dir = {};
};

namespace internal {
// Where the filter of a Sieve with these options keeps its stages on disk.
DiskStages FilterDiskStages(const SieveOptions& options);
}  // namespace internal

// One queued record: the URL and the opaque payload pushed with it (empty if
// none).
struct SieveEntry {
  std::string url = {};
  std::string payload = {};
};

// Counters since construction (carried across Checkpoint/Restore), then the
// current state.
struct SieveStats {
  // Push calls; of which queued (returned true) and dropped (returned false).
  uint64_t pushed = 0;
  uint64_t queued = 0;
  uint64_t dropped_as_seen = 0;
  // Lossless mode: "maybe seen" answers checked in the exact store, and of
  // those the ones it refuted (URLs the filter alone would have lost).
  uint64_t store_lookups = 0;
  uint64_t false_positives_caught = 0;
  // Records returned by Pop/PopEntry; records ever written to the disk queue.
  uint64_t popped = 0;
  uint64_t spilled = 0;

  // Records queued now (RAM + disk), of which on disk, and the budgeted bytes
  // of those in RAM.
  uint64_t size = 0;
  uint64_t records_on_disk = 0;
  uint64_t queue_bytes_in_memory = 0;
  // The filter: EstimatedCount(), capacity(), EstimatedFalsePositiveRate(),
  // MemoryBytes().
  double filter_estimated_count = 0;
  uint64_t filter_capacity = 0;
  double filter_estimated_fp_rate = 0;
  uint64_t filter_bytes = 0;
  // Bytes of the filter's stages in files (SieveOptions::filter_memory_bytes).
  uint64_t filter_bytes_on_disk = 0;
  // Bytes of the scratch store on disk now (queue + fingerprints; see
  // ScratchDb::DiskBytes).
  uint64_t store_bytes_on_disk = 0;
};

class Sieve {
 public:
  // REQUIRES: `options` valid (see each option); aborts with a message
  // otherwise. Use Create() for options from untrusted input such as a config
  // file.
  explicit Sieve(SieveOptions options);
  // Checked construction: InvalidArgument names the bad option.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Sieve>> Create(
      SieveOptions options);
  ~Sieve();
  Sieve(const Sieve&) = delete;
  Sieve& operator=(const Sieve&) = delete;

  // Queues `url` unless the filter says it was (probably) seen; returns whether
  // it was queued. Cost: one filter Add (k probes); amortised one RocksDB batch
  // write per half budget of spilled records; in lossless mode, one fingerprint
  // lookup on disk per "maybe seen" answer.
  bool Push(std::string_view url);
  // Same, and `payload` comes back with the URL from PopEntry().
  bool Push(std::string_view url, std::string_view payload);
  // Same, deduplicated on `dedup_key` instead of the URL (Scrapy's request
  // fingerprint: two URLs with one key are one request, one URL with two keys
  // two). Empty: the URL. MaybeSeen then takes the key.
  bool Push(std::string_view url, std::string_view payload,
            std::string_view dedup_key);
  // Queues `url` even if its key was seen (a request that asks not to be
  // filtered, Scrapy's dont_filter), and marks the key (`dedup_key`, or the
  // URL when empty) seen as Push would: a later Push of it is dropped.
  // Counted in SieveStats::pushed and ::queued. Cost: Push's.
  void PushUnfiltered(std::string_view url, std::string_view payload,
                      std::string_view dedup_key = {});

  // Push for each record, in order, under one lock, with the filter probed in
  // one batch (Filter::AddMany: every key hashed and its cache line
  // prefetched before the first probe). `queued[i]` is what Push(urls[i],
  // payloads[i], dedup_keys[i]) would have returned; a key repeated is queued
  // at most once. `dedup_keys` empty: every URL is its own key. REQUIRES: the
  // spans have one size (dedup_keys: or none). Cost: as many Push calls, less
  // the lock round trips and most cache-miss waits.
  void PushMany(std::span<const std::string_view> urls,
                std::span<const std::string_view> payloads,
                std::span<bool> queued,
                std::span<const std::string_view> dedup_keys = {});

  // The oldest queued URL (payload discarded), or nullopt when empty.
  std::optional<std::string> Pop();
  // The oldest queued record with its payload, or nullopt when empty. Cost:
  // O(1) amortised; a RocksDB scan of about half the budget each time the
  // in-RAM head runs dry.
  std::optional<SieveEntry> PopEntry();

  // Whether `url` would be dropped by Push, without adding it. In lossless mode
  // a "maybe" of the filter is confirmed against the store (one disk lookup),
  // so the answer is exact.
  bool MaybeSeen(std::string_view url) const;

  size_t size() const;
  SieveStats stats() const;
  // The first error of the on-disk store, OK if none. After an error the queue
  // keeps everything in RAM (past the budget) and lossless mode treats
  // unconfirmable "maybe seen" URLs as new, so no URL is lost; a duplicate may
  // be queued.
  absl::Status status() const;

  // Installs `callback`, called when the filter's estimated count first exceeds
  // expected_urls and again at each doubling (the filter's own event). It runs
  // on the thread whose Push crossed the threshold, after the Sieve's mutex is
  // released, so it may call the Sieve.
  void OnCapacityExceeded(CapacityCallback callback);

  // Adds filter, queue (RAM and disk) and counters to `snapshot` as files
  // named `prefix`... (see frontier/internal/snapshot.h), describing one
  // instant. Blocks Push/Pop while the filter and the in-RAM queue are copied
  // and the store's files hard-linked; writes the copies after. Cost: a copy of
  // the filter and of the in-RAM records (at most the memory budget).
  [[nodiscard]] absl::Status Checkpoint(SnapshotWriter& snapshot,
                                        std::string_view prefix) const;
  // Checkpoint(snapshot, "sieve/") into a new snapshot under `dir`, committed.
  [[nodiscard]] absl::Status Checkpoint(const std::filesystem::path& dir) const;
  // Brings back what Checkpoint added under `prefix`. The filter kind and size
  // and lossless mode come from the snapshot; from `options` only
  // memory_budget_bytes, filter_memory_bytes and work_dir are used (stages
  // that were on disk go back to files under work_dir), and InvalidArgument if
  // options.verify_positives differs from the snapshot's. The snapshot is not
  // modified (its store is copied into a new scratch directory), so it can be
  // restored again.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Sieve>> Restore(
      const SnapshotReader& snapshot, std::string_view prefix,
      SieveOptions options);
  // The same from the snapshot published in `dir`, prefix "sieve/".
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Sieve>> Restore(
      const std::filesystem::path& dir, SieveOptions options);

  // The filter, for progress reports (EstimatedCount, capacity,
  // EstimatedFalsePositiveRate). Not synchronised: REQUIRES no concurrent Push.
  // From other threads use stats().
  const Filter& filter() const { return *filter_; }

 private:
  friend class Frontier;  // Shares the store and checkpoints with the Sieve.

  // The in-memory parts of a checkpoint, taken under mu_: the state copied,
  // the filter written to its file, the RAM queue lent (SpillQueue::Lend).
  struct Image {
    std::string state;
    // The filter's bytes, written (not yet synced) while mu_ was held.
    std::unique_ptr<AtomicFileWriter> filter;
    std::shared_ptr<const std::deque<std::string>> ram_head;
    std::shared_ptr<const std::deque<std::string>> ram_tail;
  };
  // Flushes the store's memtables (if it is open) so that CaptureLocked has
  // little to copy. Takes mu_ only to read the store's pointer.
  absl::Status PrepareCheckpoint() const;
  // Copies the in-memory parts and checkpoints the store into `snapshot`.
  // REQUIRES: mu_ held.
  absl::StatusOr<Image> CaptureLocked(SnapshotWriter& snapshot,
                                      std::string_view prefix) const;
  // Writes `image` (outside mu_), then gives the lent queue back. Always
  // call it after a successful CaptureLocked.
  absl::Status WriteImage(SnapshotWriter& snapshot, std::string_view prefix,
                          Image image) const;
  // The crawl's store, opened on first call (for the Frontier's host queues
  // on disk). Takes mu_.
  absl::StatusOr<internal::ScratchDb*> OpenStore();
  // The crawl's store if it is open (a restore opens it when the checkpoint
  // had one), else nullptr. Takes mu_.
  internal::ScratchDb* OpenedStore();

  Sieve(SieveOptions options, std::unique_ptr<Filter> filter);
  // Opens the scratch store on first need. REQUIRES: mu_ held.
  absl::Status EnsureStore();
  // Sieve decision for one URL; returns whether it should be queued. REQUIRES:
  // mu_ held.
  bool AdmitLocked(std::string_view url);
  // The same once the filter has answered: `fresh` is what filter_->Add(url)
  // returned. REQUIRES: mu_ held.
  bool AdmitProbedLocked(std::string_view url, bool fresh);
  void NoteError(const absl::Status& s);
  // Calls the user's callback for the events the filter raised during a Push.
  void DeliverCapacityEvents(std::vector<CapacityEvent> events);

  const SieveOptions options_;
  // std::mutex rather than absl::Mutex: Debian's Abseil is built without
  // ThreadSanitizer annotations, so TSan could not see absl::Mutex's ordering.
  // Guards every member below.
  mutable std::mutex mu_;
  std::unique_ptr<Filter> filter_;
  std::unique_ptr<internal::ScratchDb> db_;
  std::unique_ptr<internal::SpillQueue> queue_;
  std::unique_ptr<internal::SeenStore> seen_;
  SieveStats counters_;
  absl::Status status_;
  std::vector<CapacityEvent> pending_events_;
  CapacityCallback user_callback_;
};

}  // namespace sieve

#endif  // SIEVE_FRONTIER_SIEVE_H_
