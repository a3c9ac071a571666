// crawler/loop/crawler_archive.cc: what the crawl keeps beyond pages.jsonl:
// its WARC files (crawler/output/warc_writer.h), recovered to the checkpoint
// on resume, one request + response (or revisit) record per answer, synced at
// each checkpoint, closed at the end; and the sitemaps it queues (from
// robots.txt, /sitemap.xml probes and sitemap indexes), capped per host.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "crawler/loop/crawler_impl.h"
#include "crawler/output/warc_exchange.h"
#include "crawler/output/warc_recovery.h"
#include "filter/key_hash.h"
#include "parse/url.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

#ifndef SIEVE_VERSION_STRING
#define SIEVE_VERSION_STRING "0"
#endif

}  // namespace

absl::Status Crawler::Impl::OpenArchive() {
  const fs::path dir = out_ / "warc";
  if (setup_.resume) {
    // Before anything is written: files cut back to the checkpoint's lengths
    // (no torn record), their CDXJ rebuilt, files it does not know removed.
    // Runs with WARC off too, so a crawl's files always match its checkpoint.
    std::error_code ec;
    if (!state_.warc_files.empty() || fs::exists(dir, ec)) {
      if (absl::Status s = RecoverWarcDirectory(dir, state_.warc_files);
          !s.ok())
        return s;
    }
    warc_earlier_files_ = state_.warc_files;
    for (WarcFileState& file : warc_earlier_files_) file.closed = true;
  }
  if (!config_.output.warc) return absl::OkStatus();
  WarcWriterOptions o;
  o.directory = dir;
  o.max_bytes = config_.output.warc_max_bytes;
  o.gzip_level = static_cast<int>(config_.output.warc_gzip_level);
  o.software = absl::StrCat("Sieve/", SIEVE_VERSION_STRING);
  o.first_serial = NextWarcSerial(state_.warc_files);
  o.info = {
      {"user-agent", config_.fetch.user_agent},
      {"robots", "obey"},
      {"scope", std::string(ScopeModeName(config_.crawl.scope))},
      {"sitemaps", std::string(SitemapSourceName(config_.crawl.sitemaps))},
      {"max-body-bytes", absl::StrCat(config_.fetch.max_body_bytes)},
  };
  absl::StatusOr<std::unique_ptr<WarcWriter>> warc =
      WarcWriter::Open(std::move(o));
  if (!warc.ok()) return warc.status();
  warc_ = *std::move(warc);
  return absl::OkStatus();
}

std::optional<WarcLocation> Crawler::Impl::Archive(FetchResponse& response,
                                                   absl::Time start) {
  if (warc_ == nullptr || !response.wire.captured() || !fatal_.ok()) {
    return std::nullopt;
  }
  const int64_t bytes_before = warc_->stats().bytes;
  WarcExchange exchange = WarcExchangeFromFetch(response, start);
  exchange.original = ArchivedCopyOf(response.url);  // A revisit's.
  absl::StatusOr<WarcLocation> at = warc_->WriteExchange(exchange);
  if (!at.ok()) {
    // Output that cannot be written: the crawl stops; the last checkpoint
    // still matches the files (recovery cuts the torn record).
    fatal_ = at.status();
    return std::nullopt;
  }
  if (at->kind == WarcRecordKind::kRevisit) {
    ++counters_.warc_revisits;
  } else {
    ++counters_.warc_responses;
  }
  counters_.warc_bytes +=
      static_cast<uint64_t>(warc_->stats().bytes - bytes_before);
  return *std::move(at);
}

absl::Status Crawler::Impl::SyncArchive() {
  std::vector<WarcFileState> files = warc_earlier_files_;
  if (warc_ != nullptr) {
    absl::StatusOr<std::vector<WarcFileState>> now = warc_->Sync();
    if (!now.ok()) return now.status();
    files.insert(files.end(), now->begin(), now->end());
  }
  state_.warc_files = std::move(files);
  return absl::OkStatus();
}

absl::Status Crawler::Impl::CloseArchive() {
  return warc_ == nullptr ? absl::OkStatus() : warc_->Close();
}

void Crawler::Impl::QueueRobotsSitemaps(const std::string& robots_url,
                                        const RobotsVerdict& verdict) {
  if (config_.crawl.sitemaps == SitemapSource::kOff) return;
  for (const std::string& sitemap : verdict.sitemaps) {
    (void)QueueSitemap(sitemap, Origin{.referrer = robots_url,
                                       .sitemap = true,
                                       .sitemap_nesting = 0,
                                       .from_robots = true});
  }
  if (config_.crawl.sitemaps == SitemapSource::kRobotsAndProbe) {
    absl::StatusOr<UrlParts> parts = SplitUrl(robots_url);
    if (!parts.ok()) return;
    (void)QueueSitemap(
        absl::StrCat(parts->scheme, "://", parts->Authority(), "/sitemap.xml"),
        Origin{.referrer = robots_url, .sitemap = true, .sitemap_nesting = 0});
  }
}

bool Crawler::Impl::QueueSitemap(std::string_view url, const Origin& origin) {
  if (config_.crawl.sitemaps == SitemapSource::kOff) return false;
  absl::StatusOr<UrlParts> parts = SplitUrl(url, policy_.url_options);
  if (!parts.ok()) return false;
  const std::string host = parts->Authority();
  const uint64_t host_key = Fingerprint64(host);
  auto it = sitemaps_per_host_.find(host_key);
  const int64_t queued = it == sitemaps_per_host_.end() ? 0 : it->second;
  if (queued >= config_.crawl.max_sitemaps_per_host) {
    log_->debug("sitemap {} not fetched: {} has had max_sitemaps_per_host ({})",
                std::string(url), host, config_.crawl.max_sitemaps_per_host);
    return false;
  }
  // Scope, trap control, robots.txt (when known) and the Sieve, like a link;
  // depth 0, so max_depth never hides a sitemap.
  if (AddDiscovered(policy_, parts->normalized_url, /*depth=*/0, origin) ==
      AddOutcome::kQueued) {
    if (sitemaps_per_host_.size() >= kMaxSitemapHosts &&
        !sitemaps_per_host_.contains(host_key)) {
      sitemaps_per_host_.clear();
    }
    ++sitemaps_per_host_[host_key];
    return true;
  }
  return false;
}

}  // namespace sieve
