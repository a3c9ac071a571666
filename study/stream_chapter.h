// study/stream_chapter.h: the stream chapter of `sieve study`: the seen-set
// of an endless stream at a fixed memory. Over a stream in which a share of
// positions repeats one of the last `window` distinct URLs, the stable filter
// and the generational filter (both at `memory_bytes`) and a scalable filter
// (which never forgets and grows) are fed side by side; at log-spaced points
// each reports, over the stretch since the previous point, the share of fresh
// URLs it wrongly called seen (false positives: pages a crawler would lose)
// and the share of repeats it called fresh (false negatives: pages fetched
// again), beside the formulas of filter/bloom_math.h.
//
// Example:
//   absl::StatusOr<std::vector<StreamPoint>> points =
//       MeasureStream({.positions = 10'000'000, .window = 100'000}, nullptr);
#ifndef SIEVE_STUDY_STREAM_CHAPTER_H_
#define SIEVE_STUDY_STREAM_CHAPTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "study/progress.h"
#include "study/svg_plot.h"

namespace sieve::study {

struct StreamOptions {
  // Stream positions (URLs fed, repeats included). REQUIRES: >= 1000.
  // Default: 10^7.
  uint64_t positions = 10'000'000;
  // Repeats come from the last `window` distinct URLs. REQUIRES: >= 1.
  // Default: 10^5.
  uint64_t window = 100'000;
  // Share of positions that repeat. REQUIRES: [0, 1). Default: 0.3.
  double repeat_share = 0.3;
  // Memory of the stable and generational filters; 0: twice a classic filter
  // for `window` keys at `fp_rate`. Default: 0.
  uint64_t memory_bytes = 0;
  // Target false-positive rate of every filter. REQUIRES: (0, 1).
  // Default: 0.01.
  double fp_rate = 0.01;
  // Seeds the stream. Default: 42.
  uint64_t seed = 42;
  // Measurement points, log-spaced up to `positions` (the last exactly at
  // `positions`; fewer where two would round to one). REQUIRES: >= 2.
  // Default: 24.
  uint32_t points = 24;
};

// One structure over one stretch of the stream, ending at `position`.
struct StreamPoint {
  std::string structure;  // "stable", "generational", "scalable"
  uint64_t position = 0;  // stream positions fed so far
  uint64_t memory_bytes = 0;
  uint64_t fresh = 0;  // fresh URLs in the stretch
  uint64_t fresh_called_seen = 0;
  uint64_t repeats = 0;  // repeats in the stretch
  uint64_t repeats_called_fresh = 0;
  double fpr_measured = 0;
  double fpr_formula = 0;
  double fnr_measured = 0;
  double fnr_formula = 0;  // NaN where no formula applies
};

// Feeds the stream to the three structures. InvalidArgument for options
// outside their REQUIRES. Cost: ~0.5 us per position; memory: the filters
// plus 8 bytes per window entry.
[[nodiscard]] absl::StatusOr<std::vector<StreamPoint>> MeasureStream(
    const StreamOptions& options, Progress* progress);

// The plots: false-positive and false-negative rates along the stream,
// measured beside the formulas.
PlotSpec StreamFalsePositivePlot(const std::vector<StreamPoint>& points);
PlotSpec StreamFalseNegativePlot(const std::vector<StreamPoint>& points);

// report.md's stream section (Markdown).
std::string StreamSection(const StreamOptions& options,
                          const std::vector<StreamPoint>& points);

// Writes stream.csv, stream_fpr.svg and stream_fnr.svg into `dir`.
[[nodiscard]] absl::Status WriteStreamOutputs(
    const std::vector<StreamPoint>& points, const std::string& dir);

}  // namespace sieve::study

#endif  // SIEVE_STUDY_STREAM_CHAPTER_H_
