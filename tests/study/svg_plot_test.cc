#include "study/svg_plot.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace sieve::study {
namespace {

int Occurrences(const std::string& text, std::string_view what) {
  int count = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1))
    ++count;
  return count;
}

TEST(RenderSvgTest, DrawsLogAxesLegendAndEveryDrawablePoint) {
  PlotSpec spec{.title = "Memory <test>", .x_label = "n", .y_label = "bytes"};
  spec.series.push_back(
      {.label = "classic p=0.01",
       .points = {{1e3, 1.2e3, false}, {1e4, 1.2e4, false}, {1e5, 0, false}}});
  spec.series.push_back(
      {.label = "exact", .points = {{1e3, 1e5, false}, {1e6, 1e8, true}}});
  const std::string svg = RenderSvg(spec);
  EXPECT_TRUE(
      absl::StartsWith(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_TRUE(absl::EndsWith(svg, "</svg>\n"));
  EXPECT_TRUE(absl::StrContains(svg, "Memory &lt;test&gt;"));
  EXPECT_TRUE(absl::StrContains(svg, "classic p=0.01"));
  // Decade ticks from 10^3 to 10^6 on x, 10^3 to 10^8 on y.
  EXPECT_TRUE(absl::StrContains(svg, ">1e6<"));
  EXPECT_TRUE(absl::StrContains(svg, ">1e8<"));
  // 4 drawable data points + 2 legend markers; the y = 0 point is skipped.
  EXPECT_EQ(Occurrences(svg, "<circle"), 6);
  // The segment into the extrapolated point is dashed, and its marker hollow.
  EXPECT_EQ(Occurrences(svg, "stroke-dasharray=\"6 4\""), 1);
  EXPECT_EQ(Occurrences(svg, "fill=\"white\"/>"), 1);
}

TEST(RenderSvgTest, EmptyPlotIsStillAValidDocument) {
  const std::string svg = RenderSvg(PlotSpec{.title = "empty"});
  EXPECT_TRUE(absl::EndsWith(svg, "</svg>\n"));
}

}  // namespace
}  // namespace sieve::study
