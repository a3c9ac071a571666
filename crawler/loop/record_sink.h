// crawler/loop/record_sink.h: where the crawl's records go: pages.jsonl (one
// PageRecord per URL the frontier counts as done) and skipped.jsonl (with
// output.skipped: each URL found and not fetched, once per reason).
//
// Owns: the two files' writers, and the counts of what they record, counted
// here and nowhere else: pages, bytes, truncated, requisites, links_found,
// links_new, failures (by error code), skipped (by reason), the link fates
// of crawler/policy/link_fate.h (off_site, filtered, traps, ...,
// robots_disallowed), and the records' HTTP status classes (for the
// metrics).
//
// The order of records is the loop's (Crawler::Impl::WriteRecord holds a
// record behind the pages still parsing); the sink writes what it is given,
// when it is given it.
//
// Surprises first:
//   - Not thread-safe: the crawl loop's thread only.
//   - A write error is returned (the loop makes it fatal); the record is
//     still counted, as it was before the sink existed.
//   - Only once a record is on disk may a shared frontier let the URL go
//     (CrawlFrontier::RecordWritten).
//
// Example:
//   absl::StatusOr<std::unique_ptr<RecordSink>> sink = RecordSink::Open(
//       out, /*resume=*/false, state, /*skipped=*/true, counters, &frontier);
//   absl::Status s = (*sink)->Write(record);
#ifndef SIEVE_CRAWLER_LOOP_RECORD_SINK_H_
#define SIEVE_CRAWLER_LOOP_RECORD_SINK_H_

#include <filesystem>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crawler/loop/crawl_state.h"
#include "crawler/output/metrics_text.h"
#include "crawler/output/page_record.h"
#include "crawler/output/skipped_log.h"
#include "crawler/policy/link_policy.h"
#include "frontier/crawl_frontier.h"

namespace sieve {

class RecordSink {
 public:
  // Opens OUT/pages.jsonl (and OUT/skipped.jsonl with `skipped`); with
  // `resume`, first cuts them back to `state`'s offsets. `counters` and
  // `frontier` (told of each record written; may be null) must outlive the
  // sink.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<RecordSink>> Open(
      const std::filesystem::path& out, bool resume, const CrawlState& state,
      bool skipped, CrawlCounters& counters, CrawlFrontier* frontier);

  // Appends `record` to pages.jsonl and counts it; `count_links`: its
  // links_found/links_new count as links (not a parsed sitemap's: its
  // entries are sitemap_urls). Cost: one buffered write.
  [[nodiscard]] absl::Status Write(const PageRecord& record,
                                   bool count_links = true);

  // Writes `url` (found on `found_on`, "" for a seed) to skipped.jsonl once
  // per reason, and counts what it writes. A no-op without output.skipped.
  [[nodiscard]] absl::Status Skipped(std::string_view url,
                                     std::string_view found_on,
                                     SkipReason reason);

  // Counts the fates of links found on `found_on` (a page, a sitemap, a
  // redirect) and writes each refused one with Skipped.
  [[nodiscard]] absl::Status CountLinks(const LinkOutcomes& links,
                                        std::string_view found_on);

  // fsyncs both files and sets `state`'s offsets (before a checkpoint).
  [[nodiscard]] absl::Status Sync(CrawlState& state);

  // True with output.skipped: the link policy hands back refused links.
  bool records_skipped() const { return skipped_ != nullptr; }
  // Records by HTTP status class: [0] no status, [1] 1xx ... [5] 5xx.
  const StatusClassCounts& status_classes() const { return status_classes_; }

 private:
  RecordSink(CrawlCounters& counters, CrawlFrontier* frontier)
      : counters_(counters), frontier_(frontier) {}

  std::unique_ptr<PagesWriter> pages_;
  std::unique_ptr<SkippedLog> skipped_;  // With output.skipped.
  StatusClassCounts status_classes_{};
  CrawlCounters& counters_;
  CrawlFrontier* frontier_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_RECORD_SINK_H_
