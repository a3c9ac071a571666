// crawler/output/warc_writer.h: writes a crawl's fetches as WARC 1.1 files
// (ISO 28500:2017) with a CDXJ index beside each, as pywb, warcio and the
// Wayback Machine read them.
//
// Files: DIR/sieve-YYYYMMDDhhmmssSSS-NNNNN.warc.gz, NNNNN a serial. Each file
// opens with a `warcinfo` record (software, hostname, format, the settings
// given in WarcWriterOptions::info); each record is its own gzip member, so a
// record can be read from its offset alone. A file is closed when the next
// exchange would take it past max_bytes (one exchange larger than that gets a
// file of its own); closing writes FILE.cdxj, sorted.
//
// Per fetch, WriteExchange writes a `request` record and a `response` record
// (application/http;msgtype=response: status line, headers, body as
// received), each naming the other in WARC-Concurrent-To, both with the same
// WARC-Date. The response carries WARC-Block-Digest (over status line,
// headers and body), WARC-Payload-Digest (over the entity body, content
// coding as sent), WARC-IP-Address, and WARC-Truncated: length|time when a
// cap cut the body.
//
// Revisits: a full (uncut), non-empty payload whose digest was already
// written is stored as a `revisit` record instead (profile
// identical-payload-digest, WARC-Refers-To-Target-URI and -Date of the first
// copy): headers only, no body. An exchange that names its URL's earlier copy
// (WarcExchange::original, a crawl's revisit) refers to that copy instead,
// with WARC-Refers-To (its record ID) too; a 304 Not Modified answer to it is
// a revisit of profile server-not-modified, whose WARC-Payload-Digest is the
// original's. The digest table is bounded: at most
// max_digests entries of about 100 bytes + the URI each (1,000,000 entries of
// 60-byte URIs ≈ 160 MB; the default 200,000 ≈ 32 MB). When full, new
// payloads are written in full and not remembered (stats().digests_dropped
// counts them); the first copies stay revisitable. The table starts empty in
// each process (a resumed crawl does not revisit what it wrote before).
//
// Resources: WriteResource writes one `resource` record (WARC 1.1 6.5) of
// bytes that were made, not fetched (a render's DOM and requests,
// crawler/render/render_archive.h), under a `urn:` URI so replay never serves
// it as a page's capture; its WARC-Payload-Digest is the block's (no HTTP
// head). The CDXJ lists it as warcio does: its Content-Type as mime, no
// status, the urn as key.
//
// Crash safety: Sync() flushes the open file to disk (fsync) and returns
// every file's durable length, for a checkpoint; after a crash,
// RecoverWarcDirectory (crawler/output/warc_recovery.h) cuts each file back
// to that length, rebuilds its CDXJ from the file, and removes files the
// checkpoint did not know.
//
// Surprises first:
//   - Not thread-safe: one thread (the crawl loop) calls it.
//   - Writes are plain write(2) calls, durable only after Sync() or Close().
//   - The open file's CDXJ lines wait in memory until the file is closed
//     (about 250 bytes per response record).
//
// Example:
//   sieve::WarcWriterOptions o;
//   o.directory = out_dir / "warc";
//   o.info = {{"user-agent", "SieveBot/0.1"}, {"robots", "obey"}};
//   absl::StatusOr<std::unique_ptr<sieve::WarcWriter>> w =
//       sieve::WarcWriter::Open(o);
//   absl::StatusOr<sieve::WarcLocation> at = (*w)->WriteExchange(
//       sieve::WarcExchangeFromFetch(response, started_at));
//   page.warc_file = at->file; page.warc_offset = at->offset;
//   ... checkpoint.warc = (*w)->Sync().value();
//   ... (*w)->Close();
#ifndef SIEVE_CRAWLER_OUTPUT_WARC_WRITER_H_
#define SIEVE_CRAWLER_OUTPUT_WARC_WRITER_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/output/warc_exchange.h"
#include "crawler/output/warc_format.h"

namespace sieve {

struct WarcWriterOptions {
  // Where the files go; created if absent. REQUIRES: not empty.
  std::filesystem::path directory;
  // A file is closed before an exchange would take it past this many bytes.
  // REQUIRES: > 0. Default: 1 GB (10^9 bytes).
  int64_t max_bytes = 1'000'000'000;
  // Payload digests remembered for revisit records (see above). 0 turns
  // revisits off. Default: 200,000.
  int64_t max_digests = 200'000;
  // "software" of the warcinfo record. Default: "Sieve/<version>" set by the
  // caller; "Sieve" when empty.
  std::string software;
  // "hostname" of the warcinfo record; gethostname() when empty.
  std::string hostname;
  // Further warcinfo fields, in order: the crawl's settings that matter
  // (user-agent, robots policy, scope...). Default: none.
  WarcFields info;
  // zlib level of each record's gzip member: 1 is fastest, 9 smallest. On
  // HTML sent uncompressed, level 1 takes about a third of the CPU of level 6
  // for records 25-30% larger; bodies sent gzip-coded cost the same at both
  // (bench_warc, docs/warc.md). REQUIRES: 1..9. Default: 6 (as wget).
  int gzip_level = 6;
  // Serial of the first file (the next crawl after a resume passes one past
  // the last). Default: 0.
  int first_serial = 0;
  // Clock for file names and warcinfo dates; tests fix it. Default: absl::Now.
  std::function<absl::Time()> clock;
};

enum class WarcRecordKind : uint8_t { kResponse, kRevisit, kResource };

// A `resource` record's content (WriteResource).
struct WarcResource {
  // WARC-Target-URI. REQUIRES: a "urn:" URI (never a fetched URL: replay
  // would serve the bytes as its capture).
  std::string target_uri;
  absl::Time date;
  std::string content_type;  // Content-Type of the block.
  std::string block;
};

// Where WriteExchange put the response (or revisit) record.
struct WarcLocation {
  std::string file;    // File name, no directory ("sieve-...-00000.warc.gz").
  int64_t offset = 0;  // Byte offset of its gzip member in the file.
  int64_t length = 0;  // Length of that gzip member.
  WarcRecordKind kind = WarcRecordKind::kResponse;
  // WARC-Payload-Digest of the response ("sha1:" + Base32), computed once
  // here and shared with the page's record.
  std::string payload_digest = {};
  // WARC-Record-ID of the response (or revisit) record, "<urn:uuid:...>".
  std::string record_id = {};
};

// One file's state for a checkpoint.
struct WarcFileState {
  std::string file;     // Name in the directory.
  int64_t length = 0;   // Bytes known to be on disk (fsync'ed).
  bool closed = false;  // Complete, its CDXJ written.
};

struct WarcStats {
  int64_t files = 0;
  int64_t records = 0;  // warcinfo + request + response + revisit + resource.
  int64_t responses = 0;
  int64_t revisits = 0;
  int64_t resources = 0;
  int64_t truncated = 0;        // Responses with WARC-Truncated.
  int64_t bytes = 0;            // Compressed bytes written.
  int64_t payload_bytes = 0;    // Payload bytes archived (not revisits).
  int64_t digests_dropped = 0;  // Payloads not remembered: table full.
};

class WarcWriter {
 public:
  // Creates the directory and checks the options; the first file is opened
  // by the first WriteExchange. InvalidArgument for bad options, an I/O
  // error if the directory cannot be made.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<WarcWriter>> Open(
      WarcWriterOptions options);

  ~WarcWriter();  // Close(), errors ignored: call Close() to see them.
  WarcWriter(const WarcWriter&) = delete;
  WarcWriter& operator=(const WarcWriter&) = delete;

  // Writes the request and response (or revisit) records of one fetch, both
  // in the same file, rotating first if they would pass max_bytes. Returns
  // where the response/revisit record is. Cost: SHA-1 of head + body, one
  // deflate of each record, two write(2) calls. On an I/O error nothing is
  // counted and the caller should stop archiving (the file may end in a torn
  // record that recovery cuts off).
  [[nodiscard]] absl::StatusOr<WarcLocation> WriteExchange(
      const WarcExchange& exchange);

  // Writes `resource` as one resource record (see the file comment),
  // rotating first as WriteExchange does; InvalidArgument unless its URI
  // starts with "urn:". Returns where it is. Cost: SHA-1 and one deflate of
  // the block, one write(2).
  [[nodiscard]] absl::StatusOr<WarcLocation> WriteResource(
      const WarcResource& resource);

  // fsyncs the open file (and the directory, for new names) and returns the
  // state of every file this writer made, in order. What a checkpoint keeps.
  [[nodiscard]] absl::StatusOr<std::vector<WarcFileState>> Sync();

  // Finishes the open file: fsync, close, write its sorted CDXJ. Later
  // WriteExchange calls open a new file.
  [[nodiscard]] absl::Status Close();

  const WarcStats& stats() const { return stats_; }
  const std::filesystem::path& directory() const { return options_.directory; }

 private:
  struct Original {
    std::string uri;
    absl::Time date;
    std::string record_id;  // WARC-Refers-To; "" leaves it out.
  };

  // What WriteExchange works out of an exchange before writing it.
  struct Plan {
    std::string uri;  // WARC-Target-URI, on one line.
    std::string date;
    std::string request_id;
    std::string response_id;
    std::string head;  // The response head as archived.
    std::string payload_digest;
    std::string record_digest;  // A 304's: its original's payload digest.
    int status = 0;
    bool full = false;                 // The whole payload, not empty.
    bool not_modified = false;         // A 304 to the exchange's own original.
    std::optional<Original> original;  // Set for a revisit record.
  };

  explicit WarcWriter(WarcWriterOptions options);
  Plan PlanExchange(const WarcExchange& ex);
  // The response (or revisit) record, gzipped.
  std::string ResponseRecord(const WarcExchange& ex, const Plan& plan) const;
  // Closes a file that `need` more bytes would take past max_bytes (unless
  // it holds no exchange yet) and opens the next when none is open.
  absl::Status MakeRoom(int64_t need);
  // The stats and file length of an exchange written; a full payload's
  // digest remembered for later revisits.
  void CountWritten(const WarcExchange& ex, const Plan& plan);
  absl::Status OpenNextFile();
  absl::Status Append(std::string_view bytes);
  std::string WarcinfoRecord(const std::string& file_name);

  WarcWriterOptions options_;
  absl::BitGen gen_;
  int next_serial_;
  int fd_ = -1;
  std::string file_name_;
  int64_t file_bytes_ = 0;
  int64_t file_exchanges_ = 0;
  bool dir_synced_ = true;
  std::vector<std::string> cdxj_lines_;  // Of the open file.
  std::vector<WarcFileState> files_;
  absl::flat_hash_map<std::string, Original> digests_;
  WarcStats stats_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_OUTPUT_WARC_WRITER_H_
