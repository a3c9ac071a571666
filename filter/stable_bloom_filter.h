// filter/stable_bloom_filter.h: the stable Bloom filter (Deng & Rafiei,
// "Approximately Detecting Duplicates for Streaming Data using Stable Bloom
// Filters", SIGMOD 2006): a seen-set of fixed memory for an endless stream.
// Each of its m cells holds d bits (0 to Max = 2^d - 1); an insert first
// decrements P cells chosen at random, then sets the key's K cells to Max. Old
// keys fade out as their cells are decremented, so the share of zero cells,
// and with it the false-positive rate, settles at a fixed "stable point"
// however long the stream.
//
// Surprises first:
//   - It has false negatives: a key inserted long ago may be reported absent
//     (BloomMath::StableForgetProbability gives the rate by age;
//     StableHalfLife the age at which it reaches 1/2). For a crawler this means
//     a URL found again after the filter forgot it is fetched again.
//   - The P cells decremented per insert are P consecutive cells from a random
//     start (one or two words touched, not P cache misses). Each cell is still
//     decremented with probability P/m per insert, independently from insert to
//     insert, which is all the paper's formulas use. The random numbers come
//     from a generator seeded by FilterOptions::seed and saved with the filter,
//     so a run is reproducible.
//   - capacity() is the age, in inserts, at which a key is forgotten with
//     probability 1/2 (BloomMath::StableHalfLife): roughly how many of the
//     latest keys the filter holds. EstimatedCount() is min(fresh adds,
//     capacity()), so OnCapacityExceeded never fires: the rate is bounded by
//     design.
//   - Not thread-safe unless FilterOptions::concurrent (then one lock: Add
//     writes many cells).
//
// Example:
//   absl::StatusOr<sieve::StableBloomFilter> f = sieve::StableBloomFilter::Create(
//       {.kind = sieve::FilterKind::kStable, .fp_rate = 0.01,
//        .memory_bytes = 1 << 20});
//   bool fresh = f->Add("http://a/");  // true; false while it is remembered
#ifndef SIEVE_FILTER_STABLE_BLOOM_FILTER_H_
#define SIEVE_FILTER_STABLE_BLOOM_FILTER_H_

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "filter/bloom_math.h"
#include "filter/filter.h"
#include "filter/internal/image_format.h"
#include "filter/internal/word_array.h"
#include "filter/key_hash.h"

namespace sieve {

class StableBloomFilter {
 public:
  static constexpr FilterKind kKind = FilterKind::kStable;

  // Sized by BloomMath::OptimalStableParams from options.memory_bytes (0: the
  // memory of a classic filter of options.capacity keys at options.fp_rate)
  // and options.fp_rate, the rate at the stable point. InvalidArgument on bad
  // sizes.
  [[nodiscard]] static absl::StatusOr<StableBloomFilter> Create(
      const FilterOptions& options);
  // Exactly `params` (cells rounded up to whole words). InvalidArgument when
  // d is outside [1, 8], K is 0 or >= m, or P outside [0, m].
  [[nodiscard]] static absl::StatusOr<StableBloomFilter> CreateWithParams(
      const StableParams& params, const FilterOptions& options = {});

  StableBloomFilter(StableBloomFilter&&) = default;
  StableBloomFilter& operator=(StableBloomFilter&&) = default;

  // Reports whether `key` was (probably) absent -- one of its cells was 0 --
  // then decrements P cells and sets the key's K cells to Max. Cost: one hash,
  // K cell writes, P cell decrements (word-wise).
  bool Add(std::string_view key) { return AddHash(HashKey(key, seed_)); }
  // True when all K cells of `key` are nonzero. Cost: one hash, up to K reads.
  bool MayContain(std::string_view key) const {
    return MayContainHash(HashKey(key, seed_));
  }
  bool AddHash(const KeyHash& hash);
  bool MayContainHash(const KeyHash& hash) const;
  // One at a time in order (the decrements of one Add change the next answer).
  // REQUIRES: equal sizes.
  void AddMany(std::span<const std::string_view> keys, std::span<bool> fresh);
  void MayContainMany(std::span<const std::string_view> keys,
                      std::span<bool> out) const;

  // min(fresh adds, capacity()): about the keys it holds.
  double EstimatedCount() const;
  // (nonzero cells / m)^K at the current cells.
  double EstimatedFalsePositiveRate() const;
  // The rate the paper's formula predicts after `inserts` keys from empty
  // (BloomMath::StableFalsePositiveRate).
  double FormulaFalsePositiveRate(uint64_t inserts) const;
  // Nonzero cells over m.
  double FillRatio() const;
  uint64_t MemoryBytes() const { return words_.bytes() + sizeof(*this); }
  // The half-life, in inserts (see above).
  uint64_t capacity() const { return capacity_; }
  // m: cells.
  uint64_t bit_count() const { return params_.cells; }
  // K.
  uint32_t hash_count() const { return params_.hashes; }
  const StableParams& params() const { return params_; }
  double fp_rate() const { return fp_rate_; }
  uint64_t seed() const { return seed_; }
  // Adds so far, and adds that were fresh.
  uint64_t inserted_count() const { return inserts_; }
  uint64_t fresh_count() const { return fresh_; }
  // Value of cell `index` in [0, m). For tests and diagnostics.
  uint32_t CellAt(uint64_t index) const;

  // Never fires (see above); kept for the Filter interface.
  void OnCapacityExceeded(CapacityCallback) {}

  // The saved form: an image of kind kStable (filter/internal/image_format.h)
  // whose payload is d, P, the generator's state and the fresh count, then
  // the cell words.
  std::string Serialize() const;
  // Serialize()'s bytes to `sink` in pieces; the bits are not copied.
  void SerializeTo(filter_internal::ByteSink sink) const;
  [[nodiscard]] absl::Status SaveToFile(const std::string& path) const;
  [[nodiscard]] static absl::StatusOr<StableBloomFilter> Deserialize(
      std::string_view bytes, const LoadOptions& options = {});
  [[nodiscard]] static absl::StatusOr<StableBloomFilter> LoadFromFile(
      const std::string& path, const LoadOptions& options = {});
  static absl::StatusOr<StableBloomFilter> FromSource(
      const filter_internal::ImageSource& source);

 private:
  StableBloomFilter() = default;
  bool AddHashLocked(const KeyHash& hash);
  bool MayContainHashLocked(const KeyHash& hash) const;
  void DecrementRun(uint64_t first, uint64_t count);
  uint64_t NextRandom();
  void WriteImage(filter_internal::ByteSink sink) const;

  StableParams params_;
  uint32_t cells_per_word_ = 0;
  uint64_t cell_mask_ = 0;  // Max
  uint64_t low_bits_ = 0;   // bit 0 of every cell of a word
  uint64_t capacity_ = 0;
  double fp_rate_ = 0;
  uint64_t seed_ = 0;
  uint64_t rng_ = 0;  // splitmix64 state
  uint64_t inserts_ = 0;
  uint64_t fresh_ = 0;
  uint64_t nonzero_ = 0;  // cells that are not 0
  bool concurrent_ = false;
  filter_internal::WordArray words_;
  // Used when concurrent_ (std::shared_mutex: see scalable_bloom_filter.h).
  std::unique_ptr<std::shared_mutex> mu_ =
      std::make_unique<std::shared_mutex>();
};

}  // namespace sieve

#endif  // SIEVE_FILTER_STABLE_BLOOM_FILTER_H_
