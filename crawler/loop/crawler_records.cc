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

void Crawler::Impl::RecordSkipped(std::string_view url,
                                  std::string_view found_on,
                                  SkipReason reason) {
  stop_.Fail(sink_->Skipped(url, found_on, reason));
}

void Crawler::Impl::CountLinks(const LinkOutcomes& links,
                               std::string_view found_on) {
  stop_.Fail(sink_->CountLinks(links, found_on));
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
    if (!page.record.requisite) ++counters().html_pages;
    counters().nofollow_links += links.nofollow_links;
    counters().session_ids += links.session_ids;
    if (links.nofollow_page) ++counters().nofollow_pages;
    if (links.noindex_page) ++counters().noindex_pages;
    if (page.to_render.has_value() && RenderPays(page.url.host)) {
      SubmitRender(page);  // Recorded when its render ends.
      continue;
    }
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
    ++counters().sitemap_errors;
    log()->info("sitemap {}: {} ({}); {} entries read before it",
                page.record.url, s.error, s.error_detail, s.listed);
  }
  ++counters().sitemaps;
  if (!s.index) {
    counters().sitemap_urls += static_cast<uint64_t>(s.listed);
    counters().sitemap_urls_new += static_cast<uint64_t>(s.queued);
  }
  CountLinks(s, page.url.url);
  const Origin origin = Origin::Decode(page.url.metadata);
  for (const std::string& child : s.child_sitemaps) {
    if (sitemaps_->Queue(
            child, Origin{.referrer = page.url.url,
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
  stop_.Fail(sink_->Write(record, count_links));
  if (!record.error.empty()) {
    log()->debug("{}: {}: {}", record.url, record.error, record.error_detail);
  }
  reporter_->CountPage(!record.error.empty());
}

}  // namespace sieve
