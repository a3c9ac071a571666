// filter/counting_bloom_filter.h: a counting Bloom filter (Fan, Cao, Almeida &
// Broder, "Summary Cache", 2000): each of the m slots is a 4-bit counter
// instead of a bit, so keys can be removed. Four times the memory of
// BloomFilter for the same m; sized by the same formula.
//
// Surprises first:
//   - Counters saturate at 15 and a saturated counter is never decremented (it
//     may hold more keys than it can count), so Remove never causes a false
//     negative for a key still in the filter. At the designed load a counter
//     exceeds 15 with probability ~1e-15 per counter (Fan et al.).
//   - Remove of a key never added can cause false negatives (it decrements
//     other keys' counters); Remove refuses a key MayContain rejects, but not a
//     false positive.
//   - Thread-safety only with FilterOptions::concurrent (compare-and-swap per
//     counter word); removing a key while another thread adds that same key is
//     a race on its counters.
//   - The shared calls are documented in filter/internal/bit_filter_base.h.
//     UnionWith is the saturating sum of counters (the filter of both key
//     multisets); IntersectWith the minimum.
//
// Example:
//   auto f = sieve::CountingBloomFilter::ForCapacity(100'000, 0.01);
//   f.Add("http://a/");
//   f.Remove("http://a/");                   // true: it was (probably) there
//   bool maybe = f.MayContain("http://a/");  // false (but for collisions)
#ifndef SIEVE_FILTER_COUNTING_BLOOM_FILTER_H_
#define SIEVE_FILTER_COUNTING_BLOOM_FILTER_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "filter/filter.h"
#include "filter/internal/bit_filter_base.h"
#include "filter/key_hash.h"

namespace sieve {

class CountingBloomFilter
    : public filter_internal::BitFilterBase<CountingBloomFilter> {
 public:
  static constexpr FilterKind kKind = FilterKind::kCounting;
  static constexpr uint32_t kSlotBits = 4;
  static constexpr uint64_t kSlotGranularity = 16;  // counters per 64-bit word
  static constexpr uint32_t kMaxCounter = 15;

  // `capacity` keys at `fp_rate` (BloomMath::OptimalParams; m counters of 4
  // bits). Aborts with a message on invalid arguments.
  static CountingBloomFilter ForCapacity(uint64_t capacity, double fp_rate);
  // The same from options (options.kind is ignored); returns an error instead
  // of aborting.
  [[nodiscard]] static absl::StatusOr<CountingBloomFilter> Create(
      const FilterOptions& options);
  // Exactly `counter_count` counters (rounded up to a multiple of 16) and
  // `hash_count` hashes.
  [[nodiscard]] static absl::StatusOr<CountingBloomFilter> CreateWithSize(
      uint64_t counter_count, uint32_t hash_count,
      const FilterOptions& options = {});

  // Removes `key`: decrements its k counters, except saturated ones (15).
  // Returns false and changes nothing when MayContain(key) is false. REQUIRES:
  // `key` was added (see above).
  bool Remove(std::string_view key) {
    return RemoveHash(HashKey(key, core_.seed()));
  }
  bool RemoveHash(const KeyHash& hash);

  // Add increments the key's k counters (saturating at 15); true when one of
  // them was 0.
  bool AddHash(const KeyHash& hash);
  bool MayContainHash(const KeyHash& hash) const;
  void PrefetchHash(const KeyHash& hash, bool for_write) const;
  // Value of counter `index` in [0, bit_count()). For tests and diagnostics.
  uint32_t CounterAt(uint64_t index) const;

  // FillRatio()^k, FillRatio being the fraction of nonzero counters.
  double EstimatedFalsePositiveRate() const;

  static void UnionWords(uint64_t* into, const uint64_t* from, uint64_t count);
  static void IntersectWords(uint64_t* into, const uint64_t* from,
                             uint64_t count);
  static uint64_t CountSetSlots(const uint64_t* words, uint64_t count);
  static uint64_t CountSetSlotsOfUnion(const uint64_t* a, const uint64_t* b,
                                       uint64_t count);

 private:
  friend class filter_internal::BitFilterBase<CountingBloomFilter>;
  explicit CountingBloomFilter(filter_internal::BitFilterCore core)
      : BitFilterBase(std::move(core)) {}
};

// As for BloomFilter, counting nonzero counters.
[[nodiscard]] absl::StatusOr<double> EstimateUnionCount(
    const CountingBloomFilter& a, const CountingBloomFilter& b);
[[nodiscard]] absl::StatusOr<double> EstimateIntersectionCount(
    const CountingBloomFilter& a, const CountingBloomFilter& b);

}  // namespace sieve

#endif  // SIEVE_FILTER_COUNTING_BLOOM_FILTER_H_
