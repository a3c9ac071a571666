// crawler/loop/crawl_state.h: what a crawl saves beside the frontier so it can
// resume: the counters, the seeds' hosts (the scope), and how far pages.jsonl
// had got.
//
// A checkpoint is one snapshot (frontier/snapshot.h) under OUT/checkpoint/:
//   CURRENT                        the live snapshot's name, replaced atomically
//   ckpt-000042/MANIFEST           format version, every file's size, checksum
//   ckpt-000042/crawl.state        this state (CrawlState) as JSON, with the
//                                  WARC files' lengths
//   ckpt-000042/frontier.state,
//   ckpt-000042/sieve/...          the frontier's files (CrawlFrontier::
//                                  Checkpoint)
// The frontier's files and crawl.state of one snapshot describe the same
// instant: the crawl loop writes them with no page between "fetched" and
// "recorded", so every URL the frontier counts as done has its line below
// pages_offset and every other URL is still queued.
#ifndef SIEVE_CRAWLER_LOOP_CRAWL_STATE_H_
#define SIEVE_CRAWLER_LOOP_CRAWL_STATE_H_

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/output/warc_writer.h"
#include "crawler/policy/skip_reason.h"
#include "fetch/fetch_failure.h"
#include "frontier/crawl_frontier.h"
#include "frontier/snapshot.h"
#include "nlohmann/json_fwd.hpp"

namespace sieve {

// Cumulative counts of a crawl (they survive resume).
struct CrawlCounters {
  uint64_t pages = 0;        // Records written to pages.jsonl.
  uint64_t pages_ok = 0;     // Of which 2xx.
  uint64_t redirects = 0;    // Of which 3xx.
  uint64_t http_errors = 0;  // Of which 4xx/5xx.
  uint64_t fetch_errors =
      0;  // Of which transport errors (timeout, reset, ...).
  uint64_t too_many_redirects = 0;
  // Seeds (or their robots.txt) that redirected to a host of their own,
  // taken into the scope as a seed's.
  uint64_t seeds_redirected = 0;
  uint64_t html_pages = 0;  // Pages parsed for links.
  uint64_t truncated = 0;
  uint64_t bytes = 0;  // Body bytes.
  uint64_t links_found = 0;
  uint64_t links_new = 0;
  uint64_t nofollow_pages =
      0;  // Pages whose links were not followed (meta/X-Robots-Tag).
  uint64_t nofollow_links = 0;  // rel=nofollow links skipped.
  uint64_t noindex_pages = 0;
  uint64_t off_site = 0;  // Links outside the scope.
  uint64_t filtered = 0;  // Links refused by allow/deny patterns.
  uint64_t traps =
      0;  // Links refused by trap control (length, repeats, outlinks).
  uint64_t query_variant_traps = 0;  // Of traps: past the query variants cap.
  uint64_t calendar_traps = 0;       // Of traps: past the date variants cap.
  uint64_t session_ids = 0;     // Links whose session ID was cut from the URL.
  uint64_t beyond_depth = 0;    // Links past max_depth.
  uint64_t robots_fetches = 0;  // robots.txt requests.
  // robots.txt answers 429/5xx that held their host's URLs back.
  uint64_t robots_unavailable = 0;
  uint64_t robots_disallowed = 0;  // URLs robots.txt forbade (never fetched).
  uint64_t throttled = 0;          // 429/503 answers the frontier will retry.
  uint64_t given_up = 0;  // URLs recorded as given up (retries exhausted).
  // Fetches refused by the private-address guard (pages and robots.txt).
  uint64_t blocked_addresses = 0;
  uint64_t capacity_warnings = 0;
  uint64_t sitemaps = 0;          // Sitemap files fetched and parsed.
  uint64_t sitemap_urls = 0;      // Page URLs they listed (before any rule).
  uint64_t sitemap_urls_new = 0;  // Of which the frontier queued.
  uint64_t sitemap_errors = 0;    // Sitemaps broken or cut at a limit.
  uint64_t warc_responses = 0;    // Response records written (WARC on).
  uint64_t warc_revisits = 0;     // Revisit records: payloads seen before.
  uint64_t warc_bytes = 0;        // Compressed WARC bytes written.
  double run_seconds = 0;         // Wall time crawled, all runs together.
  // Records per error code (fetch/fetch_failure.h), indexed by FailureCode.
  std::array<uint64_t, kFailureCodeCount> failures{};
  uint64_t requisites = 0;  // Records of page requisites (page_requisites).
  // Records written to skipped.jsonl per reason, indexed by SkipReason
  // (crawler/output/skipped_log.h): each URL once per reason.
  std::array<uint64_t, kSkipReasonCount> skipped{};
};

struct CrawlState {
  uint64_t pages_offset = 0;  // Bytes of pages.jsonl covered by this snapshot.
  // Bytes of skipped.jsonl covered by this snapshot (0 in a crawl.state
  // written before skipped.jsonl existed).
  uint64_t skipped_offset = 0;
  // With output.warc: every WARC file of the crawl and its durable length at
  // the same instant as pages_offset (WarcWriter::Sync); --resume cuts the
  // files back to it (RecoverWarcDirectory).
  std::vector<WarcFileState> warc_files;
  uint64_t sequence = 0;  // Snapshot number.
  CrawlCounters counters;
  std::vector<std::string> seed_hosts;
  // The domain budget's table (DomainBudget::Save), kept in the snapshot as
  // the file domains.budget; empty when it tracks no domain.
  std::string domain_budget;
};

nlohmann::json CountersToJson(const CrawlCounters& counters);

// Writes `state` and `frontier`'s files as one new snapshot under `dir`
// (OUT/checkpoint), publishes it through CURRENT and deletes older snapshots.
// `cache` (may be null) spares re-reading files linked from the last one.
// A revisit crawl's per-URL history is in the frontier's store
// (CrawlFrontier::UrlRecords), so in the frontier's files.
[[nodiscard]] absl::Status WriteCheckpoint(const std::filesystem::path& dir,
                                           const CrawlState& state,
                                           CrawlFrontier& frontier,
                                           SnapshotChecksumCache* cache);

// Decodes crawl.state's JSON. DataLoss naming `source` when it does not
// decode (bad JSON, a missing key, a value of the wrong type or range);
// FailedPrecondition for another format. Cost: O(|text|).
//   absl::StatusOr<sieve::CrawlState> state =
//       sieve::DecodeCrawlState(text, "ckpt-000042/crawl.state");
[[nodiscard]] absl::StatusOr<CrawlState> DecodeCrawlState(
    std::string_view text, std::string_view source);

// The crawl's own file of a verified snapshot. DataLoss names the file when
// it does not decode; FailedPrecondition for a snapshot that keeps a revisit
// history as the older `crawl.history` file (not read: resuming without it
// would lose every URL's validators and schedule).
[[nodiscard]] absl::StatusOr<CrawlState> ReadCrawlState(
    const SnapshotReader& snapshot);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_CRAWL_STATE_H_
