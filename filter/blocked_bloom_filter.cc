#include "filter/blocked_bloom_filter.h"

#include <bit>

#include "filter/bloom_math.h"
#include "filter/internal/blocked_block.h"

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
  uint64_t* block = core_.words() + filter_internal::BlockOf(
                                        hash, core_.bit_count() / kBlockBits) *
                                        kWordsPerBlock;
  const uint64_t newly_set = filter_internal::SetBlockBits(
      block, hash, core_.hash_count(), core_.concurrent());
  NoteSet(newly_set);
  return newly_set > 0;
}

bool BlockedBloomFilter::MayContainHash(const KeyHash& hash) const {
  const uint64_t* block =
      core_.words() +
      filter_internal::BlockOf(hash, core_.bit_count() / kBlockBits) *
          kWordsPerBlock;
  return filter_internal::TestBlockBits(block, hash, core_.hash_count(),
                                        core_.concurrent());
}

void BlockedBloomFilter::PrefetchHash(const KeyHash& hash,
                                      bool for_write) const {
  const uint64_t block =
      filter_internal::BlockOf(hash, core_.bit_count() / kBlockBits);
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
