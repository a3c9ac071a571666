// filter/internal/blocked_block.h: where a key's bits fall in a blocked Bloom
// filter (Putze, Sanders & Singler 2007), written once for the filter in RAM
// (filter/blocked_bloom_filter.cc) and the one in a file
// (filter/internal/file_stage.cc): the low half of the hash picks the 512-bit
// block (multiply-shift over the block count); the high half alone drives the
// k probes inside it (top 9 bits, then multiply), so where a key's bits fall
// inside a block does not depend on the block. A position drawn twice counts
// once.
#ifndef SIEVE_FILTER_INTERNAL_BLOCKED_BLOCK_H_
#define SIEVE_FILTER_INTERNAL_BLOCKED_BLOCK_H_

#include <cstdint>

#include "filter/internal/word_array.h"
#include "filter/key_hash.h"

namespace sieve::filter_internal {

inline constexpr uint64_t kBlockWords = 512 / 64;

// The block `hash` maps to, of `block_count`.
inline uint64_t BlockOf(const KeyHash& hash, uint64_t block_count) {
  return ReduceToRange(hash.low, block_count);
}

// Sets the key's `hash_count` bits in its block's 8 words; returns how many
// were clear before.
inline uint64_t SetBlockBits(uint64_t* block, const KeyHash& hash,
                             uint32_t hash_count, bool concurrent) {
  constexpr uint64_t kProbeMultiplier = 0x9E3779B97F4A7C15ULL;
  uint64_t newly_set = 0;
  uint64_t state = hash.high;
  for (uint32_t i = 0; i < hash_count; ++i) {
    const uint64_t bit = state >> 55;
    if (!TestAndSetBits(block[bit >> 6], uint64_t{1} << (bit & 63),
                        concurrent)) {
      ++newly_set;
    }
    state *= kProbeMultiplier;
  }
  return newly_set;
}

// Whether all of the key's bits are set; an absent key usually stops at its
// first or second probe (about half the bits are clear at capacity).
inline bool TestBlockBits(const uint64_t* block, const KeyHash& hash,
                          uint32_t hash_count, bool concurrent) {
  constexpr uint64_t kProbeMultiplier = 0x9E3779B97F4A7C15ULL;
  uint64_t state = hash.high;
  for (uint32_t i = 0; i < hash_count; ++i) {
    const uint64_t bit = state >> 55;
    if (((LoadWord(block[bit >> 6], concurrent) >> (bit & 63)) & 1) == 0)
      return false;
    state *= kProbeMultiplier;
  }
  return true;
}

}  // namespace sieve::filter_internal

#endif  // SIEVE_FILTER_INTERNAL_BLOCKED_BLOCK_H_
