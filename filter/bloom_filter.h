// filter/bloom_filter.h: the classic Bloom filter (Bloom 1970): one array of m
// bits, k probes per key anywhere in it. Sized by
// BloomMath::OptimalParams: 9.59 bits per key at 1 % false positives, 14.38 at
// 0.1 %. Each probe is a random memory access, so on a filter far larger than
// the CPU cache a key costs up to k cache misses; BlockedBloomFilter costs one.
//
// Surprises first:
//   - MayContain may answer true for a key never added (at about fp_rate once
//     `capacity` keys are in); it never answers false for a key that was added.
//   - Not thread-safe unless created with `FilterOptions::concurrent`: then
//     Add, MayContain and the batch calls may run from several threads at once
//     (atomic fetch-or on 64-bit words; no false negatives once the Adds have
//     returned; two threads adding the same new key at the same moment may both
//     be told it was fresh). Every other call still needs a single caller.
//   - Move-only. A filter loaded with LoadOptions::memory_map works on the
//     file's pages in place.
//
// Example:
//   sieve::BloomFilter f = sieve::BloomFilter::ForCapacity(1'000'000, 0.01);
//   bool fresh = f.Add("http://a/");         // true the first time only
//   bool maybe = f.MayContain("http://a/");  // true
//   absl::Status s = f.SaveToFile("/var/lib/sieve/seen.bloom");
//
// Calls shared with the other kinds (Add, MayContain, AddMany, MayContainMany,
// EstimatedCount, FillRatio, MemoryBytes, bit_count, hash_count, capacity,
// OnCapacityExceeded, Serialize, Deserialize, SaveToFile, LoadFromFile,
// UnionWith, IntersectWith) are documented in
// filter/internal/bit_filter_base.h.
#ifndef SIEVE_FILTER_BLOOM_FILTER_H_
#define SIEVE_FILTER_BLOOM_FILTER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "filter/filter.h"
#include "filter/internal/bit_filter_base.h"
#include "filter/key_hash.h"

namespace sieve {

class BloomFilter : public filter_internal::BitFilterBase<BloomFilter> {
 public:
  static constexpr FilterKind kKind = FilterKind::kClassic;
  static constexpr uint32_t kSlotBits = 1;
  static constexpr uint64_t kSlotGranularity = 64;

  // A filter for `capacity` keys at `fp_rate`. For trusted arguments: aborts
  // with a message on capacity 0, fp_rate outside (0, 1), or a size the machine
  // cannot address or allocate.
  static BloomFilter ForCapacity(uint64_t capacity, double fp_rate);
  // The same from options (options.kind is ignored: this class is the classic
  // kind); returns an error instead of aborting. For untrusted input such as a
  // config file.
  [[nodiscard]] static absl::StatusOr<BloomFilter> Create(
      const FilterOptions& options);
  // Exactly `bit_count` bits (rounded up to whole 64-bit words) and
  // `hash_count` hashes; options.capacity is the capacity reported and watched,
  // options.fp_rate only recorded.
  [[nodiscard]] static absl::StatusOr<BloomFilter> CreateWithSize(
      uint64_t bit_count, uint32_t hash_count,
      const FilterOptions& options = {});

  // Add / MayContain from a precomputed HashKey(key, seed()). Cost: k bit
  // probes, each a random cache line; MayContainHash stops at the first clear
  // bit.
  bool AddHash(const KeyHash& hash);
  bool MayContainHash(const KeyHash& hash) const;
  // Prefetches the k cache lines `hash` probes.
  void PrefetchHash(const KeyHash& hash, bool for_write) const;

  // False-positive rate at the current fill: FillRatio()^k.
  double EstimatedFalsePositiveRate() const;

  static void UnionWords(uint64_t* into, const uint64_t* from, uint64_t count) {
    filter_internal::OrWords(into, from, count);
  }
  static void IntersectWords(uint64_t* into, const uint64_t* from,
                             uint64_t count) {
    filter_internal::AndWords(into, from, count);
  }
  static uint64_t CountSetSlots(const uint64_t* words, uint64_t count) {
    return filter_internal::PopCount(words, count);
  }
  static uint64_t CountSetSlotsOfUnion(const uint64_t* a, const uint64_t* b,
                                       uint64_t count) {
    return filter_internal::PopCountOr(a, b, count);
  }

 private:
  friend class filter_internal::BitFilterBase<BloomFilter>;
  explicit BloomFilter(filter_internal::BitFilterCore core)
      : BitFilterBase(std::move(core)) {}
};

// Swamidass–Baldi estimates from the bits of A|B: n̂(A ∪ B) = −(m/k) ln(1 −
// X∪/m) and n̂(A ∩ B) = n̂(A) + n̂(B) − n̂(A ∪ B). FailedPrecondition unless a and
// b have the same m, k and seed. Cost: O(m), no allocation. Overloads for the
// other kinds sit in their headers.
[[nodiscard]] absl::StatusOr<double> EstimateUnionCount(const BloomFilter& a,
                                                        const BloomFilter& b);
[[nodiscard]] absl::StatusOr<double> EstimateIntersectionCount(
    const BloomFilter& a, const BloomFilter& b);

}  // namespace sieve

#endif  // SIEVE_FILTER_BLOOM_FILTER_H_
