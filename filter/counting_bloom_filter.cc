#include "filter/counting_bloom_filter.h"

#include <algorithm>
#include <atomic>
#include <bit>

#include "filter/bloom_math.h"

namespace sieve {

using filter_internal::BitFilterCore;

namespace {

constexpr uint64_t kNibbleLowBits = 0x1111111111111111ULL;

uint32_t Nibble(uint64_t word, uint32_t shift) { return (word >> shift) & 0xF; }

// One bit per nonzero 4-bit counter of `word`.
uint64_t NonZeroNibbles(uint64_t word) {
  word |= word >> 1;
  word |= word >> 2;
  return word & kNibbleLowBits;
}

// Applies `step` (old counter -> new counter) to counter `shift` of `word`;
// returns the old value.
template <typename Step>
uint32_t UpdateCounter(uint64_t& word, uint32_t shift, bool concurrent,
                       Step step) {
  if (!concurrent) {
    const uint32_t old = Nibble(word, shift);
    word = (word & ~(uint64_t{0xF} << shift)) | (uint64_t{step(old)} << shift);
    return old;
  }
  std::atomic_ref<uint64_t> atomic(word);
  uint64_t expected = atomic.load(std::memory_order_relaxed);
  while (true) {
    const uint32_t old = Nibble(expected, shift);
    const uint32_t next = step(old);
    if (next == old) return old;
    const uint64_t desired =
        (expected & ~(uint64_t{0xF} << shift)) | (uint64_t{next} << shift);
    if (atomic.compare_exchange_weak(expected, desired,
                                     std::memory_order_relaxed))
      return old;
  }
}

}  // namespace

CountingBloomFilter CountingBloomFilter::ForCapacity(uint64_t capacity,
                                                     double fp_rate) {
  absl::StatusOr<CountingBloomFilter> filter =
      Create(FilterOptions{.capacity = capacity, .fp_rate = fp_rate});
  if (!filter.ok())
    filter_internal::DieOnBadSizing("CountingBloomFilter", filter.status());
  return *std::move(filter);
}

absl::StatusOr<CountingBloomFilter> CountingBloomFilter::Create(
    const FilterOptions& options) {
  absl::StatusOr<BloomParams> params =
      BloomMath::OptimalParams(options.capacity, options.fp_rate);
  if (!params.ok()) return params.status();
  return CreateWithSize(params->bits, params->hashes, options);
}

absl::StatusOr<CountingBloomFilter> CountingBloomFilter::CreateWithSize(
    uint64_t counter_count, uint32_t hash_count, const FilterOptions& options) {
  const uint64_t rounded = (counter_count + kSlotGranularity - 1) /
                           kSlotGranularity * kSlotGranularity;
  absl::StatusOr<BitFilterCore> core =
      BitFilterCore::Create(kKind, rounded, hash_count, kSlotBits, options);
  if (!core.ok()) return core.status();
  return CountingBloomFilter(*std::move(core));
}

bool CountingBloomFilter::AddHash(const KeyHash& hash) {
  ProbeSequence probes(hash);
  const bool concurrent = core_.concurrent();
  uint64_t newly_set = 0;
  for (uint32_t i = 0; i < core_.hash_count(); ++i) {
    const uint64_t slot = ReduceToRange(probes.Next(), core_.bit_count());
    const uint32_t old = UpdateCounter(
        core_.words()[slot >> 4], static_cast<uint32_t>(slot & 15) * 4,
        concurrent,
        [](uint32_t c) { return c < kMaxCounter ? c + 1 : c; });  // saturate
    if (old == 0) ++newly_set;
  }
  NoteSet(newly_set);
  return newly_set > 0;
}

bool CountingBloomFilter::RemoveHash(const KeyHash& hash) {
  if (!MayContainHash(hash)) return false;
  ProbeSequence probes(hash);
  const bool concurrent = core_.concurrent();
  uint64_t emptied = 0;
  for (uint32_t i = 0; i < core_.hash_count(); ++i) {
    const uint64_t slot = ReduceToRange(probes.Next(), core_.bit_count());
    // A saturated counter may stand for more keys than 15: never decrement it
    // (nor a 0, which a concurrent Remove of a colliding key may have reached
    // first).
    const uint32_t old = UpdateCounter(
        core_.words()[slot >> 4], static_cast<uint32_t>(slot & 15) * 4,
        concurrent,
        [](uint32_t c) { return (c == 0 || c == kMaxCounter) ? c : c - 1; });
    if (old == 1) ++emptied;
  }
  core_.NoteUnset(emptied);
  return true;
}

bool CountingBloomFilter::MayContainHash(const KeyHash& hash) const {
  ProbeSequence probes(hash);
  const bool concurrent = core_.concurrent();
  for (uint32_t i = 0; i < core_.hash_count(); ++i) {
    const uint64_t slot = ReduceToRange(probes.Next(), core_.bit_count());
    const uint64_t word =
        filter_internal::LoadWord(core_.words()[slot >> 4], concurrent);
    if (Nibble(word, static_cast<uint32_t>(slot & 15) * 4) == 0) return false;
  }
  return true;
}

void CountingBloomFilter::PrefetchHash(const KeyHash& hash,
                                       bool for_write) const {
  ProbeSequence probes(hash);
  for (uint32_t i = 0; i < core_.hash_count(); ++i) {
    const uint64_t slot = ReduceToRange(probes.Next(), core_.bit_count());
    filter_internal::Prefetch(core_.words() + (slot >> 4), for_write);
  }
}

uint32_t CountingBloomFilter::CounterAt(uint64_t index) const {
  const uint64_t word =
      filter_internal::LoadWord(core_.words()[index >> 4], core_.concurrent());
  return Nibble(word, static_cast<uint32_t>(index & 15) * 4);
}

double CountingBloomFilter::EstimatedFalsePositiveRate() const {
  return BloomMath::FalsePositiveRateAtFill(FillRatio(), hash_count());
}

void CountingBloomFilter::UnionWords(uint64_t* into, const uint64_t* from,
                                     uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t merged = 0;
    for (uint32_t shift = 0; shift < 64; shift += 4) {
      const uint32_t sum = std::min(
          Nibble(into[i], shift) + Nibble(from[i], shift), kMaxCounter);
      merged |= uint64_t{sum} << shift;
    }
    into[i] = merged;
  }
}

void CountingBloomFilter::IntersectWords(uint64_t* into, const uint64_t* from,
                                         uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t merged = 0;
    for (uint32_t shift = 0; shift < 64; shift += 4) {
      merged |=
          uint64_t{std::min(Nibble(into[i], shift), Nibble(from[i], shift))}
          << shift;
    }
    into[i] = merged;
  }
}

uint64_t CountingBloomFilter::CountSetSlots(const uint64_t* words,
                                            uint64_t count) {
  uint64_t total = 0;
  for (uint64_t i = 0; i < count; ++i) {
    total += static_cast<uint64_t>(std::popcount(NonZeroNibbles(words[i])));
  }
  return total;
}

uint64_t CountingBloomFilter::CountSetSlotsOfUnion(const uint64_t* a,
                                                   const uint64_t* b,
                                                   uint64_t count) {
  uint64_t total = 0;
  for (uint64_t i = 0; i < count; ++i) {
    total += static_cast<uint64_t>(std::popcount(NonZeroNibbles(a[i] | b[i])));
  }
  return total;
}

absl::StatusOr<double> EstimateUnionCount(const CountingBloomFilter& a,
                                          const CountingBloomFilter& b) {
  return filter_internal::EstimateUnion(a, b);
}

absl::StatusOr<double> EstimateIntersectionCount(const CountingBloomFilter& a,
                                                 const CountingBloomFilter& b) {
  return filter_internal::EstimateIntersection(a, b);
}

}  // namespace sieve
