#include "study/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace sieve::study {
namespace {

constexpr double kWidth = 900;
constexpr double kHeight = 520;
constexpr double kLeft = 80;
constexpr double kRight = 280;  // Room for the legend.
constexpr double kTop = 40;
constexpr double kBottom = 60;

// A palette that stays apart on screen and in grey print (Tableau 10 + darker
// variants).
constexpr const char* kColors[] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
    "#ff9da7", "#9c755f", "#bab0ac", "#1f4e79", "#a0521d", "#8b1a1a", "#2f6f6a",
    "#2e6b2a", "#8a7200", "#6b3f63", "#b05a66", "#5c4433", "#6e6660"};

std::string Escape(const std::string& text) {
  return absl::StrReplaceAll(text,
                             {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}});
}

struct Axis {
  double low_exponent;   // floor(log10(min))
  double high_exponent;  // ceil(log10(max))
  double pixel_low;
  double pixel_high;
  double Map(double value) const {
    const double t =
        (std::log10(value) - low_exponent) / (high_exponent - low_exponent);
    return pixel_low + t * (pixel_high - pixel_low);
  }
};

Axis MakeAxis(double min_value, double max_value, double pixel_low,
              double pixel_high) {
  Axis axis{std::floor(std::log10(min_value)), std::ceil(std::log10(max_value)),
            pixel_low, pixel_high};
  if (axis.high_exponent <= axis.low_exponent)
    axis.high_exponent = axis.low_exponent + 1;
  return axis;
}

std::string PowerLabel(int exponent) {
  if (exponent >= 0 && exponent <= 3)
    return absl::StrCat(static_cast<int>(std::pow(10, exponent)));
  return absl::StrCat("1e", exponent);
}

bool Drawable(const PlotPoint& p) {
  return p.x > 0 && p.y > 0 && std::isfinite(p.x) && std::isfinite(p.y);
}

}  // namespace

std::string RenderSvg(const PlotSpec& spec) {
  double min_x = std::numeric_limits<double>::infinity(), max_x = 0;
  double min_y = std::numeric_limits<double>::infinity(), max_y = 0;
  for (const PlotSeries& series : spec.series) {
    for (const PlotPoint& p : series.points) {
      if (!Drawable(p)) continue;
      min_x = std::min(min_x, p.x);
      max_x = std::max(max_x, p.x);
      min_y = std::min(min_y, p.y);
      max_y = std::max(max_y, p.y);
    }
  }
  if (max_x == 0) min_x = 1, max_x = 10, min_y = 1, max_y = 10;
  if (spec.diagonal) {
    min_x = min_y = std::min(min_x, min_y);
    max_x = max_y = std::max(max_x, max_y);
  }
  const Axis x_axis = MakeAxis(min_x, max_x, kLeft, kWidth - kRight);
  const Axis y_axis = MakeAxis(min_y, max_y, kHeight - kBottom, kTop);

  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
      "height=\"%.0f\" "
      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect fill=\"white\" width=\"100%%\" height=\"100%%\"/>\n"
      "<text x=\"%.0f\" y=\"24\" font-size=\"16\" "
      "text-anchor=\"middle\">%s</text>\n",
      kWidth, kHeight, kWidth, kHeight, (kLeft + kWidth - kRight) / 2,
      Escape(spec.title));

  // Grid, ticks and labels at each power of ten.
  for (int e = static_cast<int>(x_axis.low_exponent); e <= x_axis.high_exponent;
       ++e) {
    const double x = x_axis.Map(std::pow(10.0, e));
    absl::StrAppendFormat(
        &svg,
        "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
        "stroke=\"#ddd\"/>\n"
        "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
        x, kTop, x, kHeight - kBottom + 5, x, kHeight - kBottom + 20,
        PowerLabel(e));
  }
  for (int e = static_cast<int>(y_axis.low_exponent); e <= y_axis.high_exponent;
       ++e) {
    const double y = y_axis.Map(std::pow(10.0, e));
    absl::StrAppendFormat(
        &svg,
        "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
        "stroke=\"#ddd\"/>\n"
        "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
        kLeft - 5, y, kWidth - kRight, y, kLeft - 8, y + 4, PowerLabel(e));
  }
  absl::StrAppendFormat(
      &svg,
      "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
      "fill=\"none\" stroke=\"#333\"/>\n"
      "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n"
      "<text transform=\"translate(18 %.0f) rotate(-90)\" "
      "text-anchor=\"middle\">%s</text>\n",
      kLeft, kTop, kWidth - kRight - kLeft, kHeight - kBottom - kTop,
      (kLeft + kWidth - kRight) / 2, kHeight - 15, Escape(spec.x_label),
      (kTop + kHeight - kBottom) / 2, Escape(spec.y_label));

  if (spec.diagonal) {
    const double low = std::pow(10.0, x_axis.low_exponent);
    const double high = std::pow(10.0, x_axis.high_exponent);
    absl::StrAppendFormat(
        &svg,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
        "stroke-dasharray=\"2 3\"/>\n",
        x_axis.Map(low), y_axis.Map(low), x_axis.Map(high), y_axis.Map(high));
  }

  for (size_t s = 0; s < spec.series.size(); ++s) {
    const PlotSeries& series = spec.series[s];
    const char* color = kColors[s % (sizeof(kColors) / sizeof(kColors[0]))];
    const PlotPoint* previous = nullptr;
    for (const PlotPoint& p : series.points) {
      if (!Drawable(p)) continue;
      const double x = x_axis.Map(p.x);
      const double y = y_axis.Map(p.y);
      if (previous != nullptr && !series.markers_only) {
        absl::StrAppendFormat(
            &svg,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"%s\" stroke-width=\"2\"%s/>\n",
            x_axis.Map(previous->x), y_axis.Map(previous->y), x, y, color,
            p.extrapolated ? " stroke-dasharray=\"6 4\"" : "");
      }
      absl::StrAppendFormat(
          &svg,
          "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" stroke=\"%s\" "
          "fill=\"%s\"/>\n",
          x, y, color, p.extrapolated ? "white" : color);
      previous = &p;
    }
    // Legend entry.
    const double legend_y = kTop + 10 + 18 * static_cast<double>(s);
    const double legend_x = kWidth - kRight + 15;
    absl::StrAppendFormat(
        &svg,
        "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" "
        "stroke-width=\"%d\"/><circle cx=\"%.0f\" cy=\"%.0f\" r=\"3.5\" "
        "fill=\"%s\"/>\n<text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
        legend_x, legend_y, legend_x + 24, legend_y, color,
        series.markers_only ? 0 : 2, legend_x + 12, legend_y, color,
        legend_x + 30, legend_y + 4, Escape(series.label));
  }
  const double note_y =
      kTop + 10 + 18 * static_cast<double>(spec.series.size()) + 10;
  absl::StrAppendFormat(
      &svg,
      "<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\">hollow, dashed: "
      "extrapolated</text>\n",
      kWidth - kRight + 15, note_y);
  svg += "</svg>\n";
  return svg;
}

}  // namespace sieve::study
