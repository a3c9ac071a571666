#include "crawler/output/summary.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "crawler/output/page_record.h"
#include "filter/durable_file.h"
#include "nlohmann/json.hpp"

namespace sieve {

std::string SummaryToJson(const CrawlSummary& s) {
  nlohmann::ordered_json j;
  j["stopped_because"] = std::string(StopReasonName(s.stop_reason));
  j["started_at"] = FormatRfc3339Ms(s.started_at);
  j["finished_at"] = FormatRfc3339Ms(s.finished_at);
  j["seconds"] = s.seconds;
  j["pages_this_run"] = s.pages_this_run;
  j["pages_per_second"] =
      s.seconds > 0 ? static_cast<double>(s.pages_this_run) / s.seconds : 0.0;
  j["cpu_seconds"] = s.cpu_seconds;
  j["peak_rss_bytes"] = s.peak_rss_bytes;
  const FrontierStats& f = s.frontier;
  j["counters"] = CountersToJson(s.counters);
  // The frontier decides what is retried and what is given up, and counts
  // it (FrontierStats): shown here too under the names summaries had, one
  // count each.
  j["counters"]["throttled"] = f.throttled;
  j["counters"]["given_up"] = f.given_up;
  nlohmann::ordered_json& frontier = j["frontier"];
#define SIEVE_FRONTIER_FIELD(name, kind) frontier[#name] = f.name;
  SIEVE_FRONTIER_STATS(SIEVE_FRONTIER_FIELD)
#undef SIEVE_FRONTIER_FIELD
  j["fetch"] = {{"connections_opened", s.fetch.connections_opened},
                {"connections_reused", s.fetch.connections_reused},
                {"tls_full_handshakes", s.fetch.tls_full_handshakes},
                {"tls_resumed_handshakes", s.fetch.tls_resumed_handshakes},
                {"dns_lookups", s.fetch.dns_lookups}};
  // The browser pool's figures: its counts are the counters' (all runs),
  // browsers_alive is now.
  const CrawlCounters& c = s.counters;
  j["render"] = {{"browsers_alive", s.render_browsers_alive},
                 {"browser_spawns", c.render_browser_spawns},
                 {"browser_crashes", c.render_browser_crashes},
                 {"browser_retirements", c.render_browser_retirements}};
  j["filter"] = {{"capacity", s.filter_capacity},
                 {"estimated_count", s.filter_estimated_count},
                 {"estimated_fp_rate", s.filter_estimated_fp_rate},
                 {"bytes", s.filter_bytes},
                 {"bytes_on_disk", s.filter_bytes_on_disk}};
  nlohmann::ordered_json& budgets = j["budgets"];
  budgets = nlohmann::ordered_json::object();
  for (const BudgetUse& b : s.budgets) {
    budgets[b.name] = {{"used", b.used}, {"limit", b.limit}, {"unit", b.unit}};
  }
  return j.dump(2);
}

absl::Status WriteSummaryJson(const std::filesystem::path& path,
                              const CrawlSummary& summary) {
  return WriteFileAtomically(path, SummaryToJson(summary) + "\n");
}

std::string FormatSummaryTable(const CrawlSummary& s,
                               const std::filesystem::path& out) {
  const CrawlCounters& c = s.counters;
  std::string table;
  auto row = [&](std::string_view name, const std::string& value) {
    absl::StrAppend(&table, absl::StrFormat("  %-26s %s\n", name, value));
  };
  absl::StrAppend(&table, "crawl ", std::string(StopReasonName(s.stop_reason)),
                  " in ", absl::StrFormat("%.1f", s.seconds), " s; output in ",
                  out.string(), "\n");
  row("pages fetched",
      absl::StrFormat("%d (%.1f/s this run)", c.pages,
                      s.seconds > 0
                          ? static_cast<double>(s.pages_this_run) / s.seconds
                          : 0));
  row("  ok (2xx)", absl::StrCat(c.pages_ok));
  row("  redirects (3xx)", absl::StrCat(c.redirects));
  row("  HTTP errors (4xx/5xx)", absl::StrCat(c.http_errors));
  row("  fetch errors", absl::StrCat(c.fetch_errors));
  row("  HTML pages parsed", absl::StrCat(c.html_pages));
  row("bytes", absl::StrCat(c.bytes));
  row("links found / new", absl::StrCat(c.links_found, " / ", c.links_new));
  row("off-site / filtered / traps",
      absl::StrCat(c.off_site, " / ", c.filtered, " / ", c.traps));
  row("traps: query variants / calendar; session IDs cut",
      absl::StrCat(c.query_variant_traps, " / ", c.calendar_traps, "; ",
                   c.session_ids));
  row("beyond max depth", absl::StrCat(c.beyond_depth));
  row("nofollow links / pages",
      absl::StrCat(c.nofollow_links, " / ", c.nofollow_pages));
  row("robots.txt fetched", absl::StrCat(c.robots_fetches));
  row("robots.txt disallowed", absl::StrCat(c.robots_disallowed));
  row("robots.txt unavailable (429/5xx)", absl::StrCat(c.robots_unavailable));
  row("too many redirects", absl::StrCat(c.too_many_redirects));
  row("seeds redirected", absl::StrCat(c.seeds_redirected));
  row("throttled (429/503)", absl::StrCat(s.frontier.throttled));
  row("given up (no retries left)", absl::StrCat(s.frontier.given_up));
  std::string failures;
  for (size_t i = 0; i < kFailureCodeCount; ++i) {
    if (c.failures[i] == 0) continue;
    absl::StrAppend(&failures, failures.empty() ? "" : ", ",
                    std::string(FailureCodeName(static_cast<FailureCode>(i))),
                    " ", c.failures[i]);
  }
  row("errors by code", failures.empty() ? "none" : failures);
  if (s.frontier.hosts_unreachable > 0) {
    row("hosts unreachable / URLs",
        absl::StrCat(s.frontier.hosts_unreachable, " / ",
                     s.frontier.unreachable_urls));
  }
  row("blocked private addresses", absl::StrCat(c.blocked_addresses));
  row("sitemaps fetched / broken",
      absl::StrCat(c.sitemaps, " / ", c.sitemap_errors));
  row("URLs from sitemaps / new",
      absl::StrCat(c.sitemap_urls, " / ", c.sitemap_urls_new));
  if (c.warc_responses + c.warc_revisits > 0) {
    row("WARC responses / revisits",
        absl::StrCat(c.warc_responses, " / ", c.warc_revisits));
    row("WARC bytes", absl::StrCat(c.warc_bytes));
  }
  row("still queued", absl::StrCat(s.frontier.queued));
  if (s.frontier.reclaimed > 0) {
    // A shared crawl: URLs a stopped worker held, possibly fetched twice.
    row("taken over (maybe twice)", absl::StrCat(s.frontier.reclaimed));
  }
  row("filter count / capacity",
      absl::StrFormat("%.0f / %d (est. FPR %.2g)", s.filter_estimated_count,
                      s.filter_capacity, s.filter_estimated_fp_rate));
  row("connections opened / reused",
      absl::StrCat(s.fetch.connections_opened, " / ",
                   s.fetch.connections_reused));
  row("TLS handshakes full / resumed",
      absl::StrCat(s.fetch.tls_full_handshakes, " / ",
                   s.fetch.tls_resumed_handshakes));
  row("DNS lookups", absl::StrCat(s.fetch.dns_lookups));
  row("CPU seconds / peak RSS",
      absl::StrFormat("%.2f / %.1f MB", s.cpu_seconds,
                      static_cast<double>(s.peak_rss_bytes) / (1 << 20)));
  return table;
}

}  // namespace sieve
