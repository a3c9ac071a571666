// crawler/output/metrics_text.h: the crawl's live metrics in the Prometheus
// text exposition format (version 0.0.4), written by hand: `sieve crawl
// --metrics ADDR:PORT` serves it at /metrics (crawler/output/metrics_server.h).
// docs/crawling.md ("Live metrics") lists every metric; `promtool check
// metrics` passes on it (tests/crawler/crawl/crawl_metrics_test.cc).
//
// Counters count since the crawl began (all runs of its output directory)
// unless named *_this_run; the fetch latency histogram is this process's.
//
// Example:
//   sieve::CrawlMetrics m{.summary = summary, .in_flight = 3};
//   m.fetch_latency.Observe(0.12);
//   std::string text = sieve::FormatPrometheusMetrics(m);
#ifndef SIEVE_CRAWLER_OUTPUT_METRICS_TEXT_H_
#define SIEVE_CRAWLER_OUTPUT_METRICS_TEXT_H_

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "crawler/loop/crawler.h"

namespace sieve {

// Fetch and render durations in fixed buckets (seconds; Prometheus histogram
// semantics: each bucket counts observations <= its bound).
class LatencyHistogram {
 public:
  static constexpr std::array<double, 12> kBounds = {
      0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
  // Cost: O(buckets).
  void Observe(double seconds);
  // Observations <= kBounds[i] (cumulative).
  uint64_t CumulativeCount(size_t i) const;
  uint64_t count() const { return count_; }
  double sum() const { return sum_; }

 private:
  std::array<uint64_t, kBounds.size()> buckets_{};  // Not cumulative.
  uint64_t count_ = 0;
  double sum_ = 0;
};

// Records written by HTTP status class: index 0 = no response, 1..5 = 1xx..5xx.
using StatusClassCounts = std::array<uint64_t, 6>;

struct CrawlMetrics {
  CrawlSummary summary;  // The summary so far (counters, frontier, filter).
  StatusClassCounts status_classes{};
  LatencyHistogram fetch_latency;
  LatencyHistogram render_latency;
  uint64_t in_flight = 0;
  uint64_t robots_cache_entries = 0;
  uint64_t robots_cache_bytes = 0;
  // URLs found and not fetched, by reason ("robots", "off_scope", ...), as
  // sieve_skipped_total{reason="..."}.
  std::vector<std::pair<std::string, uint64_t>> skipped;
  uint64_t resident_bytes = 0;  // The process's RSS now.
  // Adaptive revisits: revisits per second the allocation plans (0 otherwise).
  double revisit_planned_per_second = 0;
};

// The metrics as Prometheus text: # HELP and # TYPE lines, then samples.
std::string FormatPrometheusMetrics(const CrawlMetrics& metrics);

// The process's resident set size now (/proc/self/statm), or 0.
uint64_t ResidentBytes();

}  // namespace sieve

#endif  // SIEVE_CRAWLER_OUTPUT_METRICS_TEXT_H_
