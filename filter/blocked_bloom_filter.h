// filter/blocked_bloom_filter.h: a blocked Bloom filter (Putze, Sanders &
// Singler 2007): the array is cut into 512-bit blocks (one 64-byte cache line)
// and all k probes of a key fall in the block its hash picks, so Add and
// MayContain touch one cache line: the filter to use when it is far larger than
// the CPU cache (10^8 keys and up).
//
// What it gives up: keys spread unevenly over blocks, so for the same bits per
// key its false-positive rate is higher than the classic filter's. It is
// therefore sized from its own formula (BloomMath::BlockedFalsePositiveRate):
// ask for p and you get p, for a few more bits:
//   p = 1 %:   9.90 bits/key, k = 6 (classic 9.59; RocksDB's design 9.9)
//   p = 0.1 %: 15.49 bits/key, k = 9 (classic 14.38)
// Measured rates and speed: bench/filter, README (filter section).
//
// Surprises first: as BloomFilter (false positives, thread-safety only with
// FilterOptions::concurrent, move-only). The shared calls are documented in
// filter/internal/bit_filter_base.h.
//
// Example:
//   auto f = sieve::BlockedBloomFilter::ForCapacity(100'000'000, 0.01);
//   std::vector<std::string_view> keys = ...;
//   std::unique_ptr<bool[]> seen(new bool[keys.size()]);
//   // Hash, prefetch, probe: misses overlap, ~1 miss latency per 16 keys.
//   f.MayContainMany(keys, std::span<bool>(seen.get(), keys.size()));
#ifndef SIEVE_FILTER_BLOCKED_BLOOM_FILTER_H_
#define SIEVE_FILTER_BLOCKED_BLOOM_FILTER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "filter/filter.h"
#include "filter/internal/bit_filter_base.h"
#include "filter/key_hash.h"

namespace sieve {

namespace filter_internal {
class FileStage;
}  // namespace filter_internal

class BlockedBloomFilter
    : public filter_internal::BitFilterBase<BlockedBloomFilter> {
 public:
  static constexpr FilterKind kKind = FilterKind::kBlocked;
  static constexpr uint32_t kSlotBits = 1;
  static constexpr uint32_t kBlockBits = 512;
  static constexpr uint64_t kSlotGranularity = kBlockBits;

  // A filter for `capacity` keys at `fp_rate`
  // (BloomMath::OptimalBlockedParams). Aborts with a message on capacity 0,
  // fp_rate outside (0, 1), or a size the machine cannot address.
  static BlockedBloomFilter ForCapacity(uint64_t capacity, double fp_rate);
  // The same from options (options.kind is ignored); returns an error instead
  // of aborting.
  [[nodiscard]] static absl::StatusOr<BlockedBloomFilter> Create(
      const FilterOptions& options);
  // Exactly `bit_count` bits (rounded up to whole 512-bit blocks) and
  // `hash_count` probes.
  [[nodiscard]] static absl::StatusOr<BlockedBloomFilter> CreateWithSize(
      uint64_t bit_count, uint32_t hash_count,
      const FilterOptions& options = {});

  // Add / MayContain from a precomputed HashKey(key, seed()). Cost: one cache
  // line.
  bool AddHash(const KeyHash& hash);
  bool MayContainHash(const KeyHash& hash) const;
  // Prefetches the one cache line `hash` maps to.
  void PrefetchHash(const KeyHash& hash, bool for_write) const;

  // BlockedFalsePositiveRate at EstimatedCount() keys.
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
  friend class filter_internal::BitFilterBase<BlockedBloomFilter>;
  friend class filter_internal::FileStage;  // reads a stage back into RAM
  explicit BlockedBloomFilter(filter_internal::BitFilterCore core)
      : BitFilterBase(std::move(core)) {}
};

[[nodiscard]] absl::StatusOr<double> EstimateUnionCount(
    const BlockedBloomFilter& a, const BlockedBloomFilter& b);
[[nodiscard]] absl::StatusOr<double> EstimateIntersectionCount(
    const BlockedBloomFilter& a, const BlockedBloomFilter& b);

}  // namespace sieve

#endif  // SIEVE_FILTER_BLOCKED_BLOOM_FILTER_H_
