// crawler/loop/crawl_archive.h: the crawl's archive, one owner for what it
// keeps beyond pages.jsonl: its WARC files (crawler/output/warc_writer.h;
// each file's CDXJ index is written beside it when it closes).
//
// Owns: the WarcWriter (with output.warc), the WARC files of earlier runs
// (resume), and three of the crawl's counters, counted here and nowhere else:
// warc_responses, warc_revisits, warc_bytes.
//
// Life cycle: Open (on resume it first cuts every WARC file back to the
// checkpoint's lengths, so no record is torn), then Write once per answer
// (and WriteResource once per render),
// Sync at each checkpoint (every file's durable length), Close at the end.
//
// Surprises first:
//   - Not thread-safe: the crawl loop's thread only.
//   - An I/O error is the caller's to make fatal; the last checkpoint still
//     matches the files (recovery cuts the torn record on resume).
//
// Example:
//   absl::StatusOr<std::unique_ptr<CrawlArchive>> archive =
//       CrawlArchive::Open(config, out, resume, state.warc_files, counters);
//   absl::StatusOr<std::optional<WarcLocation>> at =
//       (*archive)->Write(response, start, std::nullopt);
#ifndef SIEVE_CRAWLER_LOOP_CRAWL_ARCHIVE_H_
#define SIEVE_CRAWLER_LOOP_CRAWL_ARCHIVE_H_

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/config/crawl_config.h"
#include "crawler/loop/crawl_state.h"
#include "crawler/output/warc_writer.h"
#include "fetch/fetch_types.h"

namespace sieve {

class CrawlArchive {
 public:
  // Recovers OUT/warc to `saved_files` when `resume` (also with WARC off, so
  // a crawl's files always match its checkpoint), then opens the writer when
  // config.output.warc. `counters` must outlive the archive.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<CrawlArchive>> Open(
      const CrawlConfig& config, const std::filesystem::path& out, bool resume,
      const std::vector<WarcFileState>& saved_files, CrawlCounters& counters);

  // Writes the exchange of `response` (fetched since `start`; `original`:
  // the archived copy a revisit refers to) when WARC is on and the wire was
  // captured; nullopt otherwise. Cost: one gzip member per record.
  [[nodiscard]] absl::StatusOr<std::optional<WarcLocation>> Write(
      FetchResponse& response, absl::Time start,
      std::optional<WarcOriginal> original);

  // Writes `resource` (a render's record, crawler/render/render_archive.h) as
  // a resource record; its bytes count in warc_bytes. REQUIRES: enabled().
  [[nodiscard]] absl::StatusOr<WarcLocation> WriteResource(
      const WarcResource& resource);

  // True when Write writes (output.warc on).
  bool enabled() const { return writer_ != nullptr; }

  // Every WARC file of the crawl with its durable length, for the checkpoint.
  [[nodiscard]] absl::StatusOr<std::vector<WarcFileState>> Sync();

  // Closes the open WARC file (its .cdxj is written).
  [[nodiscard]] absl::Status Close();

 private:
  explicit CrawlArchive(CrawlCounters& counters) : counters_(counters) {}

  std::unique_ptr<WarcWriter> writer_;  // With output.warc.
  // WARC files of earlier runs (resume), recovered and complete.
  std::vector<WarcFileState> earlier_files_;
  CrawlCounters& counters_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_CRAWL_ARCHIVE_H_
