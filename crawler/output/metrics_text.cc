#include "crawler/output/metrics_text.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "fetch/fetch_failure.h"

namespace sieve {
namespace {

// Writes the # HELP and # TYPE lines of one metric family.
void Family(std::string& out, absl::string_view name, absl::string_view type,
            absl::string_view help) {
  absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ",
                  type, "\n");
}

// A sample value as Prometheus reads it (floats in full, integers exact).
std::string Value(double v) { return absl::StrFormat("%.17g", v); }
std::string Value(uint64_t v) { return absl::StrCat(v); }

template <typename T>
void Sample(std::string& out, absl::string_view name, T value,
            absl::string_view labels = "") {
  absl::StrAppend(&out, name, labels.empty() ? "" : "{", labels,
                  labels.empty() ? "" : "}", " ", Value(value), "\n");
}

template <typename T>
void One(std::string& out, absl::string_view name, absl::string_view type,
         absl::string_view help, T value) {
  Family(out, name, type, help);
  Sample(out, name, value);
}

}  // namespace

void LatencyHistogram::Observe(double seconds) {
  for (size_t i = 0; i < kBounds.size(); ++i) {
    if (seconds <= kBounds[i]) {
      ++buckets_[i];
      break;
    }
  }
  ++count_;
  sum_ += seconds;
}

uint64_t LatencyHistogram::CumulativeCount(size_t i) const {
  uint64_t total = 0;
  for (size_t j = 0; j <= i && j < buckets_.size(); ++j) total += buckets_[j];
  return total;
}

namespace {

// Records written, their errors and bytes.
void AppendRecordMetrics(std::string& out, const CrawlMetrics& m) {
  const CrawlCounters& c = m.summary.counters;
  Family(out, "sieve_pages_total", "counter",
         "Records written to pages.jsonl by this process, by HTTP status "
         "class (none: no response).");
  static constexpr const char* kClasses[] = {"none", "1xx", "2xx",
                                             "3xx",  "4xx", "5xx"};
  for (size_t i = 0; i < m.status_classes.size(); ++i) {
    Sample(out, "sieve_pages_total", m.status_classes[i],
           absl::StrCat("status_class=\"", kClasses[i], "\""));
  }
  One(out, "sieve_pages_recorded_total", "counter",
      "Records in pages.jsonl, all runs of the crawl.", c.pages);
  Family(out, "sieve_errors_total", "counter",
         "Records with an error, by error code (docs/crawling.md, Error "
         "codes), all runs.");
  for (size_t i = 0; i < kFailureCodeCount; ++i) {
    Sample(
        out, "sieve_errors_total", c.failures[i],
        absl::StrCat("code=\"",
                     std::string(FailureCodeName(static_cast<FailureCode>(i))),
                     "\""));
  }
  One(out, "sieve_body_bytes_total", "counter",
      "Body bytes fetched (decoded), all runs.", c.bytes);
}

// The frontier, the Sieve's filter and the robots.txt cache now.
void AppendStateMetrics(std::string& out, const CrawlMetrics& m) {
  const CrawlSummary& s = m.summary;
  One(out, "sieve_queued_urls", "gauge", "URLs queued in the frontier.",
      s.frontier.queued);
  One(out, "sieve_in_flight", "gauge", "Transfers in flight.", m.in_flight);
  One(out, "sieve_hosts_active", "gauge",
      "Hosts with URLs queued or in flight.", s.frontier.hosts_active);
  One(out, "sieve_filter_estimated_urls", "gauge",
      "URLs the Sieve's Bloom filter holds, estimated.",
      s.filter_estimated_count);
  One(out, "sieve_filter_capacity", "gauge",
      "URLs the Sieve's filter is sized for (sieve.expected_urls).",
      s.filter_capacity);
  One(out, "sieve_filter_estimated_fp_rate", "gauge",
      "The filter's estimated false-positive rate now.",
      s.filter_estimated_fp_rate);
  One(out, "sieve_robots_fetches_total", "counter",
      "robots.txt files fetched, all runs.", s.counters.robots_fetches);
  One(out, "sieve_robots_cache_entries", "gauge",
      "Origins whose robots.txt rules are cached.", m.robots_cache_entries);
  One(out, "sieve_robots_cache_bytes", "gauge",
      "Bytes of cached robots.txt rules.", m.robots_cache_bytes);
}

// Rendering (render.mode): pages rendered, failed renders, the requests of
// renders by what became of them, the browsers alive and their lives.
void AppendRenderMetrics(std::string& out, const CrawlMetrics& m) {
  const CrawlCounters& c = m.summary.counters;
  One(out, "sieve_render_pages_total", "counter",
      "Pages rendered in Chromium, all runs.", c.render_pages);
  One(out, "sieve_render_errors_total", "counter",
      "Renders that failed (the page kept its static links), all runs.",
      c.render_errors);
  One(out, "sieve_render_links_total", "counter",
      "Links rendering added to pages' static links, all runs.",
      c.render_links);
  Family(out, "sieve_render_subresources_total", "counter",
         "Requests of renders, by fate (fetched by the crawl, failed, or "
         "refused and why), all runs.");
  const std::pair<const char*, uint64_t> kFates[] = {
      {"fetched", c.subresources_fetched},
      {"failed", c.subresources_failed},
      {"robots", c.subresources_refused_robots},
      {"robots_unknown", c.subresources_refused_robots_unknown},
      {"private_address", c.subresources_refused_private},
      {"other", c.subresources_refused_other},
      {"method", c.subresources_refused_method},
      {"type", c.subresources_refused_type},
      {"budget", c.subresources_refused_budget}};
  for (const auto& [fate, count] : kFates) {
    Sample(out, "sieve_render_subresources_total", count,
           absl::StrCat("fate=\"", fate, "\""));
  }
  One(out, "sieve_render_browsers_alive", "gauge",
      "Chromium browsers running now.", m.summary.render_browsers_alive);
  One(out, "sieve_render_browser_spawns_total", "counter",
      "Chromium browsers started, respawns after a crash included, all runs.",
      c.render_browser_spawns);
  One(out, "sieve_render_browser_crashes_total", "counter",
      "Chromium browsers that died, hung or failed to start, all runs.",
      c.render_browser_crashes);
  One(out, "sieve_render_browser_retirements_total", "counter",
      "Chromium browsers replaced for age (render.pages_per_browser) or "
      "memory (render.max_browser_mb), all runs.",
      c.render_browser_retirements);
}

// The memory budgets, the URLs skipped and the revisit plan.
void AppendBudgetMetrics(std::string& out, const CrawlMetrics& m) {
  const CrawlSummary& s = m.summary;
  Family(out, "sieve_budget_used", "gauge",
         "Use of each memory budget now, in its unit (docs/architecture.md, "
         "Memory).");
  for (const BudgetUse& b : s.budgets) {
    Sample(out, "sieve_budget_used", b.used,
           absl::StrCat("budget=\"", b.name, "\",unit=\"", b.unit, "\""));
  }
  Family(out, "sieve_budget_limit", "gauge",
         "Each memory budget's limit, in its unit.");
  for (const BudgetUse& b : s.budgets) {
    Sample(out, "sieve_budget_limit", b.limit,
           absl::StrCat("budget=\"", b.name, "\",unit=\"", b.unit, "\""));
  }
  Family(out, "sieve_skipped_total", "counter",
         "URLs found and not fetched, by reason, all runs.");
  for (const auto& [reason, count] : m.skipped) {
    Sample(out, "sieve_skipped_total", count,
           absl::StrCat("reason=\"", reason, "\""));
  }
  One(out, "sieve_revisit_planned_per_second", "gauge",
      "Revisits per second the adaptive schedule plans, within the request "
      "caps.",
      m.revisit_planned_per_second);
}

// A histogram family `name`: its buckets, sum and count.
void Histogram(std::string& out, absl::string_view name, absl::string_view help,
               const LatencyHistogram& h) {
  Family(out, name, "histogram", help);
  const std::string bucket = absl::StrCat(name, "_bucket");
  for (size_t i = 0; i < LatencyHistogram::kBounds.size(); ++i) {
    Sample(out, bucket, h.CumulativeCount(i),
           absl::StrCat("le=\"", LatencyHistogram::kBounds[i], "\""));
  }
  Sample(out, bucket, h.count(), "le=\"+Inf\"");
  Sample(out, absl::StrCat(name, "_sum"), h.sum());
  Sample(out, absl::StrCat(name, "_count"), h.count());
}

// The latency histograms of page fetches and renders, and the process's
// memory and CPU.
void AppendProcessMetrics(std::string& out, const CrawlMetrics& m) {
  Histogram(out, "sieve_fetch_duration_seconds",
            "Time of each page fetch, request to last byte, this process.",
            m.fetch_latency);
  Histogram(out, "sieve_render_seconds",
            "Time of each render that ended well, its requests' politeness "
            "waits included, this process.",
            m.render_latency);
  One(out, "process_resident_memory_bytes", "gauge",
      "Resident memory size in bytes.", m.resident_bytes);
  One(out, "process_cpu_seconds_total", "counter",
      "User and system CPU time of this run, seconds.", m.summary.cpu_seconds);
}

}  // namespace

std::string FormatPrometheusMetrics(const CrawlMetrics& m) {
  std::string out;
  AppendRecordMetrics(out, m);
  AppendStateMetrics(out, m);
  AppendBudgetMetrics(out, m);
  AppendRenderMetrics(out, m);
  AppendProcessMetrics(out, m);
  return out;
}

uint64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace sieve
