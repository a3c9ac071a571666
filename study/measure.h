// study/measure.h: the measurements `sieve study` makes, one function
// per family of structures. Each returns ResultRows (see results.h); RunStudy
// strings them together.
//
// Surprises first:
//   - Every function regenerates the URL stream from the seed, so rows for
//     the same n saw the same URLs. Timings exclude URL generation.
//   - The filters of one n are built side by side in groups that fit
//     `filter_group_budget`, spread over one thread per core, each thread
//     reading its own copy of the stream: a filter's timings were taken with
//     the other cores busy with its neighbours. Their RSS is measured as the
//     memory the process gives back when each is freed. Exact sets run one at
//     a time and their RSS is the growth while building.
//   - Structures predicted to exceed `memory_cap` are not built: their row is
//     extrapolated from the largest measured n (extrapolated = true).
#ifndef SIEVE_STUDY_MEASURE_H_
#define SIEVE_STUDY_MEASURE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "filter/filter.h"
#include "study/progress.h"
#include "study/results.h"
#include "study/url_stream.h"

namespace sieve::study {

struct MeasureContext {
  UrlStreamOptions stream;
  // Structures predicted to need more are extrapolated instead of built.
  uint64_t memory_cap = uint64_t{16} << 30;
  // Filters built side by side for one n stay under this together.
  uint64_t filter_group_budget = uint64_t{12} << 30;
  // Where the lossless Sieve puts its on-disk store.
  std::string scratch_dir;
  Progress* progress = nullptr;  // May be null.
};

// URLs per batch handed to the structures.
inline constexpr size_t kBatchUrls = 4096;

// Never-inserted URLs queried to measure a false-positive rate at n: enough for
// ~400 expected false positives at `min_fp_rate`, between 10^5 and 4*10^6, and
// at most max(10^5, 10 n).
uint64_t ProbeCount(uint64_t n, double min_fp_rate);

// Streams URLs until `n` distinct ones were emitted, in batches of kBatchUrls.
void FeedStream(const MeasureContext& context, uint64_t n,
                const std::function<void(const UrlBatch&)>& consume);
// Streams `count` probe URLs (never in any stream) in batches.
void FeedProbes(const MeasureContext& context, uint64_t count,
                const std::function<void(const UrlBatch&)>& consume);

// The measured (not extrapolated) row of `structure` at `fp_rate` (NaN matches
// NaN) with the largest n, or null.
const ResultRow* LastMeasured(const std::vector<ResultRow>& rows,
                              std::string_view structure, double fp_rate);
// `base` scaled to n: bytes, bits and stream size grow linearly, per-URL
// figures stay; the row is marked extrapolated and its measured-only fields are
// cleared.
ResultRow Extrapolate(const ResultRow& base, uint64_t n,
                      const MeasureContext& context);

// Bytes a filter of `kind` for n keys at p needs, from the formulas (for
// planning groups).
uint64_t PredictedFilterBytes(FilterKind kind, uint64_t n, double fp_rate);

// Every kind x rate at n. `previous`: rows measured at smaller n, for
// extrapolation.
[[nodiscard]] absl::StatusOr<std::vector<ResultRow>> MeasureFilters(
    const MeasureContext& context, const std::vector<FilterKind>& kinds,
    const std::vector<double>& fp_rates, uint64_t n,
    const std::vector<ResultRow>& previous);

// std::unordered_set<std::string>, absl::flat_hash_set<std::string> and
// absl::flat_hash_set of XXH3-64 fingerprints at n, or extrapolated from
// `previous` when predicted past the cap.
std::vector<ResultRow> MeasureExactSets(const MeasureContext& context,
                                        uint64_t n,
                                        const std::vector<ResultRow>& previous);

// The article hashing schemes at equal m and k (hashing_schemes.h): m = 2^25
// bits and k = 7 as in the Java article (smaller power of two when max_n is
// small), n at m/(2*9.59), m/9.59 and 2m/9.59 (~0.01 %, 1 %, 16 % false
// positives).
std::vector<ResultRow> MeasureHashingSchemes(const MeasureContext& context,
                                             uint64_t max_n);

// The literature check m = 20 n, k = 10 on the classic filter (Pei Cao's
// table: 8.9e-5).
[[nodiscard]] absl::StatusOr<ResultRow> MeasureTwentyBitsTenHashes(
    const MeasureContext& context, uint64_t n);

// The frontier's Sieve at n distinct URLs, p = 1 %, plain and lossless
// (verify_positives), at each repeat share: cost per push, filter bytes, and in
// lossless mode the store's disk bytes and the false positives it caught.
[[nodiscard]] absl::StatusOr<std::vector<ResultRow>> MeasureSieve(
    const MeasureContext& context, uint64_t n,
    const std::vector<double>& repeat_shares);

}  // namespace sieve::study

#endif  // SIEVE_STUDY_MEASURE_H_
