// What the crawl shows of itself, as text: the progress line
// (crawler/output/progress.h), the Prometheus metrics
// (crawler/output/metrics_text.h) and summary.json
// (crawler/output/summary.h), here for the browser pool's figures: the
// rendered pages and browsers alive on the progress line while rendering is
// on, the pool's gauge and counters in /metrics and the `render` object.
#include <string>

#include "crawler/output/metrics_text.h"
#include "crawler/output/progress.h"
#include "crawler/output/summary.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace sieve {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ProgressLineTest, EndsWithRenderedPagesAndBrowsersWhileRendering) {
  ProgressSnapshot s{.pages = 12,
                     .errors = 1,
                     .queued = 3,
                     .in_flight = 2,
                     .hosts_active = 1,
                     .filter_estimated_count = 15,
                     .filter_capacity = 1000,
                     .filter_estimated_fp_rate = 0};
  const std::string plain =
      "pages 12 (2.5/s) | queued 3 | in flight 2 | hosts 1 | filter 15/1000 "
      "fpr 0 | errors 1";
  EXPECT_EQ(FormatProgressLine(s, 2.5), plain);
  s.rendering = true;
  s.rendered = 5;
  s.browsers_alive = 1;
  EXPECT_EQ(FormatProgressLine(s, 2.5), plain + " | rendered 5, browsers 1");
}

CrawlSummary RenderingSummary() {
  CrawlSummary s;
  s.counters.render_browser_spawns = 3;
  s.counters.render_browser_crashes = 2;
  s.counters.render_browser_retirements = 1;
  s.render_browsers_alive = 1;
  return s;
}

TEST(MetricsTextTest, ShowsTheBrowserPoolsGaugeAndCounters) {
  CrawlMetrics metrics;
  metrics.summary = RenderingSummary();
  const std::string text = FormatPrometheusMetrics(metrics);
  EXPECT_THAT(text, HasSubstr("# TYPE sieve_render_browsers_alive gauge\n"
                              "sieve_render_browsers_alive 1\n"));
  EXPECT_THAT(text,
              HasSubstr("# TYPE sieve_render_browser_spawns_total counter\n"
                        "sieve_render_browser_spawns_total 3\n"));
  EXPECT_THAT(text,
              HasSubstr("# TYPE sieve_render_browser_crashes_total counter\n"
                        "sieve_render_browser_crashes_total 2\n"));
  EXPECT_THAT(
      text, HasSubstr("# TYPE sieve_render_browser_retirements_total counter\n"
                      "sieve_render_browser_retirements_total 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("sieve_render_browser_pages")));
}

TEST(SummaryJsonTest, HasARenderObjectWithThePoolsFigures) {
  const nlohmann::json j = nlohmann::json::parse(
      SummaryToJson(RenderingSummary()), nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(j.contains("render")) << j.dump();
  const nlohmann::json& render = j["render"];
  EXPECT_EQ(render.value("browsers_alive", -1), 1) << render.dump();
  EXPECT_EQ(render.value("browser_spawns", -1), 3) << render.dump();
  EXPECT_EQ(render.value("browser_crashes", -1), 2) << render.dump();
  EXPECT_EQ(render.value("browser_retirements", -1), 1) << render.dump();
  // The counters are the crawl's (they survive --resume).
  EXPECT_EQ(j["counters"].value("render_browser_crashes", -1), 2);
}

}  // namespace
}  // namespace sieve
