// crawler/output/page_record.h: one line of pages.jsonl, and the writer that
// appends them.
//
// pages.jsonl holds one JSON object per fetched URL, in the order fetches
// finished:
//   {"url":"http://a/x","fetched_at":"2026-11-26T09:30:01.250Z","status":200,
//    "content_type":"text/html","bytes":5120,"fetch_ms":12.5,"depth":1,
//    "discovered_from":"http://a/","links_found":31,"links_new":7,"error":null,
//    "ip":"192.0.2.7","http_version":"1.1","digest":"sha1:2Z5M..."}
// "fetched_at" (RFC 3339, UTC, ms) is when the request started (the WARC-Date
// of its exchange), or when the URL was given up unfetched; "ip" and
// "http_version" are set when a response arrived; "digest" on every 2xx is the
// WARC payload-digest form ("sha1:" + Base32): with output.warc the
// WARC-Payload-Digest itself (the body as received, content coding kept),
// else of the decoded body. There is no "final_url": redirects are not
// followed inside a fetch, so the URL that answered is always "url".
// Plus "redirect_to" on a 3xx (the target exactly as its own record's "url"
// will be: normalised by the crawl's one normaliser, link_policy.h's
// NormalizeDiscovered), "truncated":true when the body was cut at
// max_body_bytes, "error_detail" with the transport's own words when
// "error" is set, "sitemap":true for a sitemap file (links_found then counts
// the URLs it listed), "requisite":true for a page requisite
// (crawl.page_requisites), and with output.warc "warc_file" and "warc_offset":
// the WARC file (name in OUT/warc/) and the byte offset of the gzip member
// holding this URL's response (or revisit) record; on a revisit
// (crawl.revisit) "changed":true|false (a 304 is false); on a page rendered
// in Chromium (render.mode) "rendered":true, "links_rendered": the links
// rendering added (counted in links_found and links_new too) and "render_ms":
// how long the render took (the tab's work, its subresource fetches and
// waits included), or "render_error" with why its render failed (its static
// links kept).
//
// Surprises first:
//   - Each record is written and flushed to the OS as it comes (a crash loses
//     no finished line, though a kill may leave a partial last line); offset()
//     is what a checkpoint keeps, and a resumed crawl cuts the file back to it
//     (TruncateTo), so no record appears twice.
//   - Not thread-safe: the crawl loop is the only writer.
#ifndef SIEVE_CRAWLER_OUTPUT_PAGE_RECORD_H_
#define SIEVE_CRAWLER_OUTPUT_PAGE_RECORD_H_

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sieve {

struct PageRecord {
  std::string url = {};
  absl::Time fetched_at = absl::InfinitePast();  // InfinitePast: not set.
  int status = 0;  // HTTP status; 0 when no response arrived.
  std::string content_type = {};
  int64_t bytes = 0;  // Body bytes (decoded).
  double fetch_ms = 0;
  uint32_t depth = 0;
  std::string discovered_from =
      {};  // Referring page (or redirecting URL); empty for a seed.
  int64_t links_found =
      0;  // Links extracted from the page (after nofollow, before scope).
  int64_t links_new =
      0;  // Of which the Sieve queued (in scope, not seen before).
  std::string error =
      {};  // "" = none; a FetchErrorName, "http_404", "too_many_redirects"...
  std::string error_detail = {};
  std::string redirect_to = {};
  bool truncated = false;
  bool sitemap = false;        // The URL was fetched as a sitemap.
  bool requisite = false;      // Fetched as a page requisite (page_requisites).
  bool rendered = false;       // Rendered in Chromium (render.mode).
  int64_t links_rendered = 0;  // Links rendering added (in links_found).
  double render_ms = 0;        // How long its render took (when rendered).
  std::string render_error = {};  // Why its render failed; "" = none.
  // With output.warc: where the response (or revisit) record is; "" when no
  // response was archived (no answer, or WARC off).
  std::string warc_file = {};
  int64_t warc_offset = 0;
  std::string ip = {};            // The server's address; "" without answer.
  std::string http_version = {};  // "1.1", "2"; "" without answer.
  std::string digest = {};        // "sha1:..." on a 2xx; else "".
  // A revisit (crawl.revisit): whether the page changed since its last fetch
  // (a 304 is false); unset on a first fetch.
  std::optional<bool> changed = std::nullopt;
};

// "2026-11-26T09:30:01.250Z": RFC 3339, UTC, milliseconds.
std::string FormatRfc3339Ms(absl::Time t);

// The JSON object for `record`, one line, no newline. Strings that are not
// UTF-8 get U+FFFD for each bad byte (crawler/output/json_text.h).
std::string PageRecordToJson(const PageRecord& record);
// The same appended to `out`: the writer formats into one buffer it reuses.
void AppendPageRecordJson(std::string& out, const PageRecord& record);

class PagesWriter {
 public:
  // Opens `path` for appending (created if missing). REQUIRES: the directory
  // exists.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<PagesWriter>> Open(
      const std::filesystem::path& path);
  ~PagesWriter();
  PagesWriter(const PagesWriter&) = delete;
  PagesWriter& operator=(const PagesWriter&) = delete;

  // Appends one line and flushes it to the OS. A failed write names the path
  // and the system's reason; ResourceExhausted for a full disk or a file-size
  // limit (ENOSPC, EDQUOT, EFBIG), Internal otherwise.
  [[nodiscard]] absl::Status Write(const PageRecord& record);
  // Bytes in the file, all complete lines.
  uint64_t offset() const { return offset_; }
  uint64_t records() const { return records_; }
  // fsyncs the file (called before a checkpoint that records offset()).
  [[nodiscard]] absl::Status Sync();

  // Cuts the file at `path` back to `offset` bytes (resume). NotFound if it is
  // missing and offset > 0.
  [[nodiscard]] static absl::Status TruncateTo(
      const std::filesystem::path& path, uint64_t offset);

 private:
  PagesWriter(std::filesystem::path path, std::FILE* file, uint64_t offset)
      : path_(std::move(path)), file_(file), offset_(offset) {}
  absl::Status WriteError(std::string_view what, int error) const;
  std::filesystem::path path_;
  std::FILE* file_;
  std::string line_;  // Reused by every Write.
  uint64_t offset_;
  uint64_t records_ = 0;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_OUTPUT_PAGE_RECORD_H_
