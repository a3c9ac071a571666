// filter/internal/bit_filter_core.h: what the classic, blocked and counting
// filters share: the word array, the sizes, the set-bit (set-counter) count
// kept as bits are set, the capacity watch, and the saved image.
#ifndef SIEVE_FILTER_INTERNAL_BIT_FILTER_CORE_H_
#define SIEVE_FILTER_INTERNAL_BIT_FILTER_CORE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "filter/bloom_math.h"
#include "filter/filter.h"
#include "filter/internal/capacity_watch.h"
#include "filter/internal/image_format.h"
#include "filter/internal/word_array.h"

namespace sieve::filter_internal {

class BitFilterCore {
 public:
  BitFilterCore() = default;
  BitFilterCore(BitFilterCore&&) = default;
  BitFilterCore& operator=(BitFilterCore&&) = default;

  // `bit_count` slots (bits, or 4-bit counters when `slot_bits` is 4) and
  // `hash_count` probes.
  static absl::StatusOr<BitFilterCore> Create(FilterKind kind,
                                              uint64_t bit_count,
                                              uint32_t hash_count,
                                              uint32_t slot_bits,
                                              const FilterOptions& options);
  // From a decoded image of `kind`; borrows the payload when source.owner is
  // set and the payload is 8-byte aligned, else copies it. Checks the sizes are
  // consistent.
  // m must be a multiple of `granularity` (whole words, or whole blocks).
  static absl::StatusOr<BitFilterCore> FromImage(FilterKind kind,
                                                 uint32_t slot_bits,
                                                 uint64_t granularity,
                                                 const DecodedImage& image,
                                                 const ImageSource& source);

  uint64_t* words() { return words_.data(); }
  const uint64_t* words() const { return words_.data(); }
  uint64_t word_count() const { return words_.size(); }
  uint64_t bit_count() const { return bit_count_; }
  uint32_t hash_count() const { return hash_count_; }
  uint64_t capacity() const { return capacity_; }
  double fp_rate() const { return fp_rate_; }
  uint64_t seed() const { return seed_; }
  bool concurrent() const { return concurrent_; }
  uint64_t set_count() const { return LoadWord(set_count_, concurrent_); }
  uint64_t MemoryBytes() const { return words_.bytes() + sizeof(*this); }

  double EstimatedCount() const {
    return BloomMath::EstimateCount(bit_count_, hash_count_, set_count());
  }
  double FillRatio() const {
    return static_cast<double>(set_count()) / static_cast<double>(bit_count_);
  }

  // Records `newly_set` more set slots and reports a capacity crossing, if any.
  template <typename EstimateRate>
  void NoteSet(uint64_t newly_set, EstimateRate&& estimate_rate) {
    if (newly_set == 0) return;
    AddToCounter(set_count_, newly_set, concurrent_);
    watch_.Observe(
        set_count(), [&] { return EstimatedCount(); },
        [&](double count) {
          return CapacityEvent{.estimated_count = count,
                               .capacity = capacity_,
                               .estimated_fp_rate = estimate_rate()};
        });
  }
  void NoteUnset(uint64_t count) {
    AddToCounter(set_count_, -count, concurrent_);
  }
  // Sets the count after a bulk change (union, intersection).
  template <typename EstimateRate>
  void ResetSetCount(uint64_t count, EstimateRate&& estimate_rate) {
    set_count_ = 0;
    NoteSet(count, estimate_rate);
  }

  void InstallWatch(CapacityCallback callback);

  // FailedPrecondition naming the difference unless `other` has the same kind,
  // m, k and seed.
  absl::Status CheckCompatible(const BitFilterCore& other) const;

  uint64_t ImageBytes() const {
    return filter_internal::ImageBytes(words_.bytes());
  }
  void WriteImage(ByteSink sink) const;
  std::string Serialize() const;
  absl::Status SaveToFile(const std::string& path) const;

 private:
  FilterKind kind_ = FilterKind::kClassic;
  WordArray words_;
  uint64_t bit_count_ = 0;
  uint32_t hash_count_ = 0;
  uint32_t slot_bits_ = 1;
  uint64_t capacity_ = 0;
  double fp_rate_ = 0;
  uint64_t seed_ = 0;
  bool concurrent_ = false;
  uint64_t set_count_ = 0;
  CapacityWatch watch_;
};

// Reads a whole file for T::LoadFromFile.
absl::StatusOr<ImageSource> SourceFromFile(const std::string& path,
                                           const LoadOptions& options);
// Fails with aborting message for ForCapacity.
[[noreturn]] void DieOnBadSizing(std::string_view kind,
                                 const absl::Status& status);

}  // namespace sieve::filter_internal

#endif  // SIEVE_FILTER_INTERNAL_BIT_FILTER_CORE_H_
