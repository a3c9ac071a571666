#include "filter/generational_bloom_filter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "filter/bloom_math.h"
#include "filter/durable_file.h"
#include "filter/internal/batch.h"
#include "filter/internal/bit_filter_core.h"
#include "filter/internal/file_io.h"
#include "filter/internal/lock_guards.h"
#include "filter/internal/own_image.h"

namespace sieve {

using filter_internal::ImageSource;
using filter_internal::ReaderGuard;
using filter_internal::WriterGuard;

namespace {

// Payload prefix: G, c, generation_seconds (f64), newest index (u32),
// reserved (u32), newest's start (Unix ms, i64), rotations; then each
// generation's add count (u64) and image, oldest slot first.
constexpr uint64_t kPrefixBytes = 48;
constexpr uint64_t kGenerationPrefixBytes = 8;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

absl::StatusOr<GenerationalBloomFilter> GenerationalBloomFilter::Create(
    const FilterOptions& options) {
  const uint32_t g = options.generations;
  if (g < 2 || g > kMaxGenerations) {
    return absl::InvalidArgumentError(
        absl::StrCat("generational filter needs 2 to ", kMaxGenerations,
                     " generations, got ", g));
  }
  if (!(options.generation_seconds >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "generation_seconds must be >= 0, got ", options.generation_seconds));
  }
  uint64_t memory_bits = options.memory_bytes * 8;
  if (memory_bits == 0) {
    absl::StatusOr<BloomParams> classic =
        BloomMath::OptimalParams(options.capacity, options.fp_rate);
    if (!classic.ok()) return classic.status();
    memory_bits = classic->bits;
  }
  const uint64_t block = BloomMath::kBlockBits;
  const uint64_t bits_each = memory_bits / g / block * block;
  // Each generation's rate so that all G full give fp_rate: 1 - (1 - p)^(1/G).
  const double rate_each = -std::expm1(std::log1p(-options.fp_rate) / g);
  absl::StatusOr<BloomParams> shape =
      BloomMath::OptimalBlockedParams(1'000'000, rate_each);
  if (!shape.ok()) return shape.status();
  const double bits_per_key = static_cast<double>(shape->bits) / 1e6;
  const uint64_t per_generation =
      static_cast<uint64_t>(static_cast<double>(bits_each) / bits_per_key);
  if (bits_each == 0 || per_generation == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("generational filter of ", memory_bits, " bits in ", g,
                     " generations holds no key at fp_rate ", options.fp_rate));
  }
  GenerationalBloomFilter filter;
  filter.generation_capacity_ = per_generation;
  filter.generation_seconds_ = options.generation_seconds;
  filter.fp_rate_ = options.fp_rate;
  filter.seed_ = options.seed;
  filter.concurrent_ = options.concurrent;
  filter.newest_started_ms_ = NowMs();
  for (uint32_t i = 0; i < g; ++i) {
    absl::StatusOr<BlockedBloomFilter> f = BlockedBloomFilter::CreateWithSize(
        bits_each, shape->hashes, FilterOptions{.seed = options.seed});
    if (!f.ok()) return f.status();
    filter.generations_.push_back({.filter = *std::move(f), .added = 0});
  }
  return filter;
}

bool GenerationalBloomFilter::AddHash(const KeyHash& hash) {
  WriterGuard lock(mu_.get(), concurrent_);
  return AddHashLocked(hash);
}

bool GenerationalBloomFilter::AddHashLocked(const KeyHash& hash) {
  if (generation_seconds_ > 0) {
    const int64_t now = NowMs();
    const double periods = static_cast<double>(now - newest_started_ms_) /
                           (generation_seconds_ * 1000);
    const uint64_t due = static_cast<uint64_t>(
        std::min(std::max(periods, 0.0), static_cast<double>(generations())));
    for (uint64_t i = 0; i < due; ++i) RotateLocked(now);
  }
  const bool fresh = !MayContainHashLocked(hash);
  if (newest().filter.AddHash(hash)) {
    if (++newest().added >= generation_capacity_) RotateLocked(NowMs());
  }
  return fresh;
}

bool GenerationalBloomFilter::MayContainHash(const KeyHash& hash) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return MayContainHashLocked(hash);
}

bool GenerationalBloomFilter::MayContainHashLocked(const KeyHash& hash) const {
  for (const Generation& g : generations_) {
    if (g.filter.MayContainHash(hash)) return true;
  }
  return false;
}

void GenerationalBloomFilter::AddMany(std::span<const std::string_view> keys,
                                      std::span<bool> fresh) {
  WriterGuard lock(mu_.get(), concurrent_);
  filter_internal::RunBatched(
      keys, fresh, seed_, [](const KeyHash&) {},
      [this](const KeyHash& h) { return AddHashLocked(h); });
}

void GenerationalBloomFilter::MayContainMany(
    std::span<const std::string_view> keys, std::span<bool> out) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  filter_internal::RunBatched(
      keys, out, seed_, [](const KeyHash&) {},
      [this](const KeyHash& h) { return MayContainHashLocked(h); });
}

void GenerationalBloomFilter::Rotate() {
  WriterGuard lock(mu_.get(), concurrent_);
  RotateLocked(NowMs());
}

void GenerationalBloomFilter::RotateLocked(int64_t now_ms) {
  newest_ = (newest_ + 1) % generations();  // the oldest slot
  newest().filter.Clear();
  newest().added = 0;
  newest_started_ms_ = now_ms;
  ++rotations_;
}

uint64_t GenerationalBloomFilter::rotations() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return rotations_;
}

double GenerationalBloomFilter::EstimatedCount() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  uint64_t added = 0;
  for (const Generation& g : generations_) added += g.added;
  return static_cast<double>(added);
}

double GenerationalBloomFilter::EstimatedFalsePositiveRate() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  double pass = 1;
  for (const Generation& g : generations_)
    pass *= 1 - g.filter.EstimatedFalsePositiveRate();
  return 1 - pass;
}

double GenerationalBloomFilter::FormulaFalsePositiveRate(uint64_t keys) const {
  const BlockedBloomFilter& any = generations_.front().filter;
  auto rate = [&](double n) {
    return BloomMath::BlockedFalsePositiveRate(any.bit_count(),
                                               any.hash_count(), n);
  };
  const uint64_t rotated = keys / generation_capacity_;
  const uint64_t full = std::min<uint64_t>(rotated, generations() - 1);
  const double in_newest =
      static_cast<double>(keys - rotated * generation_capacity_);
  const double c = static_cast<double>(generation_capacity_);
  return 1 - std::pow(1 - rate(c), static_cast<double>(full)) *
                 (1 - rate(in_newest));
}

double GenerationalBloomFilter::FillRatio() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  double set = 0;
  for (const Generation& g : generations_)
    set += static_cast<double>(g.filter.set_bit_count());
  return set / static_cast<double>(generations_.size() *
                                   generations_.front().filter.bit_count());
}

uint64_t GenerationalBloomFilter::MemoryBytes() const {
  uint64_t bytes = sizeof(*this);
  for (const Generation& g : generations_) bytes += g.filter.MemoryBytes();
  return bytes;
}

uint64_t GenerationalBloomFilter::bit_count() const {
  return generations_.size() * generations_.front().filter.bit_count();
}

uint32_t GenerationalBloomFilter::hash_count() const {
  return generations_.front().filter.hash_count();
}

uint64_t GenerationalBloomFilter::PayloadBytes() const {
  uint64_t bytes = kPrefixBytes;
  for (const Generation& g : generations_)
    bytes += kGenerationPrefixBytes + g.filter.ImageBytes();
  return bytes;
}

void GenerationalBloomFilter::WriteImage(filter_internal::ByteSink sink) const {
  uint64_t added = 0;
  for (const Generation& g : generations_) added += g.added;
  filter_internal::ImageWriter writer(
      sink, filter_internal::ImageHeader{.kind = kKind,
                                         .hash_count = hash_count(),
                                         .bit_count = bit_count(),
                                         .seed = seed_,
                                         .capacity = capacity(),
                                         .fp_rate = fp_rate_,
                                         .count = added,
                                         .payload_bytes = PayloadBytes()});
  char prefix[kPrefixBytes] = {};
  const uint64_t g = generations_.size();
  std::memcpy(prefix, &g, 8);
  std::memcpy(prefix + 8, &generation_capacity_, 8);
  std::memcpy(prefix + 16, &generation_seconds_, 8);
  std::memcpy(prefix + 24, &newest_, 4);
  std::memcpy(prefix + 32, &newest_started_ms_, 8);
  std::memcpy(prefix + 40, &rotations_, 8);
  writer.Append(std::string_view(prefix, sizeof(prefix)));
  for (const Generation& gen : generations_) {
    writer.Append(
        std::string_view(reinterpret_cast<const char*>(&gen.added), 8));
    gen.filter.WriteImage([&](std::string_view part) { writer.Append(part); });
  }
  writer.Finish();
}

void GenerationalBloomFilter::SerializeTo(
    filter_internal::ByteSink sink) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  WriteImage(sink);
}

std::string GenerationalBloomFilter::Serialize() const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return filter_internal::ImageString(
      PayloadBytes(),
      [&](filter_internal::ByteSink sink) { WriteImage(sink); });
}

absl::Status GenerationalBloomFilter::SaveToFile(
    const std::string& path) const {
  ReaderGuard lock(mu_.get(), concurrent_);
  return WriteFileAtomically(
      path, [&](filter_internal::ByteSink sink) { WriteImage(sink); });
}

absl::StatusOr<GenerationalBloomFilter> GenerationalBloomFilter::FromSource(
    const ImageSource& source) {
  absl::StatusOr<filter_internal::OwnPayload> in =
      filter_internal::OwnPayload::Open(source, kKind, kPrefixBytes,
                                        "no rotation state");
  if (!in.ok()) return in.status();
  const filter_internal::ImageHeader& h = in->header();
  GenerationalBloomFilter filter;
  const uint64_t g = in->Field<uint64_t>(0);
  filter.generation_capacity_ = in->Field<uint64_t>(8);
  filter.generation_seconds_ = in->Field<double>(16);
  filter.newest_ = in->Field<uint32_t>(24);
  filter.newest_started_ms_ = in->Field<int64_t>(32);
  filter.rotations_ = in->Field<uint64_t>(40);
  if (g < 2 || g > kMaxGenerations) return in->Corrupt("bad generation count");
  if (filter.newest_ >= g) return in->Corrupt("newest generation out of range");
  if (filter.generation_capacity_ == 0)
    return in->Corrupt("generation holds 0");
  if (!(filter.generation_seconds_ >= 0)) return in->Corrupt("bad period");
  if (!(h.fp_rate > 0 && h.fp_rate < 1)) return in->Corrupt("bad fp_rate");
  filter.fp_rate_ = h.fp_rate;
  filter.seed_ = h.seed;
  filter.concurrent_ = source.concurrent;
  uint64_t added = 0;
  for (uint64_t i = 0; i < g; ++i) {
    uint64_t count = 0;
    absl::StatusOr<BlockedBloomFilter> f =
        in->NextPart<BlockedBloomFilter>(&count, "generations cut short");
    if (!f.ok()) return f.status();
    if (f->seed() != h.seed) return in->Corrupt("generation seed differs");
    if (!filter.generations_.empty() &&
        (f->bit_count() != filter.generations_[0].filter.bit_count() ||
         f->hash_count() != filter.generations_[0].filter.hash_count())) {
      return in->Corrupt("generations differ in size");
    }
    if (count > filter.generation_capacity_)
      return in->Corrupt("generation holds more than its share");
    added += count;
    filter.generations_.push_back({.filter = *std::move(f), .added = count});
  }
  if (!in->rest().empty())
    return in->Corrupt("bytes after the last generation");
  if (added != h.count) return in->Corrupt("add counts disagree");
  if (h.capacity != filter.capacity() || h.bit_count != filter.bit_count())
    return in->Corrupt("header sizes disagree with the generations");
  return filter;
}

absl::StatusOr<GenerationalBloomFilter> GenerationalBloomFilter::Deserialize(
    std::string_view bytes, const LoadOptions& options) {
  return filter_internal::DeserializeOwnImage<GenerationalBloomFilter>(bytes,
                                                                       options);
}

absl::StatusOr<GenerationalBloomFilter> GenerationalBloomFilter::LoadFromFile(
    const std::string& path, const LoadOptions& options) {
  return filter_internal::LoadOwnImage<GenerationalBloomFilter>(path, options);
}

}  // namespace sieve
