// study/svg_plot.h: small line and scatter plots as standalone SVG
// text, for the study's report (no plotting library: the output is a few
// hundred lines a browser opens directly).
//
// Axes are logarithmic (base 10) with a tick and label at each power of ten, a
// grid, axis labels, a title and a legend to the right. Points flagged
// `extrapolated` are drawn hollow and joined by dashed segments.
//
// Example:
//   PlotSpec plot{.title = "Memory", .x_label = "URLs", .y_label = "bytes"};
//   plot.series.push_back(
//       {.label = "classic p=0.01", .points = {{1e3, 1.2e3, false}}});
//   std::string svg = RenderSvg(plot);
#ifndef SIEVE_STUDY_SVG_PLOT_H_
#define SIEVE_STUDY_SVG_PLOT_H_

#include <string>
#include <vector>

namespace sieve::study {

struct PlotPoint {
  double x = 0;
  double y = 0;
  bool extrapolated = false;
};

struct PlotSeries {
  std::string label = {};
  std::vector<PlotPoint> points = {};
  // Draw markers only (no connecting line). Default: false.
  bool markers_only = false;
};

struct PlotSpec {
  std::string title = {};
  std::string x_label = {};
  std::string y_label = {};
  std::vector<PlotSeries> series = {};
  // Also draw the line y = x (for measured vs predicted). Default: false.
  bool diagonal = false;
};

// The plot as an SVG document. Points with x <= 0 or y <= 0 (not drawable on
// log axes) are skipped. Cost: linear in the number of points.
std::string RenderSvg(const PlotSpec& spec);

}  // namespace sieve::study

#endif  // SIEVE_STUDY_SVG_PLOT_H_
