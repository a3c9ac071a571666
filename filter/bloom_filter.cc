#include "filter/bloom_filter.h"

#include "filter/bloom_math.h"

namespace sieve {

using filter_internal::BitFilterCore;

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
  absl::StatusOr<BitFilterCore> core =
      BitFilterCore::Create(kKind, rounded, hash_count, kSlotBits, options);
  if (!core.ok()) return core.status();
  return BloomFilter(*std::move(core));
}

bool BloomFilter::AddHash(const KeyHash& hash) {
  ProbeSequence probes(hash);  // enhanced double hashing, see key_hash.h
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
  NoteSet(newly_set);
  return newly_set > 0;
}

bool BloomFilter::MayContainHash(const KeyHash& hash) const {
  ProbeSequence probes(hash);
  const uint64_t m = core_.bit_count();
  const bool concurrent = core_.concurrent();
  const uint64_t* words = core_.words();
  for (uint32_t i = 0; i < core_.hash_count(); ++i) {
    const uint64_t bit = ReduceToRange(probes.Next(), m);
    const uint64_t word =
        filter_internal::LoadWord(words[bit >> 6], concurrent);
    if ((word & (uint64_t{1} << (bit & 63))) == 0) return false;
  }
  return true;
}

void BloomFilter::PrefetchHash(const KeyHash& hash, bool for_write) const {
  ProbeSequence probes(hash);
  for (uint32_t i = 0; i < core_.hash_count(); ++i) {
    const uint64_t bit = ReduceToRange(probes.Next(), core_.bit_count());
    filter_internal::Prefetch(core_.words() + (bit >> 6), for_write);
  }
}

double BloomFilter::EstimatedFalsePositiveRate() const {
  return BloomMath::FalsePositiveRateAtFill(FillRatio(), hash_count());
}

absl::StatusOr<double> EstimateUnionCount(const BloomFilter& a,
                                          const BloomFilter& b) {
  return filter_internal::EstimateUnion(a, b);
}

absl::StatusOr<double> EstimateIntersectionCount(const BloomFilter& a,
                                                 const BloomFilter& b) {
  return filter_internal::EstimateIntersection(a, b);
}

}  // namespace sieve
