// filter/internal/bit_filter_base.h: the calls BloomFilter, BlockedBloomFilter
// and CountingBloomFilter share, written once (CRTP: no virtual calls,
// everything inlines).
//
// Derived provides:
//   static constexpr FilterKind kKind;
//   static constexpr uint32_t kSlotBits;  // 1 or 4
//   static constexpr uint64_t kSlotGranularity;  // m is a multiple of it
//   bool AddHash(const KeyHash&);
//   bool MayContainHash(const KeyHash&) const;
//   void PrefetchHash(const KeyHash&, bool for_write) const;
//   double EstimatedFalsePositiveRate() const;
//   static void UnionWords(uint64_t* into, const uint64_t* from,
//                          uint64_t count);
//   static void IntersectWords(uint64_t* into, const uint64_t* from,
//                              uint64_t count);
//   static uint64_t CountSetSlots(const uint64_t* words, uint64_t count);
//   static uint64_t CountSetSlotsOfUnion(const uint64_t* a, const uint64_t* b,
//                                        uint64_t count);
//   a private constructor from BitFilterCore, with BitFilterBase<Derived> as
//   a friend.
#ifndef SIEVE_FILTER_INTERNAL_BIT_FILTER_BASE_H_
#define SIEVE_FILTER_INTERNAL_BIT_FILTER_BASE_H_

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "filter/filter.h"
#include "filter/internal/batch.h"
#include "filter/internal/bit_filter_core.h"
#include "filter/key_hash.h"

namespace sieve::filter_internal {

template <typename Derived>
class BitFilterBase {
 public:
  BitFilterBase(BitFilterBase&&) = default;
  BitFilterBase& operator=(BitFilterBase&&) = default;

  // Adds `key`; true when it was (probably) absent: test-and-set in one pass.
  bool Add(std::string_view key) {
    return self().AddHash(HashKey(key, core_.seed()));
  }
  // False: `key` was never added. True: it probably was.
  bool MayContain(std::string_view key) const {
    return self().MayContainHash(HashKey(key, core_.seed()));
  }

  // Batch forms: hash a group of keys, prefetch their lines, then probe in
  // order, so the cache misses overlap. `fresh[i]` / `out[i]` are what Add /
  // MayContain would return, in order. REQUIRES: keys.size() == fresh.size()
  // (out.size()); aborts otherwise.
  void AddMany(std::span<const std::string_view> keys, std::span<bool> fresh) {
    RunBatched(
        keys, fresh, core_.seed(),
        [this](const KeyHash& h) {
          self().PrefetchHash(h, /*for_write=*/true);
        },
        [this](const KeyHash& h) { return self().AddHash(h); });
  }
  void MayContainMany(std::span<const std::string_view> keys,
                      std::span<bool> out) const {
    RunBatched(
        keys, out, core_.seed(),
        [this](const KeyHash& h) {
          self().PrefetchHash(h, /*for_write=*/false);
        },
        [this](const KeyHash& h) { return self().MayContainHash(h); });
  }

  // Swamidass–Baldi estimate of distinct keys added, from the count of set bits
  // (nonzero counters), which is kept up to date as they are set: O(1).
  double EstimatedCount() const { return core_.EstimatedCount(); }
  // Fraction of bits (counters) set.
  double FillRatio() const { return core_.FillRatio(); }
  // The bit array plus bookkeeping.
  uint64_t MemoryBytes() const { return core_.MemoryBytes(); }
  // m: bits (counters for the counting kind).
  uint64_t bit_count() const { return core_.bit_count(); }
  // k: probes per key.
  uint32_t hash_count() const { return core_.hash_count(); }
  uint64_t capacity() const { return core_.capacity(); }
  double fp_rate() const { return core_.fp_rate(); }
  uint64_t seed() const { return core_.seed(); }
  bool concurrent() const { return core_.concurrent(); }
  // Bits (nonzero counters) set.
  uint64_t set_bit_count() const { return core_.set_count(); }

  // Calls `callback` once when EstimatedCount() first exceeds capacity(), then
  // once at 2x, 4x, ... From the thread whose Add crossed the threshold,
  // outside any lock; it must not Add itself. Replaces an earlier callback.
  void OnCapacityExceeded(CapacityCallback callback) {
    core_.InstallWatch(std::move(callback));
  }

  // The saved form (filter/internal/image_format.h). Cost: O(m), one copy of
  // the bits.
  std::string Serialize() const { return core_.Serialize(); }
  // Serialize()'s bytes to `sink` in pieces; the bits are not copied.
  void SerializeTo(filter_internal::ByteSink sink) const {
    core_.WriteImage(sink);
  }
  // Writes the saved form to `path` (temporary file, fsync, rename); the bits
  // are not copied.
  [[nodiscard]] absl::Status SaveToFile(const std::string& path) const {
    return core_.SaveToFile(path);
  }
  // Reads Serialize()'s bytes (copies them). Errors name the problem:
  // truncated, bad magic, version, kind, checksum mismatch, inconsistent
  // header.
  [[nodiscard]] static absl::StatusOr<Derived> Deserialize(
      std::string_view bytes, const LoadOptions& options = {}) {
    return FromSource(ImageSource{.bytes = bytes,
                                  .owner = nullptr,
                                  .verify_checksum = options.verify_checksum,
                                  .concurrent = options.concurrent});
  }
  // Reads a file written by SaveToFile. With options.memory_map the bit array
  // is the file's private copy-on-write mapping: nothing is copied, pages load
  // as they are touched.
  [[nodiscard]] static absl::StatusOr<Derived> LoadFromFile(
      const std::string& path, const LoadOptions& options = {}) {
    absl::StatusOr<ImageSource> source = SourceFromFile(path, options);
    if (!source.ok()) return source.status();
    return FromSource(*source);
  }

  // Clears every bit (counter), as if new. Cost: O(m). REQUIRES: no
  // concurrent calls.
  void Clear() {
    std::fill_n(core_.words(), core_.word_count(), uint64_t{0});
    Recount();
  }

  // Bitwise OR (AND) of `other` into this filter; for the counting kind,
  // saturating sum (min) of counters. FailedPrecondition unless both have the
  // same m, k and seed. A union equals the filter built from both key sets, bit
  // for bit; an intersection can hold more bits than the filter of the common
  // keys. Cost: O(m). REQUIRES: no concurrent calls on either filter.
  [[nodiscard]] absl::Status UnionWith(const Derived& other) {
    if (absl::Status s = core_.CheckCompatible(other.core_); !s.ok()) return s;
    Derived::UnionWords(core_.words(), other.core_.words(), core_.word_count());
    Recount();
    return absl::OkStatus();
  }
  [[nodiscard]] absl::Status IntersectWith(const Derived& other) {
    if (absl::Status s = core_.CheckCompatible(other.core_); !s.ok()) return s;
    Derived::IntersectWords(core_.words(), other.core_.words(),
                            core_.word_count());
    Recount();
    return absl::OkStatus();
  }

  // Internal (DeserializeFilter, ScalableBloomFilter, estimates).
  static absl::StatusOr<Derived> FromImage(const ImageSource& source,
                                           uint64_t* consumed) {
    absl::StatusOr<DecodedImage> image =
        DecodeImage(source.bytes, source.verify_checksum);
    if (!image.ok()) return image.status();
    absl::StatusOr<BitFilterCore> core =
        BitFilterCore::FromImage(Derived::kKind, Derived::kSlotBits,
                                 Derived::kSlotGranularity, *image, source);
    if (!core.ok()) return core.status();
    *consumed = image->image_bytes;
    return Derived(*std::move(core));
  }
  static absl::StatusOr<Derived> FromSource(const ImageSource& source) {
    uint64_t consumed = 0;
    absl::StatusOr<Derived> filter = FromImage(source, &consumed);
    if (filter.ok() && consumed != source.bytes.size()) {
      return TrailingBytesError(source.bytes.size() - consumed);
    }
    return filter;
  }
  const BitFilterCore& core() const { return core_; }
  uint64_t ImageBytes() const { return core_.ImageBytes(); }
  void WriteImage(ByteSink sink) const { core_.WriteImage(sink); }

 protected:
  explicit BitFilterBase(BitFilterCore core) : core_(std::move(core)) {}
  ~BitFilterBase() = default;

  // Records `newly_set` slots that went from 0 to set by one Add.
  void NoteSet(uint64_t newly_set) {
    core_.NoteSet(newly_set,
                  [this] { return self().EstimatedFalsePositiveRate(); });
  }
  void Recount() {
    core_.ResetSetCount(
        Derived::CountSetSlots(core_.words(), core_.word_count()),
        [this] { return self().EstimatedFalsePositiveRate(); });
  }

  BitFilterCore core_;

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

// n̂(A ∪ B) from the slots set in A|B (Swamidass & Baldi 2007).
template <typename T>
absl::StatusOr<double> EstimateUnion(const T& a, const T& b) {
  if (absl::Status s = a.core().CheckCompatible(b.core()); !s.ok()) return s;
  const uint64_t union_set = T::CountSetSlotsOfUnion(
      a.core().words(), b.core().words(), a.core().word_count());
  return BloomMath::EstimateCount(a.bit_count(), a.hash_count(), union_set);
}

// n̂(A ∩ B) = n̂(A) + n̂(B) − n̂(A ∪ B), floored at 0.
template <typename T>
absl::StatusOr<double> EstimateIntersection(const T& a, const T& b) {
  absl::StatusOr<double> union_count = EstimateUnion(a, b);
  if (!union_count.ok()) return union_count.status();
  return std::max(0.0, a.EstimatedCount() + b.EstimatedCount() - *union_count);
}

}  // namespace sieve::filter_internal

#endif  // SIEVE_FILTER_INTERNAL_BIT_FILTER_BASE_H_
