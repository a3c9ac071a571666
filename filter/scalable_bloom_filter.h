// filter/scalable_bloom_filter.h: a scalable Bloom filter (Almeida, Baquero,
// Preguiça & Hutchison, "Scalable Bloom Filters", IPL 2007): a chain of classic
// filters. When the newest stage holds its capacity, a new one is opened,
// kGrowthFactor times larger and with its rate tightened by kTighteningRatio,
// so the compound false-positive rate stays under fp_rate however many keys
// arrive: stage i has capacity n0·2^i and rate p0·r^i with p0 = fp_rate·(1 −
// r), and 1 − Π(1 − p0·r^i) ≤ Σ p0·r^i = fp_rate.
//
// What it costs: a lookup probes every stage (MayContain is ~stage_count()
// times a classic one) and bits per key grow slowly with the number of stages.
// Use it when the key count is unknown; size a BloomFilter or
// BlockedBloomFilter when it is known.
//
// Surprises first:
//   - capacity() is the first stage's capacity; OnCapacityExceeded fires, as
//     for every kind, when EstimatedCount() passes capacity() and at each
//     doubling, even though the filter grows and its rate stays under fp_rate.
//     hash_count() is the first stage's k.
//   - With FilterOptions::concurrent, Add takes an exclusive lock and
//     MayContain a shared one (a new stage cannot be opened under lock-free
//     readers). Move-only.
//   - With FilterOptions::disk_stages, every stage after the first is a
//     blocked filter, filled in RAM. When a new stage needs the room, the
//     stages in RAM go, newest first, each to a file in one pass
//     (filter/filter.h, DiskStages), and are only read from then on: one
//     64-byte pread per probe, no write. Past the budget the stages stop
//     doubling (each holds what the room left holds, at least an eighth of
//     the first stage's keys), so a lookup of a new key costs one pread per
//     stage in a file: N keys take about N / (budget / bytes per key) of them.
//     UnionWith and IntersectWith refuse filters with stages other than
//     classic ones in RAM.
//
// Example:
//   auto f = sieve::ScalableBloomFilter::ForCapacity(1'000'000, 0.01);
//   for (const std::string& url : urls) f.Add(url);  // any number of them
//   // f.EstimatedFalsePositiveRate() stays under 1 %
//
//   // RAM bounded: the stages past 64 MiB go to files under /var/tmp/crawl.
//   auto g = *sieve::ScalableBloomFilter::Create(
//       {.capacity = 10'000'000, .fp_rate = 0.001,
//        .disk_stages = {.ram_budget_bytes = 64 << 20, .dir = "/var/tmp/crawl"}});
//   // past 10^7 URLs: g.MemoryBytes() stays under 64 MiB, g.DiskBytes() grows
#ifndef SIEVE_FILTER_SCALABLE_BLOOM_FILTER_H_
#define SIEVE_FILTER_SCALABLE_BLOOM_FILTER_H_

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "filter/blocked_bloom_filter.h"
#include "filter/bloom_filter.h"
#include "filter/filter.h"
#include "filter/internal/capacity_watch.h"
#include "filter/internal/file_stage.h"
#include "filter/key_hash.h"

namespace sieve {

namespace filter_internal {
class OwnPayload;
}  // namespace filter_internal

class ScalableBloomFilter {
 public:
  static constexpr FilterKind kKind = FilterKind::kScalable;
  // r: each stage's rate is r times the previous one (Almeida et al. advise
  // 0.8-0.9).
  static constexpr double kTighteningRatio = 0.85;
  // s: each stage holds twice the keys of the previous one.
  static constexpr uint64_t kGrowthFactor = 2;
  // Stages at most (2^40 times the first capacity: unreachable in practice).
  static constexpr uint32_t kMaxStages = 40;

  // First stage for `initial_capacity` keys; compound rate <= `fp_rate` at any
  // size. Aborts with a message on invalid arguments.
  static ScalableBloomFilter ForCapacity(uint64_t initial_capacity,
                                         double fp_rate);
  // The same from options (options.kind is ignored); returns an error instead
  // of aborting.
  [[nodiscard]] static absl::StatusOr<ScalableBloomFilter> Create(
      const FilterOptions& options);

  ScalableBloomFilter(ScalableBloomFilter&&) = default;
  ScalableBloomFilter& operator=(ScalableBloomFilter&&) = default;

  // Adds `key`; true when no stage (probably) held it. Opens a new stage when
  // the newest is full. Cost: one hash, a probe of every stage, k bits set in
  // the newest.
  bool Add(std::string_view key) { return AddHash(HashKey(key, seed_)); }
  // False: never added. True: probably added. Cost: one hash, up to k probes
  // per stage.
  bool MayContain(std::string_view key) const {
    return MayContainHash(HashKey(key, seed_));
  }
  bool AddHash(const KeyHash& hash);
  bool MayContainHash(const KeyHash& hash) const;
  // Batch forms (hash, prefetch in the newest stage, probe in order). REQUIRES:
  // equal sizes.
  void AddMany(std::span<const std::string_view> keys, std::span<bool> fresh);
  void MayContainMany(std::span<const std::string_view> keys,
                      std::span<bool> out) const;

  // Sum of the stages' Swamidass–Baldi estimates.
  double EstimatedCount() const;
  // 1 − Π(1 − stage rate at its current fill).
  double EstimatedFalsePositiveRate() const;
  // Set bits over all bits, all stages together.
  double FillRatio() const;
  // RAM, and disk (FilterOptions::disk_stages): bytes of the stages' files.
  uint64_t MemoryBytes() const;
  uint64_t DiskBytes() const;
  // Bits in all stages.
  uint64_t bit_count() const;
  uint32_t hash_count() const;
  uint64_t capacity() const { return capacity_; }
  double fp_rate() const { return fp_rate_; }
  uint64_t seed() const { return seed_; }
  bool concurrent() const { return concurrent_; }
  size_t stage_count() const;
  // Keys added that were fresh (Add returned true).
  uint64_t inserted_count() const;

  // As for the other kinds: once past capacity(), then at 2x, 4x, ... of
  // EstimatedCount().
  void OnCapacityExceeded(CapacityCallback callback);

  // The saved form: an image of kind kScalable whose payload holds the stages'
  // images.
  std::string Serialize() const;
  // Serialize()'s bytes to `sink` in pieces; the bits are not copied.
  void SerializeTo(filter_internal::ByteSink sink) const;
  [[nodiscard]] static absl::StatusOr<ScalableBloomFilter> Deserialize(
      std::string_view bytes, const LoadOptions& options = {});
  [[nodiscard]] absl::Status SaveToFile(const std::string& path) const;
  [[nodiscard]] static absl::StatusOr<ScalableBloomFilter> LoadFromFile(
      const std::string& path, const LoadOptions& options = {});
  static absl::StatusOr<ScalableBloomFilter> FromSource(
      const filter_internal::ImageSource& source);

  // Stage by stage OR / AND. FailedPrecondition unless both have the same
  // stages (sizes, k, seed). REQUIRES: no concurrent calls on either filter.
  [[nodiscard]] absl::Status UnionWith(const ScalableBloomFilter& other);
  [[nodiscard]] absl::Status IntersectWith(const ScalableBloomFilter& other);

 private:
  // A stage's bits: a classic filter in RAM; with a RAM budget
  // (FilterOptions::disk_stages) every stage after the first is a blocked one,
  // in RAM, then in a file once the room is needed.
  using StageBits =
      std::variant<BloomFilter, BlockedBloomFilter, filter_internal::FileStage>;
  struct Stage {
    StageBits bits;
    uint64_t capacity;
    uint64_t inserted;
    // The calls both kinds of bits answer alike.
    template <typename F>
    decltype(auto) With(F&& f) const {
      return std::visit(std::forward<F>(f), bits);
    }
    template <typename F>
    decltype(auto) With(F&& f) {
      return std::visit(std::forward<F>(f), bits);
    }
    bool MayContainHash(const KeyHash& hash) const {
      return With([&](const auto& b) { return b.MayContainHash(hash); });
    }
    const BloomFilter* classic() const {
      return std::get_if<BloomFilter>(&bits);
    }
    bool on_disk() const {
      return std::holds_alternative<filter_internal::FileStage>(bits);
    }
  };
  ScalableBloomFilter() = default;
  absl::Status OpenStage();
  // With FilterOptions::disk_stages: a blocked stage for what `options` asks,
  // or for what the room left in the budget holds once the stages in RAM that
  // must make room for it are written to files.
  absl::StatusOr<StageBits> OpenStageWithBudget(FilterOptions options);
  uint64_t RamBytesLocked() const;
  // One stage of a saved image; `last` and `ram_bytes` (the stages read
  // before it) decide where a blocked stage goes (a file, or RAM to go on
  // filling).
  static absl::StatusOr<StageBits> ReadStage(filter_internal::OwnPayload& in,
                                             const DiskStages& disk_stages,
                                             bool first, bool last,
                                             uint64_t ram_bytes,
                                             uint64_t* inserted);
  bool AddHashLocked(const KeyHash& hash);
  // Reports a capacity crossing (OnCapacityExceeded), if `inserted` makes one.
  void ObserveCapacity(uint64_t inserted);
  bool MayContainHashLocked(const KeyHash& hash) const;
  // Whether one of stages_[0, count) (probably) holds `hash`.
  bool InFirstStages(const KeyHash& hash, size_t count) const;
  double EstimatedCountLocked() const;
  double EstimatedFalsePositiveRateLocked() const;
  uint64_t PayloadBytes() const;
  uint64_t BitCountLocked() const;
  void WriteImage(filter_internal::ByteSink sink) const;
  absl::Status CheckSameStages(const ScalableBloomFilter& other) const;

  uint64_t capacity_ = 0;
  double fp_rate_ = 0;
  uint64_t seed_ = 0;
  bool concurrent_ = false;
  DiskStages disk_stages_;
  uint64_t inserted_ = 0;
  uint64_t retry_open_at_ = 0;  // After a stage failed to open.
  std::vector<Stage> stages_;
  filter_internal::CapacityWatch watch_;
  // Used when concurrent_. std::shared_mutex rather than absl::Mutex: the
  // Debian Abseil is built without TSan annotations, so TSan cannot see
  // absl::Mutex synchronise; pthread rwlocks it intercepts.
  std::unique_ptr<std::shared_mutex> mu_ =
      std::make_unique<std::shared_mutex>();
};

}  // namespace sieve

#endif  // SIEVE_FILTER_SCALABLE_BLOOM_FILTER_H_
