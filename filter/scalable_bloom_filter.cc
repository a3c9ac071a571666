// ScalableBloomFilter: stages, adds, lookups, estimates, union and
// intersection. The saved form is in scalable_bloom_filter_image.cc.
#include "filter/scalable_bloom_filter.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "filter/internal/batch.h"
#include "filter/internal/bit_filter_core.h"
#include "filter/internal/lock_guards.h"

namespace sieve {

using filter_internal::ReaderGuard;
using filter_internal::WriterGuard;

ScalableBloomFilter ScalableBloomFilter::ForCapacity(uint64_t initial_capacity,
                                                     double fp_rate) {
  absl::StatusOr<ScalableBloomFilter> filter =
      Create(FilterOptions{.capacity = initial_capacity, .fp_rate = fp_rate});
  if (!filter.ok())
    filter_internal::DieOnBadSizing("ScalableBloomFilter", filter.status());
  return *std::move(filter);
}

absl::StatusOr<ScalableBloomFilter> ScalableBloomFilter::Create(
    const FilterOptions& options) {
  if (absl::Status s =
          BloomMath::ValidateSizing(options.capacity, options.fp_rate);
      !s.ok()) {
    return s;
  }
  ScalableBloomFilter filter;
  filter.capacity_ = options.capacity;
  filter.fp_rate_ = options.fp_rate;
  filter.seed_ = options.seed;
  filter.concurrent_ = options.concurrent;
  filter.disk_stages_ = options.disk_stages;
  if (absl::Status s = filter.OpenStage(); !s.ok()) return s;
  return filter;
}

absl::Status ScalableBloomFilter::OpenStage() {
  const size_t i = stages_.size();
  if (i >= kMaxStages) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "scalable filter reached its ", kMaxStages, "-stage limit"));
  }
  // Almeida et al. 2007, §4: stage i holds n0·s^i keys at p0·r^i, with p0 =
  // P·(1 − r) so the geometric series of the stages' rates sums to the target
  // P.
  const double stage_rate =
      fp_rate_ * (1 - kTighteningRatio) * std::pow(kTighteningRatio, i);
  const double stage_capacity =
      static_cast<double>(capacity_) * std::pow(kGrowthFactor, i);
  if (stage_capacity >= 0x1p63) {
    return absl::ResourceExhaustedError(
        "scalable filter stage capacity overflows");
  }
  const FilterOptions options{
      .kind = FilterKind::kClassic,
      .capacity = static_cast<uint64_t>(stage_capacity),
      .fp_rate = stage_rate,
      .concurrent = false,  // the filter's lock guards its stages
      .seed = seed_};
  // The first stage is always in RAM; with a budget the later ones are
  // blocked, so that each can go to a file.
  absl::StatusOr<StageBits> bits = disk_stages_.ram_budget_bytes > 0 && i > 0
                                       ? OpenStageWithBudget(options)
                                       : BloomFilter::Create(options);
  if (!bits.ok()) return bits.status();
  const uint64_t capacity =
      std::visit([](const auto& b) { return b.capacity(); }, *bits);
  stages_.push_back(
      Stage{.bits = *std::move(bits), .capacity = capacity, .inserted = 0});
  return absl::OkStatus();
}

absl::StatusOr<ScalableBloomFilter::StageBits>
ScalableBloomFilter::OpenStageWithBudget(FilterOptions options) {
  // A stage is filled in RAM and written to its file once, when the room is
  // needed, then only read (one 64-byte pread per probe): a random 64-byte
  // pwrite into a file costs 3.7-29 us on ext4 here, a pread ~0.7 us
  // (docs/benchmarks.md, "Stages filled in RAM and written once").
  options.kind = FilterKind::kBlocked;
  absl::StatusOr<BloomParams> params =
      BloomMath::OptimalBlockedParams(options.capacity, options.fp_rate);
  if (!params.ok()) return params.status();
  const uint64_t budget = disk_stages_.ram_budget_bytes;
  // What the stage takes beyond its bits (BlockedBloomFilter::MemoryBytes).
  constexpr uint64_t kOverhead = sizeof(BlockedBloomFilter);
  // Room for it: the stages in RAM go to files, the newest (largest) first.
  for (size_t j = stages_.size(); j-- > 1;) {
    if (RamBytesLocked() + kOverhead + params->bits / 8 <= budget) break;
    if (const auto* ram = std::get_if<BlockedBloomFilter>(&stages_[j].bits)) {
      absl::StatusOr<filter_internal::FileStage> sealed =
          filter_internal::FileStage::CopyOf(*ram, disk_stages_.dir);
      if (!sealed.ok()) return sealed.status();
      stages_[j].bits = *std::move(sealed);
    }
  }
  // Past the budget the stages stop doubling: this one holds what the room
  // left allows, and never fewer keys than an eighth of the first (so a budget
  // barely above the first stage does not make stages without end). Bits grow
  // linearly with the keys at one rate: scale down, then step past the
  // rounding to blocks.
  const uint64_t used = RamBytesLocked() + kOverhead;
  const uint64_t room = budget > used ? budget - used : 0;
  const uint64_t least = std::max<uint64_t>(1, capacity_ / 8);
  if (params->bits / 8 > room) {
    double capacity = static_cast<double>(options.capacity) *
                      static_cast<double>(room) /
                      static_cast<double>(params->bits / 8);
    for (;; capacity *= 0.99) {
      options.capacity =
          std::max<uint64_t>(least, static_cast<uint64_t>(capacity));
      params =
          BloomMath::OptimalBlockedParams(options.capacity, options.fp_rate);
      if (!params.ok()) return params.status();
      if (options.capacity == least || params->bits / 8 <= room) break;
    }
  }
  absl::StatusOr<BlockedBloomFilter> stage =
      BlockedBloomFilter::CreateWithSize(params->bits, params->hashes, options);
  if (!stage.ok()) return stage.status();
  return StageBits(*std::move(stage));
}

uint64_t ScalableBloomFilter::RamBytesLocked() const {
  uint64_t bytes = sizeof(*this);
  for (const Stage& stage : stages_)
    bytes += stage.With([](const auto& b) { return b.MemoryBytes(); });
  return bytes;
}

bool ScalableBloomFilter::InFirstStages(const KeyHash& hash,
                                        size_t count) const {
  // The stages in RAM first, newest first (it holds the most keys), then those
  // on disk: a key added early is found without a read.
  for (const bool on_disk : {false, true}) {
    for (size_t i = count; i-- > 0;) {
      if (stages_[i].on_disk() == on_disk && stages_[i].MayContainHash(hash)) {
        return true;
      }
    }
  }
  return false;
}

bool ScalableBloomFilter::MayContainHashLocked(const KeyHash& hash) const {
  return InFirstStages(hash, stages_.size());
}

bool ScalableBloomFilter::AddHashLocked(const KeyHash& hash) {
  // The older stages are probed; the newest's test-and-set answers for itself
  // (one probe of a stage on disk, not two).
  if (InFirstStages(hash, stages_.size() - 1)) return false;
  if (stages_.back().inserted >= stages_.back().capacity &&
      inserted_ >= retry_open_at_) {
    if (stages_.back().MayContainHash(hash)) return false;
    // At the stage limit, or when a stage cannot be opened (a stage on disk
    // whose directory takes no file), the newest stage keeps filling, its rate
    // rising past its share; a failed open is tried again after as many keys
    // as the newest stage was made for, not on every add.
    if (!OpenStage().ok()) retry_open_at_ = inserted_ + stages_.back().capacity;
  }
  Stage& newest = stages_.back();
  if (!newest.With([&](auto& b) { return b.AddHash(hash); })) return false;
  ++newest.inserted;
  ++inserted_;
  return true;
}

bool ScalableBloomFilter::AddHash(const KeyHash& hash) {
  bool fresh;
  uint64_t inserted;
  {
    WriterGuard lock(mu_.get(), concurrent_);
    fresh = AddHashLocked(hash);
    inserted = inserted_;
  }
  if (fresh) {
    ObserveCapacity(inserted);
  }
  return fresh;
}

bool ScalableBloomFilter::MayContainHash(const KeyHash& hash) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return MayContainHashLocked(hash);
}

void ScalableBloomFilter::AddMany(std::span<const std::string_view> keys,
                                  std::span<bool> fresh) {
  if (concurrent_) {
    filter_internal::RunBatched(
        keys, fresh, seed_,
        [](const KeyHash&) {},  // stages may change under a concurrent Add
        [this](const KeyHash& h) { return AddHash(h); });
    return;
  }
  // One writer: a key's lines are prefetched in every stage it will probe (the
  // older stages are read, the newest is written). A stage opened between a
  // key's prefetch and its probe only costs that key its head start.
  filter_internal::RunBatched(
      keys, fresh, seed_,
      [this](const KeyHash& h) {
        for (const Stage& stage : stages_) {
          stage.With([&](const auto& b) {
            b.PrefetchHash(h, &stage == &stages_.back());
          });
        }
      },
      [this](const KeyHash& h) { return AddHash(h); });
}

void ScalableBloomFilter::MayContainMany(std::span<const std::string_view> keys,
                                         std::span<bool> out) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  filter_internal::RunBatched(
      keys, out, seed_,
      [this](const KeyHash& h) {
        for (const Stage& stage : stages_) {
          stage.With(
              [&](const auto& b) { b.PrefetchHash(h, /*for_write=*/false); });
        }
      },
      [this](const KeyHash& h) { return MayContainHashLocked(h); });
}

double ScalableBloomFilter::EstimatedCountLocked() const {
  double total = 0;
  for (const Stage& stage : stages_)
    total += stage.With([](const auto& b) { return b.EstimatedCount(); });
  return total;
}

double ScalableBloomFilter::EstimatedFalsePositiveRateLocked() const {
  double all_negative =
      1;  // a key is a false positive unless every stage rejects it
  for (const Stage& stage : stages_) {
    all_negative *= 1 - stage.With([](const auto& b) {
      return b.EstimatedFalsePositiveRate();
    });
  }
  return 1 - all_negative;
}

double ScalableBloomFilter::EstimatedCount() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return EstimatedCountLocked();
}

double ScalableBloomFilter::EstimatedFalsePositiveRate() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return EstimatedFalsePositiveRateLocked();
}

double ScalableBloomFilter::FillRatio() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  uint64_t set = 0;
  uint64_t bits = 0;
  for (const Stage& stage : stages_) {
    set += stage.With([](const auto& b) { return b.set_bit_count(); });
    bits += stage.With([](const auto& b) { return b.bit_count(); });
  }
  return static_cast<double>(set) / static_cast<double>(bits);
}

uint64_t ScalableBloomFilter::MemoryBytes() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return RamBytesLocked();
}

uint64_t ScalableBloomFilter::DiskBytes() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  uint64_t bytes = 0;
  for (const Stage& stage : stages_) {
    if (const auto* file = std::get_if<filter_internal::FileStage>(&stage.bits))
      bytes += file->DiskBytes();
  }
  return bytes;
}

uint64_t ScalableBloomFilter::bit_count() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return BitCountLocked();
}

uint64_t ScalableBloomFilter::BitCountLocked() const {
  uint64_t bits = 0;
  for (const Stage& stage : stages_)
    bits += stage.With([](const auto& b) { return b.bit_count(); });
  return bits;
}

uint32_t ScalableBloomFilter::hash_count() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return stages_.front().With([](const auto& b) { return b.hash_count(); });
}

size_t ScalableBloomFilter::stage_count() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return stages_.size();
}

uint64_t ScalableBloomFilter::inserted_count() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return inserted_;
}

void ScalableBloomFilter::OnCapacityExceeded(CapacityCallback callback) {
  // The fill measure is the count of fresh inserts; the estimate can run ahead
  // of it by collisions only, so start computing it at 90 % of each threshold.
  watch_.Install(std::move(callback), capacity_, [](double count) -> uint64_t {
    const double measure = std::floor(0.9 * count);
    return measure >= 0x1p63 ? UINT64_MAX : static_cast<uint64_t>(measure);
  });
  ObserveCapacity(inserted_count());
}

void ScalableBloomFilter::ObserveCapacity(uint64_t inserted) {
  watch_.Observe(
      inserted, [this] { return EstimatedCount(); },
      [this](double count) {
        return CapacityEvent{.estimated_count = count,
                             .capacity = capacity_,
                             .estimated_fp_rate = EstimatedFalsePositiveRate()};
      });
}

absl::Status ScalableBloomFilter::CheckSameStages(
    const ScalableBloomFilter& other) const {
  if (stages_.size() != other.stages_.size()) {
    return absl::FailedPreconditionError(
        absl::StrCat("scalable filters differ: ", stages_.size(), " vs ",
                     other.stages_.size(), " stages"));
  }
  for (size_t i = 0; i < stages_.size(); ++i) {
    const BloomFilter* mine = stages_[i].classic();
    const BloomFilter* theirs = other.stages_[i].classic();
    if (mine == nullptr || theirs == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("scalable filter stage ", i,
                       " is past the RAM budget (on disk or bound for it)"));
    }
    if (absl::Status s = mine->core().CheckCompatible(theirs->core());
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status ScalableBloomFilter::UnionWith(const ScalableBloomFilter& other) {
  if (absl::Status s = CheckSameStages(other); !s.ok()) return s;
  inserted_ = 0;
  for (size_t i = 0; i < stages_.size(); ++i) {
    auto& mine = std::get<BloomFilter>(stages_[i].bits);
    if (absl::Status s = mine.UnionWith(*other.stages_[i].classic()); !s.ok())
      return s;
    stages_[i].inserted =
        static_cast<uint64_t>(std::llround(mine.EstimatedCount()));
    inserted_ += stages_[i].inserted;
  }
  return absl::OkStatus();
}

absl::Status ScalableBloomFilter::IntersectWith(
    const ScalableBloomFilter& other) {
  if (absl::Status s = CheckSameStages(other); !s.ok()) return s;
  inserted_ = 0;
  for (size_t i = 0; i < stages_.size(); ++i) {
    auto& mine = std::get<BloomFilter>(stages_[i].bits);
    if (absl::Status s = mine.IntersectWith(*other.stages_[i].classic());
        !s.ok()) {
      return s;
    }
    stages_[i].inserted =
        static_cast<uint64_t>(std::llround(mine.EstimatedCount()));
    inserted_ += stages_[i].inserted;
  }
  return absl::OkStatus();
}

}  // namespace sieve
