#include "crawler/loop/crawl_archive.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "crawler/output/warc_exchange.h"
#include "crawler/output/warc_recovery.h"
#include "crawler/policy/scope_mode.h"
#include "crawler/policy/sitemap_mode.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

#ifndef SIEVE_VERSION_STRING
#define SIEVE_VERSION_STRING "0"
#endif

WarcWriterOptions WriterOptions(const CrawlConfig& config, const fs::path& dir,
                                const std::vector<WarcFileState>& saved) {
  WarcWriterOptions o;
  o.directory = dir;
  o.max_bytes = config.output.warc_max_bytes;
  o.gzip_level = static_cast<int>(config.output.warc_gzip_level);
  o.software = absl::StrCat("Sieve/", SIEVE_VERSION_STRING);
  o.first_serial = NextWarcSerial(saved);
  o.info = {
      {"user-agent", config.fetch.user_agent},
      {"robots", "obey"},
      {"scope", std::string(ScopeModeName(config.crawl.scope))},
      {"sitemaps", std::string(SitemapSourceName(config.crawl.sitemaps))},
      {"max-body-bytes", absl::StrCat(config.fetch.max_body_bytes)},
  };
  return o;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CrawlArchive>> CrawlArchive::Open(
    const CrawlConfig& config, const fs::path& out, bool resume,
    const std::vector<WarcFileState>& saved_files, CrawlCounters& counters) {
  std::unique_ptr<CrawlArchive> archive(new CrawlArchive(counters));
  const fs::path dir = out / "warc";
  if (resume) {
    // Before anything is written: files cut back to the checkpoint's lengths
    // (no torn record), their CDXJ rebuilt, files it does not know removed.
    std::error_code ec;
    if (!saved_files.empty() || fs::exists(dir, ec)) {
      if (absl::Status s = RecoverWarcDirectory(dir, saved_files); !s.ok()) {
        return s;
      }
    }
    archive->earlier_files_ = saved_files;
    for (WarcFileState& file : archive->earlier_files_) file.closed = true;
  }
  if (!config.output.warc) return archive;
  absl::StatusOr<std::unique_ptr<WarcWriter>> writer =
      WarcWriter::Open(WriterOptions(config, dir, saved_files));
  if (!writer.ok()) return writer.status();
  archive->writer_ = *std::move(writer);
  return archive;
}

absl::StatusOr<std::optional<WarcLocation>> CrawlArchive::Write(
    FetchResponse& response, absl::Time start,
    std::optional<WarcOriginal> original) {
  if (writer_ == nullptr || !response.wire.captured()) {
    return std::optional<WarcLocation>();
  }
  const int64_t bytes_before = writer_->stats().bytes;
  WarcExchange exchange = WarcExchangeFromFetch(response, start);
  exchange.original = std::move(original);
  absl::StatusOr<WarcLocation> at = writer_->WriteExchange(exchange);
  if (!at.ok()) return at.status();
  if (at->kind == WarcRecordKind::kRevisit) {
    ++counters_.warc_revisits;
  } else {
    ++counters_.warc_responses;
  }
  counters_.warc_bytes +=
      static_cast<uint64_t>(writer_->stats().bytes - bytes_before);
  return std::optional<WarcLocation>(*std::move(at));
}

absl::StatusOr<WarcLocation> CrawlArchive::WriteResource(
    const WarcResource& resource) {
  const int64_t bytes_before = writer_->stats().bytes;
  absl::StatusOr<WarcLocation> at = writer_->WriteResource(resource);
  counters_.warc_bytes +=
      static_cast<uint64_t>(writer_->stats().bytes - bytes_before);
  return at;
}

absl::StatusOr<std::vector<WarcFileState>> CrawlArchive::Sync() {
  std::vector<WarcFileState> files = earlier_files_;
  if (writer_ != nullptr) {
    absl::StatusOr<std::vector<WarcFileState>> now = writer_->Sync();
    if (!now.ok()) return now.status();
    files.insert(files.end(), now->begin(), now->end());
  }
  return files;
}

absl::Status CrawlArchive::Close() {
  return writer_ == nullptr ? absl::OkStatus() : writer_->Close();
}

}  // namespace sieve
