#include "study/stream_chapter.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "filter/bloom_math.h"
#include "filter/generational_bloom_filter.h"
#include "filter/scalable_bloom_filter.h"
#include "filter/stable_bloom_filter.h"
#include "study/url_stream.h"

namespace sieve::study {
namespace {

constexpr double kNoFormula = std::numeric_limits<double>::quiet_NaN();

absl::Status Validate(const StreamOptions& o) {
  if (o.positions < 1000)
    return absl::InvalidArgumentError("stream: fewer than 1000 positions");
  if (o.window < 1) return absl::InvalidArgumentError("stream: window is 0");
  if (!(o.repeat_share >= 0 && o.repeat_share < 1))
    return absl::InvalidArgumentError("stream: repeat share outside [0, 1)");
  if (!(o.fp_rate > 0 && o.fp_rate < 1))
    return absl::InvalidArgumentError("stream: fp rate outside (0, 1)");
  if (o.points < 2) return absl::InvalidArgumentError("stream: < 2 points");
  return absl::OkStatus();
}

// What one structure saw since the last point.
struct Stretch {
  uint64_t fresh = 0;
  uint64_t fresh_called_seen = 0;
  uint64_t repeats = 0;
  uint64_t repeats_called_fresh = 0;
  double forget_formula_sum = 0;  // stable only: sum of forget probabilities

  void Count(bool fresh_url, bool called_fresh) {
    if (fresh_url) {
      ++fresh;
      fresh_called_seen += !called_fresh;
    } else {
      ++repeats;
      repeats_called_fresh += called_fresh;
    }
  }
};

double Share(uint64_t part, uint64_t whole) {
  return whole == 0 ? kNoFormula
                    : static_cast<double>(part) / static_cast<double>(whole);
}

// Where each stretch ends: `points` positions log-spaced from
// max(1000, positions / 10^4) to `positions`, the last exactly `positions`
// (rounding the spacing's product instead left the last at positions - 1 and
// a one-item stretch after it); fewer where two would round to one.
std::vector<uint64_t> PointPositions(const StreamOptions& o) {
  const double positions = static_cast<double>(o.positions);
  const double first = std::min(positions, std::max(1000.0, positions / 1e4));
  const double ratio = std::pow(positions / first, 1.0 / (o.points - 1));
  std::vector<uint64_t> ends;
  for (uint32_t k = 0; k < o.points; ++k) {
    const uint64_t end =
        k + 1 == o.points
            ? o.positions
            : static_cast<uint64_t>(std::llround(
                  first * std::pow(ratio, static_cast<double>(k))));
    if (ends.empty() || end > ends.back()) ends.push_back(end);
  }
  return ends;
}

}  // namespace

absl::StatusOr<std::vector<StreamPoint>> MeasureStream(
    const StreamOptions& options, Progress* progress) {
  if (absl::Status s = Validate(options); !s.ok()) return s;
  uint64_t memory = options.memory_bytes;
  if (memory == 0) {
    absl::StatusOr<BloomParams> classic =
        BloomMath::OptimalParams(options.window, options.fp_rate);
    if (!classic.ok()) return classic.status();
    memory = 2 * classic->bits / 8;
  }
  absl::StatusOr<StableBloomFilter> stable =
      StableBloomFilter::Create({.kind = FilterKind::kStable,
                                 .fp_rate = options.fp_rate,
                                 .memory_bytes = memory});
  if (!stable.ok()) return stable.status();
  absl::StatusOr<GenerationalBloomFilter> generational =
      GenerationalBloomFilter::Create({.kind = FilterKind::kGenerational,
                                       .fp_rate = options.fp_rate,
                                       .memory_bytes = memory});
  if (!generational.ok()) return generational.status();
  absl::StatusOr<ScalableBloomFilter> scalable = ScalableBloomFilter::Create(
      {.capacity = options.window, .fp_rate = options.fp_rate});
  if (!scalable.ok()) return scalable.status();

  UrlStream stream({.seed = options.seed,
                    .repeat_share = options.repeat_share,
                    .repeat_window = options.window});
  // Where each of the last `window` distinct URLs was last seen, so a
  // repeat's age (other positions since) is exact.
  std::vector<uint64_t> last_seen(options.window);
  Stretch stretch[3];
  std::vector<StreamPoint> points;
  const std::vector<uint64_t> ends = PointPositions(options);
  size_t next_end = 0;
  uint64_t previous_point = 0;
  std::string url;
  for (uint64_t position = 1; position <= options.positions; ++position) {
    uint64_t index = 0;
    const bool fresh = stream.Next(&url, &index);
    uint64_t& seen_at = last_seen[index % options.window];
    if (!fresh) {
      stretch[0].forget_formula_sum += BloomMath::StableForgetProbability(
          stable->params(), static_cast<double>(position - seen_at - 1));
    }
    seen_at = position;
    stretch[0].Count(fresh, stable->Add(url));
    stretch[1].Count(fresh, generational->Add(url));
    stretch[2].Count(fresh, scalable->Add(url));
    if (position != ends[next_end]) continue;
    ++next_end;
    const double middle = (previous_point + position) / 2.0;
    const double formulas[3][2] = {
        {BloomMath::StableFalsePositiveRate(stable->params(), middle),
         stretch[0].forget_formula_sum /
             std::max<double>(1, static_cast<double>(stretch[0].repeats))},
        {generational->EstimatedFalsePositiveRate(), kNoFormula},
        {scalable->EstimatedFalsePositiveRate(), 0.0}};
    const char* names[3] = {"stable", "generational", "scalable"};
    const uint64_t bytes[3] = {stable->MemoryBytes(),
                               generational->MemoryBytes(),
                               scalable->MemoryBytes()};
    for (int i = 0; i < 3; ++i) {
      const Stretch& s = stretch[i];
      points.push_back(
          {.structure = names[i],
           .position = position,
           .memory_bytes = bytes[i],
           .fresh = s.fresh,
           .fresh_called_seen = s.fresh_called_seen,
           .repeats = s.repeats,
           .repeats_called_fresh = s.repeats_called_fresh,
           .fpr_measured = Share(s.fresh_called_seen, s.fresh),
           .fpr_formula = formulas[i][0],
           .fnr_measured = Share(s.repeats_called_fresh, s.repeats),
           .fnr_formula = formulas[i][1]});
      stretch[i] = Stretch{};
    }
    if (progress != nullptr) progress->Advance(position - previous_point);
    previous_point = position;
  }
  return points;
}

namespace {

PlotSpec RatePlot(const std::vector<StreamPoint>& points, std::string title,
                  std::string y_label, double StreamPoint::*measured,
                  double StreamPoint::*formula) {
  PlotSpec spec{.title = std::move(title),
                .x_label = "stream position",
                .y_label = std::move(y_label)};
  std::map<std::string, size_t> index;
  for (const StreamPoint& p : points) {
    for (const bool is_formula : {false, true}) {
      const double y = p.*(is_formula ? formula : measured);
      if (!(y > 0)) continue;
      const std::string label =
          absl::StrCat(p.structure, is_formula ? " (formula)" : "");
      auto [it, added] = index.emplace(label, spec.series.size());
      if (added) {
        spec.series.push_back({.label = label, .markers_only = !is_formula});
      }
      spec.series[it->second].points.push_back(
          {.x = static_cast<double>(p.position), .y = y});
    }
  }
  return spec;
}

}  // namespace

PlotSpec StreamFalsePositivePlot(const std::vector<StreamPoint>& points) {
  return RatePlot(points, "False positives along the stream (fixed memory)",
                  "fresh URLs called seen", &StreamPoint::fpr_measured,
                  &StreamPoint::fpr_formula);
}

PlotSpec StreamFalseNegativePlot(const std::vector<StreamPoint>& points) {
  return RatePlot(points, "False negatives along the stream",
                  "repeats called fresh", &StreamPoint::fnr_measured,
                  &StreamPoint::fnr_formula);
}

std::string StreamSection(const StreamOptions& options,
                          const std::vector<StreamPoint>& points) {
  std::string out = absl::StrFormat(
      "## The stream: a seen-set that must forget\n\n"
      "%d positions, %.0f %% of them repeating one of the last %d distinct "
      "URLs; the stable and generational filters at %s each, the scalable "
      "filter free to grow (started for the window). Rates are per stretch "
      "between two points: false positives over the fresh URLs, false "
      "negatives over the repeats. Plots: stream_fpr.svg, stream_fnr.svg; "
      "every point in stream.csv.\n\n",
      options.positions, 100 * options.repeat_share, options.window,
      points.empty() ? std::string("-")
                     : absl::StrCat(points.front().memory_bytes, " bytes"));
  out +=
      "| structure | position | memory | FPR measured | FPR formula | "
      "FNR measured | FNR formula |\n|---|---|---|---|---|---|---|\n";
  auto rate = [](double r) {
    return std::isnan(r) ? std::string("-") : absl::StrFormat("%.3g", r);
  };
  // The last point of each structure, and one near the middle.
  const size_t per_point = 3;
  const size_t rows = points.size() / per_point;
  for (size_t pick : {rows / 2, rows - 1}) {
    for (size_t i = 0; i < per_point && pick < rows; ++i) {
      const StreamPoint& p = points[pick * per_point + i];
      absl::StrAppendFormat(&out, "| %s | %d | %d | %s | %s | %s | %s |\n",
                            p.structure, p.position, p.memory_bytes,
                            rate(p.fpr_measured), rate(p.fpr_formula),
                            rate(p.fnr_measured), rate(p.fnr_formula));
    }
  }
  out += "\n";
  return out;
}

absl::Status WriteStreamOutputs(const std::vector<StreamPoint>& points,
                                const std::string& dir) {
  std::ofstream csv(dir + "/stream.csv", std::ios::trunc);
  csv << "structure,position,memory_bytes,fresh,fresh_called_seen,repeats,"
         "repeats_called_fresh,fpr_measured,fpr_formula,fnr_measured,"
         "fnr_formula\n";
  auto cell = [](double v) {
    return std::isnan(v) ? std::string() : absl::StrFormat("%.6g", v);
  };
  for (const StreamPoint& p : points) {
    csv << absl::StrCat(p.structure, ",", p.position, ",", p.memory_bytes, ",",
                        p.fresh, ",", p.fresh_called_seen, ",", p.repeats, ",",
                        p.repeats_called_fresh, ",", cell(p.fpr_measured), ",",
                        cell(p.fpr_formula), ",", cell(p.fnr_measured), ",",
                        cell(p.fnr_formula), "\n");
  }
  if (!csv)
    return absl::UnavailableError("cannot write " + dir + "/stream.csv");
  const std::pair<const char*, PlotSpec> plots[] = {
      {"stream_fpr.svg", StreamFalsePositivePlot(points)},
      {"stream_fnr.svg", StreamFalseNegativePlot(points)}};
  for (const auto& [name, spec] : plots) {
    std::ofstream svg(dir + "/" + name, std::ios::trunc);
    svg << RenderSvg(spec);
    if (!svg)
      return absl::UnavailableError(
          absl::StrCat("cannot write ", dir, "/", name));
  }
  return absl::OkStatus();
}

}  // namespace sieve::study
