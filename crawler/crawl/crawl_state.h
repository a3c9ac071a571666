// crawler/crawl/crawl_state.h: what a crawl saves beside the Frontier so it can
// resume: the counters, the seeds' hosts (the scope), pages per host, and how
// far pages.jsonl had got.
//
// Layout under OUT/checkpoint/:
//   CURRENT              the name of the live snapshot ("ckpt-000042"),
//   replaced atomically ckpt-000042/frontier Frontier::Checkpoint's snapshot
//   ckpt-000042/state.json   this state (CrawlState), with pages_offset
// A snapshot directory is complete (fsynced) before CURRENT names it, and
// CURRENT is written to a temporary file, fsynced and renamed, so a crash at
// any moment leaves the previous snapshot readable. The frontier and state.json
// of one snapshot describe the same instant: the crawl loop writes them with no
// page between "fetched" and "recorded", so every URL the frontier counts as
// done has its line below pages_offset and every other URL is still queued.
#ifndef SIEVE_CRAWLER_CRAWL_CRAWL_STATE_H_
#define SIEVE_CRAWLER_CRAWL_CRAWL_STATE_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontier/frontier.h"
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
  uint64_t beyond_depth = 0;       // Links past max_depth.
  uint64_t robots_fetches = 0;     // robots.txt requests.
  uint64_t robots_disallowed = 0;  // URLs robots.txt forbade (never fetched).
  uint64_t throttled = 0;          // 429/503 answers sent back to the frontier.
  uint64_t capacity_warnings = 0;
  double run_seconds = 0;  // Wall time crawled, all runs together.
};

struct CrawlState {
  uint64_t pages_offset = 0;  // Bytes of pages.jsonl covered by this snapshot.
  uint64_t sequence = 0;      // Snapshot number.
  CrawlCounters counters;
  std::vector<std::string> seed_hosts;
  std::map<std::string, uint64_t>
      pages_per_host;  // Page fetches started, per host.
};

nlohmann::json CountersToJson(const CrawlCounters& counters);

// Writes `state` and `frontier`'s snapshot as snapshot number state.sequence
// under `dir` (OUT/checkpoint), publishes it through CURRENT and deletes older
// snapshots. Blocks the frontier for its duration.
[[nodiscard]] absl::Status WriteCheckpoint(const std::filesystem::path& dir,
                                           const CrawlState& state,
                                           Frontier& frontier);

struct RestoredCrawl {
  CrawlState state;
  std::unique_ptr<Frontier> frontier;
};

// Loads the snapshot CURRENT names. NotFound when there is none.
[[nodiscard]] absl::StatusOr<RestoredCrawl> ReadCheckpoint(
    const std::filesystem::path& dir, FrontierOptions options);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CRAWL_CRAWL_STATE_H_
