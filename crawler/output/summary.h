// crawler/output/summary.h: summary.json, written at the end of each run of a
// crawl.
//
//   {"stopped_because":"finished","started_at":"2026-11-26T09:30:00.000Z",
//    "finished_at":"2026-11-26T09:30:12.300Z","seconds":12.3,"pages_this_run":3076,
//    "pages_per_second":250.1,"cpu_seconds":9.8,
//    "peak_rss_bytes":..., "counters":{...CrawlCounters...},
//    "frontier":{...every FrontierStats field, SIEVE_FRONTIER_STATS...},
//    "fetch":{"connections_opened":...,"connections_reused":...,
//             "tls_full_handshakes":...,"tls_resumed_handshakes":...,
//             "dns_lookups":...}  (this run; fetch/fetch_counters.h),
//    "filter":{"capacity":...,"estimated_count":...,"estimated_fp_rate":...}}
#ifndef SIEVE_CRAWLER_OUTPUT_SUMMARY_H_
#define SIEVE_CRAWLER_OUTPUT_SUMMARY_H_

#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "crawler/loop/crawler.h"

// Times and rates are this run's (started_at, finished_at, seconds,
// pages_this_run, pages_per_second = pages_this_run / seconds; stopped_because
// is StopReasonName); counters are all runs' of the output directory.

namespace sieve {

std::string SummaryToJson(const CrawlSummary& summary);

// Writes SummaryToJson to `path`, replacing it atomically and durably
// (filter/durable_file.h: fsync of the file and its directory).
[[nodiscard]] absl::Status WriteSummaryJson(const std::filesystem::path& path,
                                            const CrawlSummary& summary);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_OUTPUT_SUMMARY_H_
