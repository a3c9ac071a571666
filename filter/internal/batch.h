// filter/internal/batch.h: the batch loop every filter's AddMany /
// MayContainMany runs, and the word-wise helpers for union, intersection and
// their counts.
//
// Each key is hashed and its cache lines prefetched kBatchSize keys before it
// is probed, so the misses overlap: on a filter far larger than the cache a key
// costs about one miss latency divided by the keys in flight, not a whole one.
// Probes run in key order, so the results are those of one-at-a-time calls (a
// key repeated inside a batch is fresh only the first time).
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

// Prefetch distance: key i + kBatchSize is hashed and its lines prefetched
// while key i is probed, ~150 ns ahead at ~10 ns of work per key: about one
// memory latency, within what the core's miss queues overlap.
inline constexpr size_t kBatchSize = 16;

// Software-pipelined: the window keeps kBatchSize keys in flight from the first
// key to the last (a plain "hash 16, then probe 16" loop drains the pipeline at
// every group boundary).
template <typename PrefetchFn, typename ProbeFn>
void RunBatched(std::span<const std::string_view> keys, std::span<bool> results,
                uint64_t seed, PrefetchFn&& prefetch, ProbeFn&& probe) {
  if (keys.size() != results.size()) {
    std::fprintf(stderr, "sieve filter batch call: %zu keys but %zu results\n",
                 keys.size(), results.size());
    std::abort();
  }
  KeyHash window[kBatchSize];
  const size_t n = keys.size();
  for (size_t i = 0; i < n + kBatchSize; ++i) {
    if (i >= kBatchSize) {
      const size_t j = i - kBatchSize;
      results[j] = probe(window[j % kBatchSize]);
    }
    if (i < n) {
      window[i % kBatchSize] = HashKey(keys[i], seed);
      prefetch(window[i % kBatchSize]);
    }
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
