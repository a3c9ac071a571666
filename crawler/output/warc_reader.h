// crawler/output/warc_reader.h: reads the records of a WARC file written one
// gzip member per record (as WarcWriter writes, and as the WARC 1.1 annex D
// recommends), each from its offset. Used to rebuild a CDXJ after a crash,
// by the tests, and by anyone checking a file.
//
// Surprises first:
//   - A member that ends early or does not inflate is DataLoss, a member
//     that inflates past max_record_bytes is ResourceExhausted: the reader
//     never trusts the file.
//   - The digests are not checked here; see VerifyWarcDigests.
//
// Example:
//   absl::StatusOr<sieve::WarcFileReader> r = sieve::WarcFileReader::Open(p);
//   for (int64_t at = 0; at < r->size();) {
//     absl::StatusOr<sieve::WarcRecord> rec = r->ReadAt(at);
//     if (!rec.ok()) break;
//     Use(rec->Field("WARC-Type"), rec->block);
//     at += rec->length;
//   }
#ifndef SIEVE_CRAWLER_OUTPUT_WARC_READER_H_
#define SIEVE_CRAWLER_OUTPUT_WARC_READER_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crawler/output/warc_format.h"

namespace sieve {

struct WarcRecord {
  std::string version;  // "WARC/1.1"
  WarcFields fields;    // In file order, Content-Length included.
  std::string block;
  int64_t offset = 0;  // Of its gzip member.
  int64_t length = 0;  // Of its gzip member.

  // First field named `name` (case-insensitive); "" when absent.
  std::string Field(std::string_view name) const;
};

class WarcFileReader {
 public:
  [[nodiscard]] static absl::StatusOr<WarcFileReader> Open(
      const std::filesystem::path& path);

  // The record whose gzip member starts at `offset`. Cost: inflates that
  // member only. REQUIRES: 0 <= offset < size().
  [[nodiscard]] absl::StatusOr<WarcRecord> ReadAt(
      int64_t offset, int64_t max_record_bytes = int64_t{1} << 30) const;

  int64_t size() const { return size_; }

 private:
  struct Fd;
  WarcFileReader(std::shared_ptr<Fd> fd, int64_t size)
      : fd_(std::move(fd)), size_(size) {}
  std::shared_ptr<Fd> fd_;
  int64_t size_ = 0;
};

// Checks a response, request or revisit record's WARC-Block-Digest and, for
// responses, WARC-Payload-Digest (over the block after the blank line ending
// the HTTP head). OK when every digest present matches; DataLoss naming the
// field otherwise.
[[nodiscard]] absl::Status VerifyWarcDigests(const WarcRecord& record);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_OUTPUT_WARC_READER_H_
