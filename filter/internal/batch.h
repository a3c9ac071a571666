// filter/internal/batch.h: the batch loop every filter's AddMany /
// MayContainMany runs, and the word-wise helpers for union, intersection and
// their counts.
//
// Batches of kBatchSize keys: hash them all and prefetch their cache lines,
// then probe in order. The prefetches overlap the memory misses, so a batch of
// keys costs about one miss latency rather than one per key; probing in order
// keeps the results those of one-at-a-time calls.
#ifndef SIEVE_FILTER_INTERNAL_BATCH_H_
#define SIEVE_FILTER_INTERNAL_BATCH_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>

#include "absl/status/status.h"
#include "filter/key_hash.h"

namespace sieve::filter_internal {

// 16 keys x up to 16 lines stays within what the core's miss queues overlap.
inline constexpr size_t kBatchSize = 16;

template <typename PrefetchFn, typename ProbeFn>
void RunBatched(std::span<const std::string_view> keys, std::span<bool> results,
                uint64_t seed, PrefetchFn&& prefetch, ProbeFn&& probe) {
  if (keys.size() != results.size()) {
    std::fprintf(stderr, "sieve filter batch call: %zu keys but %zu results\n",
                 keys.size(), results.size());
    std::abort();
  }
  KeyHash hashes[kBatchSize];
  for (size_t start = 0; start < keys.size(); start += kBatchSize) {
    const size_t count = std::min(kBatchSize, keys.size() - start);
    for (size_t i = 0; i < count; ++i) {
      hashes[i] = HashKey(keys[start + i], seed);
      prefetch(hashes[i]);
    }
    for (size_t i = 0; i < count; ++i) results[start + i] = probe(hashes[i]);
  }
}

inline void OrWords(uint64_t* into, const uint64_t* from, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) into[i] |= from[i];
}
inline void AndWords(uint64_t* into, const uint64_t* from, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) into[i] &= from[i];
}
inline uint64_t PopCount(const uint64_t* words, uint64_t count) {
  uint64_t total = 0;
  for (uint64_t i = 0; i < count; ++i)
    total += static_cast<uint64_t>(std::popcount(words[i]));
  return total;
}
inline uint64_t PopCountOr(const uint64_t* a, const uint64_t* b,
                           uint64_t count) {
  uint64_t total = 0;
  for (uint64_t i = 0; i < count; ++i)
    total += static_cast<uint64_t>(std::popcount(a[i] | b[i]));
  return total;
}

inline absl::Status TrailingBytesError(uint64_t extra) {
  return absl::DataLossError("filter image corrupt: " + std::to_string(extra) +
                             " unexpected bytes after its checksum");
}

}  // namespace sieve::filter_internal

#endif  // SIEVE_FILTER_INTERNAL_BATCH_H_
