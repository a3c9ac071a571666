// filter/generational_bloom_filter.h: a sliding-window seen-set of fixed
// memory: G age-partitioned generations, each a BlockedBloomFilter. Keys go
// into the newest generation; when it has taken its share of keys (or grown
// older than FilterOptions::generation_seconds) the oldest generation is
// cleared and becomes the newest. A key is present when any generation holds
// it. The stable filter's (filter/stable_bloom_filter.h) alternative with a
// sharp edge: a key is remembered for certain until (G - 1) x c later keys
// and forgotten for certain after G x c, where the stable filter forgets
// gradually.
//
// Surprises first:
//   - It has false negatives, by design: a key is forgotten once its
//     generation is cleared, unless it was added again meanwhile (a repeated
//     key is copied into the newest generation, so what is seen often stays).
//   - The false-positive rate is that of G filters together: 1 - prod(1 -
//     p_i); each generation is sized for 1 - (1 - fp_rate)^(1/G) at c keys,
//     so the whole stays at fp_rate when all are full.
//   - Rotation by time is checked on Add (no thread): an idle filter keeps
//     its generations until the next Add, which then rotates once per elapsed
//     period, up to G times.
//   - Not thread-safe unless FilterOptions::concurrent (then one lock).
//
// Example:
//   absl::StatusOr<sieve::GenerationalBloomFilter> f =
//       sieve::GenerationalBloomFilter::Create(
//           {.kind = sieve::FilterKind::kGenerational, .fp_rate = 0.01,
//            .memory_bytes = 1 << 20, .generations = 4});
//   f->Add("http://a/");  // true; false until its generation is cleared
#ifndef SIEVE_FILTER_GENERATIONAL_BLOOM_FILTER_H_
#define SIEVE_FILTER_GENERATIONAL_BLOOM_FILTER_H_

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "filter/blocked_bloom_filter.h"
#include "filter/filter.h"
#include "filter/internal/image_format.h"
#include "filter/key_hash.h"

namespace sieve {

class GenerationalBloomFilter {
 public:
  static constexpr FilterKind kKind = FilterKind::kGenerational;
  static constexpr uint32_t kMaxGenerations = 64;

  // options.generations filters sharing options.memory_bytes (0: the memory
  // of a classic filter of options.capacity keys at options.fp_rate), each
  // for c keys at its share of options.fp_rate. InvalidArgument on bad
  // sizes or generations outside [2, kMaxGenerations].
  [[nodiscard]] static absl::StatusOr<GenerationalBloomFilter> Create(
      const FilterOptions& options);

  GenerationalBloomFilter(GenerationalBloomFilter&&) = default;
  GenerationalBloomFilter& operator=(GenerationalBloomFilter&&) = default;

  // True when no generation (probably) held `key`. Adds it to the newest
  // generation unless it is there already, then rotates if the newest is
  // full or too old. Cost: one hash, a probe (one cache line) per generation.
  bool Add(std::string_view key) { return AddHash(HashKey(key, seed_)); }
  // True when some generation (probably) holds `key`.
  bool MayContain(std::string_view key) const {
    return MayContainHash(HashKey(key, seed_));
  }
  bool AddHash(const KeyHash& hash);
  bool MayContainHash(const KeyHash& hash) const;
  // One at a time in order (a rotation changes later answers). REQUIRES:
  // equal sizes.
  void AddMany(std::span<const std::string_view> keys, std::span<bool> fresh);
  void MayContainMany(std::span<const std::string_view> keys,
                      std::span<bool> out) const;

  // Keys the generations hold now (their add counts summed).
  double EstimatedCount() const;
  // 1 - prod(1 - each generation's rate at its fill).
  double EstimatedFalsePositiveRate() const;
  // The rate the formula predicts after `keys` distinct adds from empty: the
  // generations full and the newest partly, as rotation leaves them.
  double FormulaFalsePositiveRate(uint64_t keys) const;
  // Set bits over all bits.
  double FillRatio() const;
  uint64_t MemoryBytes() const;
  // G x c: the most keys the generations hold at once.
  uint64_t capacity() const { return generation_capacity_ * generations(); }
  // c: keys per generation before it rotates.
  uint64_t generation_capacity() const { return generation_capacity_; }
  uint32_t generations() const {
    return static_cast<uint32_t>(generations_.size());
  }
  uint64_t bit_count() const;
  uint32_t hash_count() const;
  double fp_rate() const { return fp_rate_; }
  uint64_t seed() const { return seed_; }
  // Rotations so far (generations cleared).
  uint64_t rotations() const;

  // Clears the oldest generation and makes it the newest, now.
  void Rotate();

  // Never fires: EstimatedCount() cannot pass capacity().
  void OnCapacityExceeded(CapacityCallback) {}

  // The saved form: an image of kind kGenerational whose payload holds the
  // rotation state and each generation's image, oldest first.
  std::string Serialize() const;
  // Serialize()'s bytes to `sink` in pieces; the bits are not copied.
  void SerializeTo(filter_internal::ByteSink sink) const;
  [[nodiscard]] absl::Status SaveToFile(const std::string& path) const;
  [[nodiscard]] static absl::StatusOr<GenerationalBloomFilter> Deserialize(
      std::string_view bytes, const LoadOptions& options = {});
  [[nodiscard]] static absl::StatusOr<GenerationalBloomFilter> LoadFromFile(
      const std::string& path, const LoadOptions& options = {});
  static absl::StatusOr<GenerationalBloomFilter> FromSource(
      const filter_internal::ImageSource& source);

 private:
  struct Generation {
    BlockedBloomFilter filter;
    uint64_t added;  // keys set into it
  };
  GenerationalBloomFilter() = default;
  bool AddHashLocked(const KeyHash& hash);
  bool MayContainHashLocked(const KeyHash& hash) const;
  void RotateLocked(int64_t now_ms);
  uint64_t PayloadBytes() const;
  void WriteImage(filter_internal::ByteSink sink) const;
  Generation& newest() { return generations_[newest_]; }

  uint64_t generation_capacity_ = 0;
  double generation_seconds_ = 0;
  double fp_rate_ = 0;
  uint64_t seed_ = 0;
  bool concurrent_ = false;
  uint32_t newest_ = 0;
  int64_t newest_started_ms_ = 0;  // Unix time the newest generation opened
  uint64_t rotations_ = 0;
  std::vector<Generation> generations_;
  // Used when concurrent_ (std::shared_mutex: see scalable_bloom_filter.h).
  std::unique_ptr<std::shared_mutex> mu_ =
      std::make_unique<std::shared_mutex>();
};

}  // namespace sieve

#endif  // SIEVE_FILTER_GENERATIONAL_BLOOM_FILTER_H_
