// crawler/output/cdxj_index.h: the CDXJ index beside each WARC file, in the
// form pywb and the webrecorder tools read:
//
//   org,example)/page 20261122140555 {"url":"http://example.org/page",
//     "mime":"text/html","status":"200","digest":"B2LTW...","length":"1043",
//     "offset":"2218","filename":"sieve-...-00000.warc.gz"}
//
// one line per response, revisit or resource record (revisits with mime
// "warc/revisit"; a resource's urn: is its own key, no status, as warcio),
// key = SURT of the URL (parse/surt.h), then the 14-digit
// UTC timestamp, then a JSON object whose values are all strings; the digest
// is the payload's Base32 without "sha1:" (as pywb writes it). The file is
// sorted by byte order (LC_ALL=C sort), which binary search in pywb needs.
//
// Example:
//   lines.push_back(sieve::CdxjLine({.url = u, .date = t, ...}));
//   absl::Status s = sieve::WriteCdxjFile(sieve::CdxjPathFor(warc), lines);
#ifndef SIEVE_CRAWLER_OUTPUT_CDXJ_INDEX_H_
#define SIEVE_CRAWLER_OUTPUT_CDXJ_INDEX_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace sieve {

struct CdxjEntry {
  std::string url;
  absl::Time date;
  std::string mime;  // "warc/revisit" for a revisit.
  // HTTP status; none for a resource record (no HTTP head), as warcio.
  std::optional<int> status;
  std::string digest;  // "sha1:..." or bare Base32; written bare.
  int64_t length = 0;  // Of the record's gzip member.
  int64_t offset = 0;
  std::string filename;
};

// One index line, no newline.
std::string CdxjLine(const CdxjEntry& entry);

// "DIR/NAME.cdxj" for "DIR/NAME.warc.gz" (or DIR/NAME.warc).
std::filesystem::path CdxjPathFor(const std::filesystem::path& warc);

// Sorts `lines` and writes them to `path` through a temporary file, fsync
// and rename, so the index on disk is always whole.
[[nodiscard]] absl::Status WriteCdxjFile(const std::filesystem::path& path,
                                         std::vector<std::string> lines);

// Reads the WARC file's records from offset 0 up to `length` and writes its
// CDXJ (CdxjPathFor). DataLoss when a record before `length` does not read.
// Cost: inflates the whole prefix (about 300 MB/s).
[[nodiscard]] absl::Status IndexWarcFile(const std::filesystem::path& warc,
                                         int64_t length);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_OUTPUT_CDXJ_INDEX_H_
