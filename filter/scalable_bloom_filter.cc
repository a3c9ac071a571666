#include "filter/scalable_bloom_filter.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "filter/internal/batch.h"
#include "filter/internal/bit_filter_core.h"
#include "filter/internal/file_io.h"
#include "filter/internal/image_format.h"

namespace sieve {

using filter_internal::ImageSource;

namespace {

// Lock guards that do nothing unless the filter is concurrent.
class WriterGuard {
 public:
  WriterGuard(std::shared_mutex* mu, bool enabled)
      : mu_(enabled ? mu : nullptr) {
    if (mu_ != nullptr) mu_->lock();
  }
  ~WriterGuard() {
    if (mu_ != nullptr) mu_->unlock();
  }

 private:
  std::shared_mutex* mu_;
};

class ReaderGuard {
 public:
  ReaderGuard(std::shared_mutex* mu, bool enabled)
      : mu_(enabled ? mu : nullptr) {
    if (mu_ != nullptr) mu_->lock_shared();
  }
  ~ReaderGuard() {
    if (mu_ != nullptr) mu_->unlock_shared();
  }

 private:
  std::shared_mutex* mu_;
};

// Payload prefix: stage count and r; each stage then carries its fresh-insert
// count and image.
constexpr uint64_t kPrefixBytes = 16;
constexpr uint64_t kStagePrefixBytes = 8;

}  // namespace

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
  absl::StatusOr<BloomFilter> stage = BloomFilter::Create(
      FilterOptions{.kind = FilterKind::kClassic,
                    .capacity = static_cast<uint64_t>(stage_capacity),
                    .fp_rate = stage_rate,
                    .concurrent = false,  // the filter's lock guards its stages
                    .seed = seed_});
  if (!stage.ok()) return stage.status();
  stages_.push_back(Stage{.filter = *std::move(stage),
                          .capacity = static_cast<uint64_t>(stage_capacity),
                          .inserted = 0});
  return absl::OkStatus();
}

bool ScalableBloomFilter::MayContainHashLocked(const KeyHash& hash) const {
  for (auto it = stages_.rbegin(); it != stages_.rend();
       ++it) {  // newest holds the most keys
    if (it->filter.MayContainHash(hash)) return true;
  }
  return false;
}

bool ScalableBloomFilter::AddHashLocked(const KeyHash& hash) {
  if (MayContainHashLocked(hash)) return false;
  if (stages_.back().inserted >= stages_.back().capacity) {
    // At the stage limit the newest stage keeps filling (its rate then rises
    // past its share).
    OpenStage().IgnoreError();
  }
  Stage& newest = stages_.back();
  newest.filter.AddHash(hash);
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
    watch_.Observe(inserted, [this] {
      return CapacityEvent{.estimated_count = EstimatedCount(),
                           .capacity = capacity_,
                           .estimated_fp_rate = EstimatedFalsePositiveRate()};
    });
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
        for (const Stage& stage : stages_)
          stage.filter.PrefetchHash(h, &stage == &stages_.back());
      },
      [this](const KeyHash& h) { return AddHash(h); });
}

void ScalableBloomFilter::MayContainMany(std::span<const std::string_view> keys,
                                         std::span<bool> out) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  filter_internal::RunBatched(
      keys, out, seed_,
      [this](const KeyHash& h) {
        for (const Stage& stage : stages_)
          stage.filter.PrefetchHash(h, /*for_write=*/false);
      },
      [this](const KeyHash& h) { return MayContainHashLocked(h); });
}

double ScalableBloomFilter::EstimatedCountLocked() const {
  double total = 0;
  for (const Stage& stage : stages_) total += stage.filter.EstimatedCount();
  return total;
}

double ScalableBloomFilter::EstimatedFalsePositiveRateLocked() const {
  double all_negative =
      1;  // a key is a false positive unless every stage rejects it
  for (const Stage& stage : stages_) {
    all_negative *= 1 - stage.filter.EstimatedFalsePositiveRate();
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
    set += stage.filter.set_bit_count();
    bits += stage.filter.bit_count();
  }
  return static_cast<double>(set) / static_cast<double>(bits);
}

uint64_t ScalableBloomFilter::MemoryBytes() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  uint64_t bytes = sizeof(*this);
  for (const Stage& stage : stages_) bytes += stage.filter.MemoryBytes();
  return bytes;
}

uint64_t ScalableBloomFilter::bit_count() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return BitCountLocked();
}

uint64_t ScalableBloomFilter::BitCountLocked() const {
  uint64_t bits = 0;
  for (const Stage& stage : stages_) bits += stage.filter.bit_count();
  return bits;
}

uint32_t ScalableBloomFilter::hash_count() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return stages_.front().filter.hash_count();
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
  watch_.Observe(inserted_count(), [this] {
    return CapacityEvent{.estimated_count = EstimatedCount(),
                         .capacity = capacity_,
                         .estimated_fp_rate = EstimatedFalsePositiveRate()};
  });
}

uint64_t ScalableBloomFilter::PayloadBytes() const {
  uint64_t bytes = kPrefixBytes;
  for (const Stage& stage : stages_)
    bytes += kStagePrefixBytes + stage.filter.ImageBytes();
  return bytes;
}

void ScalableBloomFilter::WriteImage(filter_internal::ByteSink sink) const {
  filter_internal::ImageWriter writer(
      sink, filter_internal::ImageHeader{
                .kind = kKind,
                .hash_count = stages_.front().filter.hash_count(),
                .bit_count = BitCountLocked(),
                .seed = seed_,
                .capacity = capacity_,
                .fp_rate = fp_rate_,
                .count = inserted_,
                .payload_bytes = PayloadBytes()});
  char prefix[kPrefixBytes];
  const uint64_t stage_count = stages_.size();
  const double ratio = kTighteningRatio;
  std::memcpy(prefix, &stage_count, 8);
  std::memcpy(prefix + 8, &ratio, 8);
  writer.Append(std::string_view(prefix, sizeof(prefix)));
  for (const Stage& stage : stages_) {
    writer.Append(
        std::string_view(reinterpret_cast<const char*>(&stage.inserted), 8));
    stage.filter.WriteImage(
        [&](std::string_view part) { writer.Append(part); });
  }
  writer.Finish();
}

std::string ScalableBloomFilter::Serialize() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  std::string bytes;
  bytes.reserve(filter_internal::ImageBytes(PayloadBytes()));
  WriteImage([&](std::string_view part) { bytes.append(part); });
  return bytes;
}

absl::Status ScalableBloomFilter::SaveToFile(const std::string& path) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return filter_internal::WriteFileAtomically(
      path, [&](filter_internal::ByteSink sink) { WriteImage(sink); });
}

absl::StatusOr<ScalableBloomFilter> ScalableBloomFilter::FromSource(
    const ImageSource& source) {
  absl::StatusOr<filter_internal::DecodedImage> image =
      filter_internal::DecodeImage(source.bytes, source.verify_checksum);
  if (!image.ok()) return image.status();
  const filter_internal::ImageHeader& h = image->header;
  if (h.kind != kKind) {
    return absl::InvalidArgumentError(absl::StrCat(
        "filter image holds a ", std::string(FilterKindName(h.kind)),
        " filter, not a scalable one"));
  }
  if (image->image_bytes != source.bytes.size()) {
    return filter_internal::TrailingBytesError(source.bytes.size() -
                                               image->image_bytes);
  }
  auto corrupt = [](std::string_view what) {
    return absl::DataLossError(
        absl::StrCat("scalable filter image corrupt: ", std::string(what)));
  };
  std::string_view payload = image->payload;
  if (payload.size() < kPrefixBytes) return corrupt("no stage table");
  uint64_t stage_count;
  double ratio;
  std::memcpy(&stage_count, payload.data(), 8);
  std::memcpy(&ratio, payload.data() + 8, 8);
  if (stage_count == 0 || stage_count > kMaxStages)
    return corrupt("bad stage count");
  if (ratio != kTighteningRatio) return corrupt("unsupported tightening ratio");
  if (absl::Status s = BloomMath::ValidateSizing(h.capacity, h.fp_rate);
      !s.ok()) {
    return corrupt(std::string(s.message()));
  }
  payload.remove_prefix(kPrefixBytes);
  ScalableBloomFilter filter;
  filter.capacity_ = h.capacity;
  filter.fp_rate_ = h.fp_rate;
  filter.seed_ = h.seed;
  filter.concurrent_ = source.concurrent;
  for (uint64_t i = 0; i < stage_count; ++i) {
    if (payload.size() < kStagePrefixBytes)
      return corrupt("stage table cut short");
    uint64_t inserted;
    std::memcpy(&inserted, payload.data(), 8);
    payload.remove_prefix(kStagePrefixBytes);
    // The outer checksum covered the stages' bytes already.
    ImageSource stage_source{.bytes = payload,
                             .owner = source.owner,
                             .verify_checksum = false,
                             .concurrent = false};
    uint64_t consumed = 0;
    absl::StatusOr<BloomFilter> stage =
        BloomFilter::FromImage(stage_source, &consumed);
    if (!stage.ok()) return stage.status();
    if (stage->seed() != h.seed) return corrupt("stage seed differs");
    const double capacity =
        static_cast<double>(h.capacity) * std::pow(kGrowthFactor, i);
    filter.stages_.push_back(Stage{.filter = *std::move(stage),
                                   .capacity = static_cast<uint64_t>(capacity),
                                   .inserted = inserted});
    filter.inserted_ += inserted;
    payload.remove_prefix(consumed);
  }
  if (!payload.empty()) return corrupt("bytes after the last stage");
  if (filter.inserted_ != h.count) return corrupt("insert counts disagree");
  return filter;
}

absl::StatusOr<ScalableBloomFilter> ScalableBloomFilter::Deserialize(
    std::string_view bytes, const LoadOptions& options) {
  return FromSource(ImageSource{.bytes = bytes,
                                .owner = nullptr,
                                .verify_checksum = options.verify_checksum,
                                .concurrent = options.concurrent});
}

absl::StatusOr<ScalableBloomFilter> ScalableBloomFilter::LoadFromFile(
    const std::string& path, const LoadOptions& options) {
  absl::StatusOr<ImageSource> source =
      filter_internal::SourceFromFile(path, options);
  if (!source.ok()) return source.status();
  return FromSource(*source);
}

absl::Status ScalableBloomFilter::CheckSameStages(
    const ScalableBloomFilter& other) const {
  if (stages_.size() != other.stages_.size()) {
    return absl::FailedPreconditionError(
        absl::StrCat("scalable filters differ: ", stages_.size(), " vs ",
                     other.stages_.size(), " stages"));
  }
  for (size_t i = 0; i < stages_.size(); ++i) {
    if (absl::Status s = stages_[i].filter.core().CheckCompatible(
            other.stages_[i].filter.core());
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
    if (absl::Status s = stages_[i].filter.UnionWith(other.stages_[i].filter);
        !s.ok())
      return s;
    stages_[i].inserted =
        static_cast<uint64_t>(std::llround(stages_[i].filter.EstimatedCount()));
    inserted_ += stages_[i].inserted;
  }
  return absl::OkStatus();
}

absl::Status ScalableBloomFilter::IntersectWith(
    const ScalableBloomFilter& other) {
  if (absl::Status s = CheckSameStages(other); !s.ok()) return s;
  inserted_ = 0;
  for (size_t i = 0; i < stages_.size(); ++i) {
    if (absl::Status s =
            stages_[i].filter.IntersectWith(other.stages_[i].filter);
        !s.ok()) {
      return s;
    }
    stages_[i].inserted =
        static_cast<uint64_t>(std::llround(stages_[i].filter.EstimatedCount()));
    inserted_ += stages_[i].inserted;
  }
  return absl::OkStatus();
}

}  // namespace sieve
