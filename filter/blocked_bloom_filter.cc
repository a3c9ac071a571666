#include "filter/blocked_bloom_filter.h"

#include <bit>

#include "filter/bloom_math.h"

namespace sieve {

using filter_internal::BitFilterCore;

namespace {
constexpr uint64_t kWordsPerBlock = BlockedBloomFilter::kBlockBits / 64;
// 2^64 / golden ratio, odd: successive products scramble the probe state (the
// 64-bit form of RocksDB's FastLocalBloomImpl, util/bloom_impl.h, which
// multiplies by 0x9e3779b9 per probe).
constexpr uint64_t kProbeMultiplier = 0x9E3779B97F4A7C15ULL;
}  // namespace

BlockedBloomFilter BlockedBloomFilter::ForCapacity(uint64_t capacity,
                                                   double fp_rate) {
  absl::StatusOr<BlockedBloomFilter> filter =
      Create(FilterOptions{.capacity = capacity, .fp_rate = fp_rate});
  if (!filter.ok())
    filter_internal::DieOnBadSizing("BlockedBloomFilter", filter.status());
  return *std::move(filter);
}

absl::StatusOr<BlockedBloomFilter> BlockedBloomFilter::Create(
    const FilterOptions& options) {
  absl::StatusOr<BloomParams> params =
      BloomMath::OptimalBlockedParams(options.capacity, options.fp_rate);
  if (!params.ok()) return params.status();
  return CreateWithSize(params->bits, params->hashes, options);
}

absl::StatusOr<BlockedBloomFilter> BlockedBloomFilter::CreateWithSize(
    uint64_t bit_count, uint32_t hash_count, const FilterOptions& options) {
  const uint64_t rounded =
      (bit_count + kBlockBits - 1) / kBlockBits * kBlockBits;
  absl::StatusOr<BitFilterCore> core =
      BitFilterCore::Create(kKind, rounded, hash_count, kSlotBits, options);
  if (!core.ok()) return core.status();
  return BlockedBloomFilter(*std::move(core));
}

bool BlockedBloomFilter::AddHash(const KeyHash& hash) {
  // The low half of the hash picks the block (multiply-shift over the block
  // count); the high half alone drives the probes (top 9 bits, then multiply),
  // so where a key's bits fall inside a block does not depend on the block.
  // One test-and-set per probe, all in one cache line; a position drawn twice
  // counts once (the second test finds it set).
  const uint64_t block =
      ReduceToRange(hash.low, core_.bit_count() / kBlockBits);
  uint64_t* words = core_.words() + block * kWordsPerBlock;
  const bool concurrent = core_.concurrent();
  uint64_t newly_set = 0;
  uint64_t state = hash.high;
  for (uint32_t i = 0; i < core_.hash_count(); ++i) {
    const uint64_t bit = state >> 55;
    if (!filter_internal::TestAndSetBits(
            words[bit >> 6], uint64_t{1} << (bit & 63), concurrent)) {
      ++newly_set;
    }
    state *= kProbeMultiplier;
  }
  NoteSet(newly_set);
  return newly_set > 0;
}

bool BlockedBloomFilter::MayContainHash(const KeyHash& hash) const {
  // As AddHash, testing as it goes: an absent key usually stops at its first
  // or second probe (about half the bits are clear at capacity).
  const uint64_t block =
      ReduceToRange(hash.low, core_.bit_count() / kBlockBits);
  const uint64_t* words = core_.words() + block * kWordsPerBlock;
  const bool concurrent = core_.concurrent();
  uint64_t state = hash.high;
  for (uint32_t i = 0; i < core_.hash_count(); ++i) {
    const uint64_t bit = state >> 55;
    const uint64_t word =
        filter_internal::LoadWord(words[bit >> 6], concurrent);
    if (((word >> (bit & 63)) & 1) == 0) return false;
    state *= kProbeMultiplier;
  }
  return true;
}

void BlockedBloomFilter::PrefetchHash(const KeyHash& hash,
                                      bool for_write) const {
  const uint64_t block =
      ReduceToRange(hash.low, core_.bit_count() / kBlockBits);
  filter_internal::Prefetch(core_.words() + block * kWordsPerBlock, for_write);
}

double BlockedBloomFilter::EstimatedFalsePositiveRate() const {
  return BloomMath::BlockedFalsePositiveRate(bit_count(), hash_count(),
                                             EstimatedCount());
}

absl::StatusOr<double> EstimateUnionCount(const BlockedBloomFilter& a,
                                          const BlockedBloomFilter& b) {
  return filter_internal::EstimateUnion(a, b);
}

absl::StatusOr<double> EstimateIntersectionCount(const BlockedBloomFilter& a,
                                                 const BlockedBloomFilter& b) {
  return filter_internal::EstimateIntersection(a, b);
}

}  // namespace sieve
