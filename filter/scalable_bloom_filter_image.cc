// The scalable filter's saved form: an image of kind kScalable whose payload
// is a stage table (stage count, tightening ratio) followed by each stage's
// fresh-insert count and image: a classic filter's, or a blocked filter's for a
// stage of a filter with a RAM budget (FilterOptions::disk_stages).
#include <cstring>

#include "absl/strings/str_cat.h"
#include "filter/durable_file.h"
#include "filter/internal/batch.h"
#include "filter/internal/bit_filter_core.h"
#include "filter/internal/file_io.h"
#include "filter/internal/image_format.h"
#include "filter/internal/lock_guards.h"
#include "filter/internal/own_image.h"
#include "filter/scalable_bloom_filter.h"

namespace sieve {

using filter_internal::ImageSource;
using filter_internal::ReaderGuard;

namespace {

// Payload prefix: stage count and r; each stage then carries its fresh-insert
// count and image.
constexpr uint64_t kPrefixBytes = 16;
constexpr uint64_t kStagePrefixBytes = 8;

}  // namespace

// A stage is a classic filter's image (kept in RAM) or, for a stage of a
// filter with a RAM budget, a blocked filter's: in RAM without a budget, and
// the newest when it fits the budget (it goes on filling); the others are
// written back to files under `dir` (FromSource brings back to RAM those the
// budget still has room for). The first stage is always in RAM.
absl::StatusOr<ScalableBloomFilter::StageBits> ScalableBloomFilter::ReadStage(
    filter_internal::OwnPayload& in, const DiskStages& disk_stages, bool first,
    bool last, uint64_t ram_bytes, uint64_t* inserted) {
  constexpr std::string_view kCutShort = "stage table cut short";
  if (!first &&
      in.NextPartKind() == static_cast<uint8_t>(FilterKind::kBlocked)) {
    absl::StatusOr<BlockedBloomFilter> blocked =
        in.NextPart<BlockedBloomFilter>(inserted, kCutShort);
    if (!blocked.ok()) return blocked.status();
    const uint64_t budget = disk_stages.ram_budget_bytes;
    if (budget == 0 || (last && ram_bytes + blocked->MemoryBytes() <= budget))
      return StageBits(*std::move(blocked));
    absl::StatusOr<filter_internal::FileStage> stage =
        filter_internal::FileStage::CopyOf(*blocked, disk_stages.dir);
    if (!stage.ok()) return stage.status();
    return StageBits(*std::move(stage));
  }
  absl::StatusOr<BloomFilter> stage =
      in.NextPart<BloomFilter>(inserted, kCutShort);
  if (!stage.ok()) return stage.status();
  return StageBits(*std::move(stage));
}

uint64_t ScalableBloomFilter::PayloadBytes() const {
  uint64_t bytes = kPrefixBytes;
  for (const Stage& stage : stages_)
    bytes += kStagePrefixBytes +
             stage.With([](const auto& b) { return b.ImageBytes(); });
  return bytes;
}

void ScalableBloomFilter::WriteImage(filter_internal::ByteSink sink) const {
  filter_internal::ImageWriter writer(
      sink, filter_internal::ImageHeader{
                .kind = kKind,
                .hash_count = stages_.front().With(
                    [](const auto& b) { return b.hash_count(); }),
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
    stage.With([&](const auto& b) {
      b.WriteImage([&](std::string_view part) { writer.Append(part); });
    });
  }
  writer.Finish();
}

void ScalableBloomFilter::SerializeTo(filter_internal::ByteSink sink) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  WriteImage(sink);
}

std::string ScalableBloomFilter::Serialize() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return filter_internal::ImageString(
      PayloadBytes(),
      [&](filter_internal::ByteSink sink) { WriteImage(sink); });
}

absl::Status ScalableBloomFilter::SaveToFile(const std::string& path) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return WriteFileAtomically(
      path, [&](filter_internal::ByteSink sink) { WriteImage(sink); });
}

absl::StatusOr<ScalableBloomFilter> ScalableBloomFilter::FromSource(
    const ImageSource& source) {
  absl::StatusOr<filter_internal::OwnPayload> in =
      filter_internal::OwnPayload::Open(source, kKind, kPrefixBytes,
                                        "no stage table");
  if (!in.ok()) return in.status();
  const filter_internal::ImageHeader& h = in->header();
  const uint64_t stage_count = in->Field<uint64_t>(0);
  const double ratio = in->Field<double>(8);
  if (stage_count == 0 || stage_count > kMaxStages)
    return in->Corrupt("bad stage count");
  if (ratio != kTighteningRatio)
    return in->Corrupt("unsupported tightening ratio");
  if (absl::Status s = BloomMath::ValidateSizing(h.capacity, h.fp_rate);
      !s.ok()) {
    return in->Corrupt(std::string(s.message()));
  }
  ScalableBloomFilter filter;
  filter.capacity_ = h.capacity;
  filter.fp_rate_ = h.fp_rate;
  filter.seed_ = h.seed;
  filter.concurrent_ = source.concurrent;
  filter.disk_stages_ = source.disk_stages;
  for (uint64_t i = 0; i < stage_count; ++i) {
    uint64_t inserted = 0;
    absl::StatusOr<StageBits> bits =
        ReadStage(*in, filter.disk_stages_, i == 0, i + 1 == stage_count,
                  filter.RamBytesLocked(), &inserted);
    if (!bits.ok()) return bits.status();
    const uint64_t seed =
        std::visit([](const auto& b) { return b.seed(); }, *bits);
    if (seed != h.seed) return in->Corrupt("stage seed differs");
    // Each stage's own capacity: n0·2^i, or less past the RAM budget.
    const uint64_t capacity =
        std::visit([](const auto& b) { return b.capacity(); }, *bits);
    filter.stages_.push_back(Stage{
        .bits = *std::move(bits), .capacity = capacity, .inserted = inserted});
    filter.inserted_ += inserted;
  }
  if (!in->rest().empty()) return in->Corrupt("bytes after the last stage");
  // The stages that were in RAM with the newest (the oldest blocked ones:
  // room is made newest first) come back to RAM while the budget has room.
  for (Stage& stage : filter.stages_) {
    const auto* file = std::get_if<filter_internal::FileStage>(&stage.bits);
    if (file == nullptr || filter.RamBytesLocked() + file->DiskBytes() >
                               filter.disk_stages_.ram_budget_bytes) {
      continue;
    }
    absl::StatusOr<BlockedBloomFilter> ram = file->ReadIntoRam();
    if (!ram.ok()) return ram.status();
    stage.bits = *std::move(ram);
  }
  if (filter.inserted_ != h.count) return in->Corrupt("insert counts disagree");
  return filter;
}

absl::StatusOr<ScalableBloomFilter> ScalableBloomFilter::Deserialize(
    std::string_view bytes, const LoadOptions& options) {
  return filter_internal::DeserializeOwnImage<ScalableBloomFilter>(bytes,
                                                                   options);
}

absl::StatusOr<ScalableBloomFilter> ScalableBloomFilter::LoadFromFile(
    const std::string& path, const LoadOptions& options) {
  return filter_internal::LoadOwnImage<ScalableBloomFilter>(path, options);
}

}  // namespace sieve
