#include "filter/bloom_filter.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "filter/bloom_math.h"
#include "filter/internal/batch.h"

namespace sieve {

using filter_internal::BitFilterCore;
using filter_internal::ImageSource;

BloomFilter BloomFilter::ForCapacity(uint64_t capacity, double fp_rate) {
  absl::StatusOr<BloomFilter> filter =
      Create(FilterOptions{.capacity = capacity, .fp_rate = fp_rate});
  if (!filter.ok())
    filter_internal::DieOnBadSizing("BloomFilter", filter.status());
  return *std::move(filter);
}

absl::StatusOr<BloomFilter> BloomFilter::Create(const FilterOptions& options) {
  absl::StatusOr<BloomParams> params =
      BloomMath::OptimalParams(options.capacity, options.fp_rate);
  if (!params.ok()) return params.status();
  return CreateWithSize(params->bits, params->hashes, options);
}

absl::StatusOr<BloomFilter> BloomFilter::CreateWithSize(
    uint64_t bit_count, uint32_t hash_count, const FilterOptions& options) {
  const uint64_t rounded =
      (bit_count + 63) / 64 * 64;  // whole words: every bit is usable
  absl::StatusOr<BitFilterCore> core = BitFilterCore::Create(
      FilterKind::kClassic, rounded, hash_count, 1, options);
  if (!core.ok()) return core.status();
  return BloomFilter(*std::move(core));
}

bool BloomFilter::AddHash(const KeyHash& hash) {
  ProbeSequence probes(hash);
  const uint64_t m = core_.bit_count();
  const bool concurrent = core_.concurrent();
  uint64_t* words = core_.words();
  uint64_t newly_set = 0;
  for (uint32_t i = 0; i < core_.hash_count(); ++i) {
    const uint64_t bit = ReduceToRange(probes.Next(), m);
    if (!filter_internal::TestAndSetBits(
            words[bit >> 6], uint64_t{1} << (bit & 63), concurrent)) {
      ++newly_set;
    }
  }
  core_.NoteSet(newly_set, [this] { return EstimatedFalsePositiveRate(); });
  return newly_set > 0;
}

bool BloomFilter::MayContainHash(const KeyHash& hash) const {
  ProbeSequence probes(hash);
  const uint64_t m = core_.bit_count();
  const bool concurrent = core_.concurrent();
  const uint64_t* words = core_.words();
  for (uint32_t i = 0; i < core_.hash_count(); ++i) {
    const uint64_t bit = ReduceToRange(probes.Next(), m);
    if ((filter_internal::LoadWord(words[bit >> 6], concurrent) &
         (uint64_t{1} << (bit & 63))) == 0) {
      return false;
    }
  }
  return true;
}

namespace {
// Prefetches every probe line of `hash` in `filter` (k lines: the classic
// filter's price).
void PrefetchProbes(const filter_internal::BitFilterCore& core,
                    const KeyHash& hash, bool for_write) {
  ProbeSequence probes(hash);
  for (uint32_t i = 0; i < core.hash_count(); ++i) {
    const uint64_t bit = ReduceToRange(probes.Next(), core.bit_count());
    filter_internal::Prefetch(core.words() + (bit >> 6), for_write);
  }
}
}  // namespace

void BloomFilter::AddMany(std::span<const std::string_view> keys,
                          std::span<bool> fresh) {
  filter_internal::RunBatched(
      keys, fresh, core_.seed(),
      [this](const KeyHash& h) {
        PrefetchProbes(core_, h, /*for_write=*/true);
      },
      [this](const KeyHash& h) { return AddHash(h); });
}

void BloomFilter::MayContainMany(std::span<const std::string_view> keys,
                                 std::span<bool> out) const {
  filter_internal::RunBatched(
      keys, out, core_.seed(),
      [this](const KeyHash& h) {
        PrefetchProbes(core_, h, /*for_write=*/false);
      },
      [this](const KeyHash& h) { return MayContainHash(h); });
}

double BloomFilter::EstimatedFalsePositiveRate() const {
  return BloomMath::FalsePositiveRateAtFill(FillRatio(), hash_count());
}

void BloomFilter::OnCapacityExceeded(CapacityCallback callback) {
  core_.InstallWatch(std::move(callback));
}

std::string BloomFilter::Serialize() const { return core_.Serialize(); }

absl::Status BloomFilter::SaveToFile(const std::string& path) const {
  return core_.SaveToFile(path);
}

absl::StatusOr<BloomFilter> BloomFilter::FromImage(const ImageSource& source,
                                                   uint64_t* consumed) {
  absl::StatusOr<filter_internal::DecodedImage> image =
      filter_internal::DecodeImage(source.bytes, source.verify_checksum);
  if (!image.ok()) return image.status();
  absl::StatusOr<BitFilterCore> core =
      BitFilterCore::FromImage(FilterKind::kClassic, 1, *image, source);
  if (!core.ok()) return core.status();
  *consumed = image->image_bytes;
  return BloomFilter(*std::move(core));
}

absl::StatusOr<BloomFilter> BloomFilter::FromSource(const ImageSource& source) {
  uint64_t consumed = 0;
  absl::StatusOr<BloomFilter> filter = FromImage(source, &consumed);
  if (filter.ok() && consumed != source.bytes.size()) {
    return filter_internal::TrailingBytesError(source.bytes.size() - consumed);
  }
  return filter;
}

absl::StatusOr<BloomFilter> BloomFilter::Deserialize(
    std::string_view bytes, const LoadOptions& options) {
  return FromSource(ImageSource{.bytes = bytes,
                                .owner = nullptr,
                                .verify_checksum = options.verify_checksum,
                                .concurrent = options.concurrent});
}

absl::StatusOr<BloomFilter> BloomFilter::LoadFromFile(
    const std::string& path, const LoadOptions& options) {
  absl::StatusOr<ImageSource> source =
      filter_internal::SourceFromFile(path, options);
  if (!source.ok()) return source.status();
  return FromSource(*source);
}

absl::Status BloomFilter::UnionWith(const BloomFilter& other) {
  if (absl::Status s = core_.CheckCompatible(other.core_); !s.ok()) return s;
  filter_internal::OrWords(core_.words(), other.core_.words(),
                           core_.word_count());
  core_.ResetSetCount(
      filter_internal::PopCount(core_.words(), core_.word_count()),
      [this] { return EstimatedFalsePositiveRate(); });
  return absl::OkStatus();
}

absl::Status BloomFilter::IntersectWith(const BloomFilter& other) {
  if (absl::Status s = core_.CheckCompatible(other.core_); !s.ok()) return s;
  filter_internal::AndWords(core_.words(), other.core_.words(),
                            core_.word_count());
  core_.ResetSetCount(
      filter_internal::PopCount(core_.words(), core_.word_count()),
      [this] { return EstimatedFalsePositiveRate(); });
  return absl::OkStatus();
}

absl::StatusOr<double> EstimateUnionCount(const BloomFilter& a,
                                          const BloomFilter& b) {
  if (absl::Status s = a.core().CheckCompatible(b.core()); !s.ok()) return s;
  const uint64_t union_bits = filter_internal::PopCountOr(
      a.core().words(), b.core().words(), a.core().word_count());
  return BloomMath::EstimateCount(a.bit_count(), a.hash_count(), union_bits);
}

absl::StatusOr<double> EstimateIntersectionCount(const BloomFilter& a,
                                                 const BloomFilter& b) {
  absl::StatusOr<double> union_count = EstimateUnionCount(a, b);
  if (!union_count.ok()) return union_count.status();
  // n(A ∩ B) = n(A) + n(B) − n(A ∪ B) (Swamidass & Baldi 2007), floored at 0.
  return std::max(0.0, a.EstimatedCount() + b.EstimatedCount() - *union_count);
}

}  // namespace sieve
