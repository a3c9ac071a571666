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

// Every count of CrawlCounters once, as X(name) with what it counts, in the
// order summary.json and crawl.state list them (crawl_state.cc reads and
// writes them from this list; a field missing here fails to compile there).
// Each is counted once, by the owner that does the thing. What the frontier
// decides (throttled answers, URLs given up, retries) is the frontier's to
// count: FrontierStats (frontier/frontier_stats.h), not listed here.
// clang-format off
#define SIEVE_CRAWL_COUNTERS(X)                                              \
  X(pages)               /* Records written to pages.jsonl. */               \
  X(pages_ok)            /* Of which 2xx. */                                 \
  X(redirects)           /* Of which 3xx. */                                 \
  X(http_errors)         /* Of which 4xx/5xx. */                             \
  X(fetch_errors)        /* Of which transport errors (timeout, reset...). */\
  X(too_many_redirects)                                                      \
  /* Seeds (or their robots.txt) redirected to a host of their own, taken */ \
  /* into the scope as a seed's. */                                          \
  X(seeds_redirected)                                                        \
  X(html_pages)          /* Pages parsed for links. */                       \
  X(truncated)                                                               \
  X(bytes)               /* Body bytes. */                                   \
  X(links_found)         /* Links of pages and redirects, not sitemaps. */   \
  X(links_new)           /* Of which the frontier queued. */                 \
  X(nofollow_pages)      /* Pages whose links were not followed. */          \
  X(nofollow_links)      /* rel=nofollow links skipped. */                   \
  X(noindex_pages)                                                           \
  X(off_site)            /* Links outside the scope. */                      \
  X(filtered)            /* Links refused by allow/deny patterns. */         \
  X(traps)               /* Links refused by trap control. */                \
  X(query_variant_traps) /* Of traps: past the query variants cap. */        \
  X(calendar_traps)      /* Of traps: past the date variants cap. */         \
  X(session_ids)         /* Links whose session ID was cut from the URL. */  \
  X(beyond_depth)        /* Links past max_depth. */                         \
  X(robots_fetches)      /* robots.txt requests. */                          \
  /* robots.txt answers 429/5xx that held their host's URLs back. */         \
  X(robots_unavailable)                                                      \
  X(robots_disallowed)   /* URLs robots.txt forbade (never fetched). */      \
  /* Fetches refused by the private-address guard (pages, robots.txt). */   \
  X(blocked_addresses)                                                       \
  X(capacity_warnings)                                                       \
  X(sitemaps)            /* Sitemap files fetched and parsed. */             \
  X(sitemap_urls)        /* Page URLs they listed (before any rule). */      \
  X(sitemap_urls_new)    /* Of which the frontier queued. */                 \
  X(sitemap_errors)      /* Sitemaps broken or cut at a limit. */            \
  X(warc_responses)      /* Response records written (WARC on). */           \
  X(warc_revisits)       /* Revisit records: payloads seen before. */        \
  X(warc_bytes)          /* Compressed WARC bytes written. */                \
  X(requisites)          /* Records of page requisites (page_requisites). */\
  X(render_pages)        /* Pages rendered in Chromium (render.mode). */     \
  X(render_errors)       /* Renders that failed (static links kept). */      \
  X(render_links)        /* Links rendering added (in links_found). */       \
  /* Requests of renders fetched by the crawl (no page records). */          \
  X(subresources_fetched)                                                    \
  X(subresources_failed)  /* Fetched with no HTTP answer. */                 \
  X(subresources_refused_robots)  /* robots.txt disallows them. */           \
  /* Their origin's robots.txt unavailable (429, 5xx, no answer). */        \
  X(subresources_refused_robots_unknown)                                     \
  X(subresources_refused_private) /* The private-address guard. */           \
  /* Host unreachable, bad URL, or the crawl stopping. */                    \
  X(subresources_refused_other)                                              \
  /* Refused in the browser: a method or resource type not in              \
     render.methods / render.resource_types, or past the render's budget  \
     (requests, bytes, time); counted from the render's requests. */        \
  X(subresources_refused_method)                                             \
  X(subresources_refused_type)                                               \
  X(subresources_refused_budget)                                              \
  /* The browser pool's (render/browser_pool.h), added by the loop: */       \
  X(render_browser_spawns)   /* Browsers started, respawns included. */      \
  X(render_browser_crashes)  /* Browsers that died, hung, failed to start. */\
  X(render_browser_retirements)  /* Replaced for age or memory. */
// clang-format on

// Cumulative counts of a crawl (they survive resume). Every count's
// Default: 0 (a fresh crawl).
struct CrawlCounters {
#define SIEVE_COUNTER_MEMBER(name) uint64_t name = 0;
  SIEVE_CRAWL_COUNTERS(SIEVE_COUNTER_MEMBER)
#undef SIEVE_COUNTER_MEMBER
  double run_seconds = 0;  // Wall time crawled, all runs together.
  // Records per error code (fetch/fetch_failure.h), indexed by FailureCode.
  std::array<uint64_t, kFailureCodeCount> failures{};
  // Records written to skipped.jsonl per reason, indexed by SkipReason
  // (crawler/output/skipped_log.h): each URL once per reason.
  std::array<uint64_t, kSkipReasonCount> skipped{};
};

// What a checkpoint saves of the crawl besides the frontier's files (the
// defaults are a fresh crawl's).
struct CrawlState {
  // Bytes of pages.jsonl covered by this snapshot. Default: 0.
  uint64_t pages_offset = 0;
  // Bytes of skipped.jsonl covered by this snapshot (0 in a crawl.state
  // written before skipped.jsonl existed). Default: 0.
  uint64_t skipped_offset = 0;
  // With output.warc: every WARC file of the crawl and its durable length at
  // the same instant as pages_offset (WarcWriter::Sync); --resume cuts the
  // files back to it (RecoverWarcDirectory). Default: none.
  std::vector<WarcFileState> warc_files;
  uint64_t sequence = 0;   // Snapshot number. Default: 0.
  CrawlCounters counters;  // Default: all 0.
  // The seeds' hosts (host[:port]), a redirected seed's target's included.
  // Default: none.
  std::vector<std::string> seed_hosts;
  // The domain budget's table (DomainBudget::Save), kept in the snapshot as
  // the file domains.budget; empty when it tracks no domain. Default: "".
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
