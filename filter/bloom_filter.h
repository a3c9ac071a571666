// filter/bloom_filter.h: the classic Bloom filter (Bloom 1970): one array of m
// bits, k probes per key anywhere in it. Sized by
// BloomMath::OptimalParams: 9.59 bits per key at 1 % false positives, 14.38 at
// 0.1 %. Each probe is a random memory access, so on a filter much larger than
// the CPU cache a key costs up to k cache misses; BlockedBloomFilter costs one.
//
// Surprises first:
//   - MayContain may answer true for a key never added (at about fp_rate once
//   `capacity` keys are
//     in); it never answers false for a key that was added.
//   - Not thread-safe unless created with `FilterOptions::concurrent`: then
//   Add, MayContain and
//     the batch calls may run from several threads at once (atomic fetch-or on
//     64-bit words; no false negatives once the Adds have returned). Everything
//     else still needs one caller.
//   - Move-only. A filter loaded with LoadOptions::memory_map uses the file's
//   pages in place.
//
// Example:
//   sieve::BloomFilter f = sieve::BloomFilter::ForCapacity(1'000'000, 0.01);
//   bool fresh = f.Add("http://a/");          // true the first time, false
//   after bool maybe = f.MayContain("http://a/");   // true absl::Status s =
//   f.SaveToFile("/var/lib/sieve/seen.bloom");
//
// Measured (bench/filter, 10^6 keys): see /tmp/sieve/readme-filter.md.
#ifndef SIEVE_FILTER_BLOOM_FILTER_H_
#define SIEVE_FILTER_BLOOM_FILTER_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "filter/filter.h"
#include "filter/internal/bit_filter_core.h"
#include "filter/key_hash.h"

namespace sieve {

class BloomFilter {
 public:
  static constexpr FilterKind kKind = FilterKind::kClassic;

  // A filter for `capacity` keys at `fp_rate`. For trusted arguments: aborts
  // with a message on capacity 0, fp_rate outside (0, 1), or a size the machine
  // cannot address or allocate.
  static BloomFilter ForCapacity(uint64_t capacity, double fp_rate);
  // Same from options (kind is ignored: this class is the classic kind); errors
  // instead of abort.
  [[nodiscard]] static absl::StatusOr<BloomFilter> Create(
      const FilterOptions& options);
  // A filter of exactly `bit_count` bits (rounded up to a multiple of 64) and
  // `hash_count` hashes; options.capacity is the capacity reported and watched,
  // options.fp_rate is ignored.
  [[nodiscard]] static absl::StatusOr<BloomFilter> CreateWithSize(
      uint64_t bit_count, uint32_t hash_count,
      const FilterOptions& options = {});

  BloomFilter(BloomFilter&&) = default;
  BloomFilter& operator=(BloomFilter&&) = default;

  // Adds `key`; true when it was (probably) absent: test-and-set in one pass.
  // Cost: one XXH3-128 and k bit probes (k random cache lines).
  bool Add(std::string_view key) { return AddHash(HashKey(key, core_.seed())); }
  // False: `key` was never added. True: it probably was. Cost: as Add, stops at
  // the first 0 bit.
  bool MayContain(std::string_view key) const {
    return MayContainHash(HashKey(key, core_.seed()));
  }
  // The same from a precomputed HashKey(key, seed()).
  bool AddHash(const KeyHash& hash);
  bool MayContainHash(const KeyHash& hash) const;

  // Batch forms: hash a group of keys, prefetch all their probe lines, then
  // probe, so the misses overlap. `fresh[i]` / `out[i]` are what Add /
  // MayContain would return, in order. REQUIRES: keys.size() == fresh.size()
  // (out.size()).
  void AddMany(std::span<const std::string_view> keys, std::span<bool> fresh);
  void MayContainMany(std::span<const std::string_view> keys,
                      std::span<bool> out) const;

  // Swamidass–Baldi estimate of distinct keys added, from the set-bit count
  // (kept as bits are set, so O(1)).
  double EstimatedCount() const { return core_.EstimatedCount(); }
  // False-positive rate at the current fill: FillRatio()^k.
  double EstimatedFalsePositiveRate() const;
  double FillRatio() const { return core_.FillRatio(); }
  uint64_t MemoryBytes() const { return core_.MemoryBytes(); }
  uint64_t bit_count() const { return core_.bit_count(); }
  uint32_t hash_count() const { return core_.hash_count(); }
  uint64_t capacity() const { return core_.capacity(); }
  double fp_rate() const { return core_.fp_rate(); }
  uint64_t seed() const { return core_.seed(); }
  bool concurrent() const { return core_.concurrent(); }
  // Bits currently set.
  uint64_t set_bit_count() const { return core_.set_count(); }

  // Calls `callback` once when EstimatedCount() first exceeds capacity(), then
  // at 2x, 4x, ... From the thread whose Add crossed the threshold. REQUIRES:
  // the callback does not Add.
  void OnCapacityExceeded(CapacityCallback callback);

  // The saved form (filter/internal/image_format.h). Cost: O(m), one copy of
  // the bits.
  std::string Serialize() const;
  // Reads Serialize()'s bytes (copies them). Errors name the problem
  // (truncated, bad magic, version, kind, checksum, inconsistent sizes).
  [[nodiscard]] static absl::StatusOr<BloomFilter> Deserialize(
      std::string_view bytes, const LoadOptions& options = {});
  // Serialize() to `path` via a temporary file, fsync and rename; the bits are
  // not copied.
  [[nodiscard]] absl::Status SaveToFile(const std::string& path) const;
  // Reads a file written by SaveToFile. With options.memory_map the bit array
  // is the file's private (copy-on-write) mapping: nothing is copied and pages
  // load as they are touched.
  [[nodiscard]] static absl::StatusOr<BloomFilter> LoadFromFile(
      const std::string& path, const LoadOptions& options = {});

  // Bitwise OR / AND of `other` into this filter. FailedPrecondition unless
  // both have the same m, k and seed. The union equals the filter built from
  // both key sets, bit for bit; the intersection may hold more bits than the
  // filter of the common keys. Cost: O(m) (recounts set bits). REQUIRES: no
  // concurrent calls on either filter.
  [[nodiscard]] absl::Status UnionWith(const BloomFilter& other);
  [[nodiscard]] absl::Status IntersectWith(const BloomFilter& other);

  // Internal (DeserializeFilter, ScalableBloomFilter): reads one image from
  // `source`; FromSource requires it to be the whole of source.bytes, FromImage
  // reports the bytes used.
  static absl::StatusOr<BloomFilter> FromSource(
      const filter_internal::ImageSource& source);
  static absl::StatusOr<BloomFilter> FromImage(
      const filter_internal::ImageSource& source, uint64_t* consumed);
  const filter_internal::BitFilterCore& core() const { return core_; }

 private:
  explicit BloomFilter(filter_internal::BitFilterCore core)
      : core_(std::move(core)) {}

  filter_internal::BitFilterCore core_;
};

// Swamidass–Baldi estimates of |A ∪ B| and |A ∩ B| = n(A) + n(B) − n(A ∪ B)
// from the bits of A|B. FailedPrecondition unless a and b have the same m, k
// and seed. Cost: O(m), no allocation.
[[nodiscard]] absl::StatusOr<double> EstimateUnionCount(const BloomFilter& a,
                                                        const BloomFilter& b);
[[nodiscard]] absl::StatusOr<double> EstimateIntersectionCount(
    const BloomFilter& a, const BloomFilter& b);

}  // namespace sieve

#endif  // SIEVE_FILTER_BLOOM_FILTER_H_
