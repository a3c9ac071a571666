// filter/filter.h: the interface every Bloom filter kind shares, so the
// frontier can hold any of them, and the factory that builds one from options
// (for untrusted input such as a config file).
//
// Surprises first:
//   - A filter may answer "maybe present" for a key never added (a false
//     positive, at roughly the rate it was sized for); it never answers
//     "absent" for a key that was added (no false negatives), except that
//     CountingBloomFilter::Remove of a key never added can cause them.
//   - Not thread-safe unless built with `FilterOptions::concurrent`, which
//     makes `Add` and `MayContain` safe to call from several threads at once
//     (atomic fetch-or on 64-bit words).
//   - Calls through this interface are virtual. For speed, use the concrete
//     classes directly (BloomFilter, BlockedBloomFilter, CountingBloomFilter,
//     ScalableBloomFilter, StableBloomFilter, GenerationalBloomFilter).
//
// Example:
//   absl::StatusOr<std::unique_ptr<sieve::Filter>> f = sieve::CreateFilter(
//       {.kind = sieve::FilterKind::kBlocked, .capacity = 1'000'000,
//        .fp_rate = 0.01});
//   if (!f.ok()) return f.status();
//   bool fresh = (*f)->Add("http://a/");   // true the first time, false after
#ifndef SIEVE_FILTER_FILTER_H_
#define SIEVE_FILTER_FILTER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "filter/key_hash.h"

namespace sieve {

// The kinds, written once: X(enumerator, saved value, name, class, forgets).
//   classic:      BloomFilter, one bit array, k probes anywhere in it.
//   blocked:      BlockedBloomFilter, all k probes in one 64-byte cache line.
//   counting:     CountingBloomFilter, 4-bit saturating counters, Remove.
//   scalable:     ScalableBloomFilter, grows by chaining filters (Almeida et
//                 al. 2007).
//   stable:       StableBloomFilter, fixed memory for an endless stream; old
//                 keys fade out (Deng & Rafiei 2006).
//   generational: GenerationalBloomFilter, a sliding window of G blocked
//                 filters, the oldest cleared in turn.
// The last two forget keys (false negatives) by design.
#define SIEVE_FILTER_KINDS(X)                             \
  X(kClassic, 1, "classic", BloomFilter, false)           \
  X(kBlocked, 2, "blocked", BlockedBloomFilter, false)    \
  X(kCounting, 3, "counting", CountingBloomFilter, false) \
  X(kScalable, 4, "scalable", ScalableBloomFilter, false) \
  X(kStable, 5, "stable", StableBloomFilter, true)        \
  X(kGenerational, 6, "generational", GenerationalBloomFilter, true)

enum class FilterKind : uint8_t {
#define SIEVE_FILTER_KIND_ENUM(name, value, text, cls, forgets) name = value,
  SIEVE_FILTER_KINDS(SIEVE_FILTER_KIND_ENUM)
#undef SIEVE_FILTER_KIND_ENUM
};

// Every kind, in declaration order.
std::span<const FilterKind> AllFilterKinds();
// "classic", "blocked", "counting", "scalable", "stable", "generational".
std::string_view FilterKindName(FilterKind kind);
// Inverse of FilterKindName; an InvalidArgument error names the accepted
// values.
absl::StatusOr<FilterKind> ParseFilterKind(std::string_view name);
// True for the kinds that forget keys by design (stable, generational): a key
// added may later be reported absent.
bool FilterKindForgets(FilterKind kind);

// What OnCapacityExceeded reports: the filter's estimated item count, the
// capacity it was designed for, and the false-positive rate it has at this
// fill.
struct CapacityEvent {
  double estimated_count = 0;
  uint64_t capacity = 0;
  double estimated_fp_rate = 0;
};
using CapacityCallback = std::function<void(const CapacityEvent&)>;

// kScalable: stages kept in files once the filter's RAM reaches a budget, so a
// seen-set that grows with a crawl without end keeps a bounded RSS
// (docs/architecture.md, "Memory"). Each stage past the first is a blocked
// Bloom filter filled in RAM; when a new one needs the room, the full ones go,
// newest first, each to a file of its own in one pass (created and unlinked at
// once) and are only read from then on: a probe is one 64-byte pread, an add
// writes no file. Past the budget the stages stop doubling. The files' pages
// are the page cache's, not the process's RSS. An I/O error reads as "not
// seen" (a key is let through again, never lost).
struct DiskStages {
  // The stages in RAM take at most this many bytes (at least the first, and
  // a stage for an eighth of its keys beside it); 0: every stage in RAM,
  // classic ones. Default: 0.
  uint64_t ram_budget_bytes = 0;
  // Directory of the stages' files. Empty: anonymous memory files
  // (memfd_create), which cost RAM like a stage in memory. Default: "".
  std::string dir = {};
};

struct FilterOptions {
  // Default: kClassic.
  FilterKind kind = FilterKind::kClassic;
  // Items the filter is designed to hold at `fp_rate` (the scalable kind's
  // initial capacity). REQUIRES: > 0. Default: 1'000'000.
  uint64_t capacity = 1'000'000;
  // Target false-positive rate at `capacity` items. REQUIRES: 0 < fp_rate < 1.
  // Default: 0.01.
  double fp_rate = 0.01;
  // Make Add/MayContain safe to call concurrently. Default: false.
  bool concurrent = false;
  // The forgetting kinds (stable, generational): memory for the filter, in
  // bytes; 0 takes the memory a classic filter of `capacity` keys at
  // `fp_rate` would, so a forgetting kind replaces another at the same cost.
  // Default: 0.
  uint64_t memory_bytes = 0;
  // kGenerational: filters in the window. REQUIRES: 2 <= generations <= 64.
  // Default: 4.
  uint32_t generations = 4;
  // kGenerational: also rotate when the newest generation is this old,
  // seconds; 0 rotates by count only. REQUIRES: >= 0. Default: 0.
  double generation_seconds = 0;
  // Seed of the key hash. Filters combine (UnionWith) only with the same seed.
  // Default: kDefaultFilterSeed.
  uint64_t seed = kDefaultFilterSeed;
  // kScalable: where stages past a RAM budget go. Default: all in RAM.
  DiskStages disk_stages = {};
};

// How a saved filter is read back (DeserializeFilter, LoadFilterFromFile,
// T::LoadFromFile).
struct LoadOptions {
  // LoadFromFile only: use the file's pages in place through a private
  // (copy-on-write) mmap instead of reading a copy, so a 1 GB filter opens
  // without a 1 GB read and pages load as they are touched. REQUIRES: the file
  // is not truncated while loaded (SIGBUS). Default: false.
  bool memory_map = false;
  // Verify the checksum over header and bits (reads every page once). Default:
  // true.
  bool verify_checksum = true;
  // As FilterOptions::concurrent. Default: false.
  bool concurrent = false;
  // kScalable: where its stages on disk are written back to, and where the
  // stages it opens from now on go. Default: all in RAM, a saved stage on
  // disk in an anonymous memory file.
  DiskStages disk_stages = {};
};

class Filter {
 public:
  virtual ~Filter() = default;

  virtual FilterKind kind() const = 0;

  // Adds `key`; returns true when it was (probably) absent before: test-and-set
  // in one pass. Cost: one hash of the key and k probes (one cache line for the
  // blocked kind).
  virtual bool Add(std::string_view key) = 0;
  // False: `key` was never added. True: it probably was.
  virtual bool MayContain(std::string_view key) const = 0;

  // Batch forms: hash every key, prefetch their cache lines, then probe; much
  // faster than one at a time on filters larger than the CPU cache. REQUIRES:
  // out.size() == keys.size(). `fresh[i]` is what Add(keys[i]) would have
  // returned, in order.
  virtual void AddMany(std::span<const std::string_view> keys,
                       std::span<bool> fresh) = 0;
  virtual void MayContainMany(std::span<const std::string_view> keys,
                              std::span<bool> out) const = 0;

  // Swamidass & Baldi (2007) estimate of the number of distinct keys added.
  // O(1): the set-bit count is kept up to date as bits are set.
  virtual double EstimatedCount() const = 0;
  // False-positive rate at the current fill.
  virtual double EstimatedFalsePositiveRate() const = 0;
  // Fraction of bits (counters) set, in [0, 1].
  virtual double FillRatio() const = 0;
  // Bytes the filter owns in RAM (its bit array and bookkeeping), and in files
  // (the scalable kind's stages on disk, FilterOptions::disk_stages; 0 for
  // every other kind).
  virtual uint64_t MemoryBytes() const = 0;
  virtual uint64_t DiskBytes() const = 0;
  // Designed capacity (the scalable kind: its initial capacity).
  virtual uint64_t capacity() const = 0;
  // m: bits in the filter (counters for the counting kind; all stages of the
  // scalable kind, which grows).
  virtual uint64_t bit_count() const = 0;
  // k: probes per key (the scalable kind: its first stage's k).
  virtual uint32_t hash_count() const = 0;
  // The false-positive rate the kind's own formula predicts at its m and k
  // once `n` distinct keys were added (docs/architecture.md, "Formulas"):
  //   - classic and counting: (1 - e^(-kn/m))^k;
  //   - blocked: the same averaged over the Poisson-distributed block loads;
  //   - scalable: 1 - prod(1 - p_i) over its stages at their current fill
  //     (`n` is not used: the stages' fill already reflects it).
  virtual double FormulaFalsePositiveRate(uint64_t n) const = 0;

  // Installs `callback`, called once when EstimatedCount() first exceeds
  // capacity() and again at each further doubling (2x, 4x, ...), from the
  // thread that called Add. Replaces any earlier one.
  virtual void OnCapacityExceeded(CapacityCallback callback) = 0;

  // The filter as bytes: header (magic, version, kind, m, k, seed, capacity,
  // count) + bits + checksum. DeserializeFilter() reads any kind back.
  virtual std::string Serialize() const = 0;
  // Serialize()'s bytes handed to `sink` in pieces (the header, then the bits
  // where they lie), never copied whole: for a writer that must not hold the
  // filter twice in RAM (a checkpoint). Cost: O(m) bytes passed to `sink`.
  virtual void SerializeTo(
      absl::FunctionRef<void(std::string_view)> sink) const = 0;
  // Writes Serialize()'s bytes to `path` (written to a temporary file, fsynced,
  // then renamed).
  virtual absl::Status SaveToFile(const std::string& path) const = 0;
};

// Builds a filter of `options.kind`. InvalidArgument for capacity 0, fp_rate
// outside (0, 1), or a size past what the machine can address.
absl::StatusOr<std::unique_ptr<Filter>> CreateFilter(
    const FilterOptions& options);

// Reads bytes written by Serialize() of any kind. An error names what is wrong:
// truncated, bad magic, unknown version or kind, checksum mismatch.
absl::StatusOr<std::unique_ptr<Filter>> DeserializeFilter(
    std::string_view bytes);
absl::StatusOr<std::unique_ptr<Filter>> DeserializeFilter(
    std::string_view bytes, const LoadOptions& options);
absl::StatusOr<std::unique_ptr<Filter>> LoadFilterFromFile(
    const std::string& path);
absl::StatusOr<std::unique_ptr<Filter>> LoadFilterFromFile(
    const std::string& path, const LoadOptions& options);

}  // namespace sieve

#endif  // SIEVE_FILTER_FILTER_H_
