// crawler/loop/crawler_records.cc: what the crawl writes of its pages:
// records in the order their answers came (WriteRecord, through the parse
// pool while it is busy), the pages and sitemaps the pool parsed
// (CollectParsed), and the URLs it skipped (RecordSkipped, skipped.jsonl).
#include <optional>
#include <string>
#include <string_view>

#include "crawler/loop/crawler_impl.h"
#include "fetch/fetch_failure.h"

namespace sieve {
namespace {

// Adds what became of a page's or a sitemap's links to the crawl's counters,
// by link_fate.h's names.
void AddOutcomes(const LinkFateCounts& links, CrawlCounters& counters) {
#define SIEVE_ADD_LINK_COUNT(name) counters.name += links.name;
  SIEVE_LINK_COUNTERS(SIEVE_ADD_LINK_COUNT)
#undef SIEVE_ADD_LINK_COUNT
}

}  // namespace

void Crawler::Impl::RecordSkipped(std::string_view url,
                                  std::string_view found_on,
                                  SkipReason reason) {
  if (skipped_ == nullptr) return;
  absl::StatusOr<bool> written = skipped_->Add(url, found_on, reason);
  if (!written.ok()) {
    if (fatal_.ok()) fatal_ = written.status();
  } else if (*written) {
    ++counters_.skipped[static_cast<size_t>(reason)];
  }
}

void Crawler::Impl::CountLinks(const LinkOutcomes& links,
                               std::string_view found_on) {
  AddOutcomes(links, counters_);
  for (const SkippedLink& link : links.skipped) {
    RecordSkipped(link.url, found_on, link.reason);
  }
}

void Crawler::Impl::CollectParsed(absl::Time /*now*/) {
  for (ParsedPage& page : pool_->TakeResults()) {
    if (page.record_only) {
      WriteRecordNow(page.record);
      continue;
    }
    if (page.sitemap.has_value()) {
      RecordSitemap(page);
      continue;
    }
    const PageLinks& links = page.links;
    page.record.links_found = links.found;
    page.record.links_new = links.queued;
    CountLinks(links, page.record.url);
    if (!page.record.requisite) ++counters_.html_pages;
    counters_.nofollow_links += links.nofollow_links;
    counters_.session_ids += links.session_ids;
    if (links.nofollow_page) ++counters_.nofollow_pages;
    if (links.noindex_page) ++counters_.noindex_pages;
    WriteRecordNow(page.record);
  }
  for (const FrontierUrl& url : frontier_->TakeDiscarded()) {
    RecordSkipped(url.url, Origin::Decode(url.metadata).referrer,
                  SkipReason::kHostPageCap);
  }
}

void Crawler::Impl::RecordSitemap(ParsedPage& page) {
  const SitemapLinks& s = *page.sitemap;
  page.record.links_found = s.listed;
  page.record.links_new = s.queued;
  if (!s.error.empty()) {
    page.record.error = s.error;
    page.record.error_detail = s.error_detail;
    ++counters_.sitemap_errors;
    log_->info("sitemap {}: {} ({}); {} entries read before it",
               page.record.url, s.error, s.error_detail, s.listed);
  }
  ++counters_.sitemaps;
  if (!s.index) {
    counters_.sitemap_urls += static_cast<uint64_t>(s.listed);
    counters_.sitemap_urls_new += static_cast<uint64_t>(s.queued);
  }
  CountLinks(s, page.url.url);
  const Origin origin = Origin::Decode(page.url.metadata);
  for (const std::string& child : s.child_sitemaps) {
    if (QueueSitemap(child,
                     Origin{.referrer = page.url.url,
                            .sitemap = true,
                            .sitemap_nesting = origin.sitemap_nesting + 1})) {
      ++page.record.links_new;  // An index's new entries are sitemaps.
    }
  }
  // Links of a sitemap are what it listed (sitemap_urls), not links_found.
  WriteRecordNow(page.record, /*count_links=*/false);
}

void Crawler::Impl::WriteRecord(const PageRecord& record) {
  if (pool_->pending() == 0) {
    WriteRecordNow(record);
    return;
  }
  pool_->Submit([record] {
    ParsedPage page;
    page.record = record;
    page.record_only = true;
    return page;
  });
}

void Crawler::Impl::WriteRecordNow(const PageRecord& record, bool count_links) {
  if (absl::Status s = writer_->Write(record); !s.ok()) {
    if (fatal_.ok()) fatal_ = s;
  } else {
    // Only now may a shared frontier let the URL go (its errors show in
    // frontier_->status()).
    (void)frontier_->RecordWritten(record.url);
  }
  ++counters_.pages;
  ++status_classes_[record.status >= 100 && record.status < 600
                        ? static_cast<size_t>(record.status / 100)
                        : 0];
  if (!record.error.empty()) {
    if (std::optional<FailureCode> code = FailureCodeFromName(record.error)) {
      ++counters_.failures[static_cast<size_t>(*code)];
    }
    log_->debug("{}: {}: {}", record.url, record.error, record.error_detail);
  }
  counters_.bytes += static_cast<uint64_t>(record.bytes);
  if (count_links) {
    counters_.links_found += static_cast<uint64_t>(record.links_found);
    counters_.links_new += static_cast<uint64_t>(record.links_new);
  }
  if (record.truncated) ++counters_.truncated;
  if (record.requisite) ++counters_.requisites;
  progress_->CountPage(!record.error.empty());
}

}  // namespace sieve
