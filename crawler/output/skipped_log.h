// crawler/output/skipped_log.h: skipped.jsonl, one line per URL the crawl
// found and did not fetch, with the page it was found on and why
// (crawler/policy/skip_reason.h):
//   {"url":"http://a/private/x","found_on":"http://a/","reason":"robots"}
// "found_on" is null for a seed. A URL is written once per reason however
// many pages link to it: a scalable Bloom filter (filter/
// scalable_bloom_filter.h) of the (reason, URL) pairs written decides.
//
// Surprises first:
//   - The filter errs one way: a pair it takes for written (false-positive
//     rate at most kFalsePositiveRate at any size) is not written. Its memory
//     is 3.5 to 8 bytes per pair written (stage i of 2^16·2^i pairs at rate
//     1e-5·0.15·0.85^i: 28 + 0.34·i bits per pair, the newest stage partly
//     empty): 10 million pairs take about 60 MB.
//   - Each line is flushed to the OS as it is written; offset() is what a
//     checkpoint keeps. On resume the file is cut back to it and the filter
//     rebuilt from the lines kept (one read of the file).
//   - Not thread-safe: the crawl loop is the only writer.
//
// Example:
//   absl::StatusOr<std::unique_ptr<sieve::SkippedLog>> log =
//       sieve::SkippedLog::Open(out / "skipped.jsonl");
//   absl::StatusOr<bool> written =
//       (*log)->Add("http://a/x", "http://a/", sieve::SkipReason::kRobots);
#ifndef SIEVE_CRAWLER_OUTPUT_SKIPPED_LOG_H_
#define SIEVE_CRAWLER_OUTPUT_SKIPPED_LOG_H_

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "crawler/policy/skip_reason.h"
#include "filter/scalable_bloom_filter.h"

namespace sieve {

class SkippedLog {
 public:
  // The filter's false-positive rate: the share of pairs never written.
  static constexpr double kFalsePositiveRate = 1e-5;

  // Opens `path` for appending (created if missing) and puts the pairs of
  // the lines already in it into the filter (a resumed crawl's, cut back to
  // its checkpoint first). A line that does not parse is skipped. REQUIRES:
  // the directory exists.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<SkippedLog>> Open(
      const std::filesystem::path& path);
  ~SkippedLog();
  SkippedLog(const SkippedLog&) = delete;
  SkippedLog& operator=(const SkippedLog&) = delete;

  // Writes the record unless the filter says (`reason`, `url`) was written
  // before; true when written. `found_on` "" is written as null. A failed
  // write names the path and the system's reason (ResourceExhausted for a
  // full disk). Cost: one filter lookup; a JSON line and a flush when new.
  [[nodiscard]] absl::StatusOr<bool> Add(std::string_view url,
                                         std::string_view found_on,
                                         SkipReason reason);
  // Bytes in the file, all complete lines.
  uint64_t offset() const { return offset_; }
  // fsyncs the file (before a checkpoint that records offset()).
  [[nodiscard]] absl::Status Sync();

 private:
  SkippedLog(std::filesystem::path path, std::FILE* file, uint64_t offset);
  absl::Status WriteError(std::string_view what, int error) const;
  std::filesystem::path path_;
  std::FILE* file_;
  uint64_t offset_;
  ScalableBloomFilter written_;
  std::string key_;   // Reused by every Add.
  std::string line_;  // Reused by every Add.
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_OUTPUT_SKIPPED_LOG_H_
