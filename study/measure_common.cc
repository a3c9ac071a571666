// Shared pieces of the measurements: stream feeding, probe counts, memory
// predictions.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "filter/bloom_math.h"
#include "study/measure.h"

namespace sieve::study {

uint64_t ProbeCount(uint64_t n, double min_fp_rate) {
  // ~400 expected false positives give a relative standard error of 1/sqrt(400)
  // = 5 %.
  const double wanted = 400.0 / min_fp_rate;
  const double ceiling = std::max(1e5, 10.0 * static_cast<double>(n));
  return static_cast<uint64_t>(std::clamp(std::min(wanted, ceiling), 1e5, 4e6));
}

void FeedStream(const MeasureContext& context, uint64_t n,
                const std::function<void(const UrlBatch&)>& consume) {
  UrlStream stream(context.stream);
  UrlBatch batch;
  while (stream.fresh_count() < n) {
    stream.NextBatch(kBatchUrls, n, &batch);
    consume(batch);
  }
}

void FeedProbes(const MeasureContext& context, uint64_t count,
                const std::function<void(const UrlBatch&)>& consume) {
  UrlStream stream(context.stream);
  UrlBatch batch;
  for (uint64_t first = 0; first < count; first += kBatchUrls) {
    stream.ProbeBatch(
        first,
        static_cast<size_t>(std::min<uint64_t>(kBatchUrls, count - first)),
        &batch);
    consume(batch);
  }
}

uint64_t PredictedFilterBytes(FilterKind kind, uint64_t n, double fp_rate) {
  // m = -n ln p / (ln 2)^2 (docs/architecture.md, "Formulas"); the other
  // kinds relative to it.
  const double classic_bytes = -static_cast<double>(n) * std::log(fp_rate) /
                               (std::log(2.0) * std::log(2.0)) / 8.0;
  double factor = 1.0;
  switch (kind) {
    case FilterKind::kClassic:
      factor = 1.0;
      break;
    case FilterKind::kBlocked:
      factor =
          1.35;  // Blocked filters need ~10-30 % more bits for the same rate.
      break;
    case FilterKind::kCounting:
      factor = 4.0;  // 4-bit counters.
      break;
    case FilterKind::kScalable:
      factor = 3.0;  // Stages of n/8 .. n with tightened rates: ~2-2.5x, with
                     // headroom.
      break;
    case FilterKind::kStable:
    case FilterKind::kGenerational:
      factor = 1.0;  // A classic filter's memory unless told otherwise.
      break;
  }
  return static_cast<uint64_t>(classic_bytes * factor) + 4096;
}

// The last measured row of (structure, fp_rate), for extrapolation.
const ResultRow* LastMeasured(const std::vector<ResultRow>& rows,
                              std::string_view structure, double fp_rate) {
  const ResultRow* last = nullptr;
  for (const ResultRow& row : rows) {
    if (row.structure == structure &&
        (row.fp_rate == fp_rate ||
         (std::isnan(row.fp_rate) && std::isnan(fp_rate))) &&
        !row.extrapolated && (last == nullptr || row.n > last->n)) {
      last = &row;
    }
  }
  return last;
}

ResultRow Extrapolate(const ResultRow& base, uint64_t n,
                      const MeasureContext& context) {
  ResultRow row = base;
  const double scale = static_cast<double>(n) / static_cast<double>(base.n);
  row.n = n;
  row.stream_urls =
      static_cast<uint64_t>(static_cast<double>(base.stream_urls) * scale);
  row.bytes_own =
      static_cast<uint64_t>(static_cast<double>(base.bytes_own) * scale);
  row.bytes_rss = base.bytes_rss * scale;
  if (row.bits != kNotApplicable) {
    row.bits = static_cast<uint64_t>(static_cast<double>(base.bits) * scale);
  }
  row.probes = 0;
  row.false_positives = 0;
  row.fpr_measured = kNaN;
  row.estimated_count = kNaN;
  row.lost_new = kNotApplicable;
  row.collisions = kNotApplicable;
  row.extrapolated = true;
  row.note = absl::StrFormat(
      "extrapolated from n=%d: predicted past --memory-cap=%d bytes", base.n,
      context.memory_cap);
  return row;
}

}  // namespace sieve::study
