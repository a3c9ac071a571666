#include "crawler/policy/sitemap_links.h"

#include "absl/strings/str_cat.h"

namespace sieve {

SitemapLinks ProcessSitemap(const LinkPolicy& policy,
                            const FetchResponse& response, const Origin& origin,
                            SitemapLocationRule rule) {
  SitemapLinks out;
  const std::string& sitemap_url =
      response.effective_url.empty() ? response.url : response.effective_url;
  const SitemapResult parsed = ParseSitemap(response.body);
  out.listed = static_cast<int64_t>(parsed.entries.size());
  if (!parsed.ok()) {
    out.error =
        absl::StrCat("sitemap_", std::string(SitemapErrorName(parsed.error)));
    out.error_detail = parsed.error_message;
  }
  if (parsed.kind == SitemapKind::kIndex) {
    out.index = true;
    if (origin.sitemap_nesting >= kMaxSitemapNesting) {
      out.error = "sitemap_too_deep";
      out.error_detail =
          absl::StrCat("a sitemap index ", origin.sitemap_nesting,
                       " levels below robots.txt is not followed");
      return out;
    }
    for (const SitemapEntry& entry : parsed.entries) {
      out.child_sitemaps.push_back(entry.url);
    }
    return out;
  }
  // The location rule's exception: robots.txt named this sitemap.
  const std::string robots_txt_url =
      origin.from_robots ? origin.referrer : std::string();
  for (const SitemapEntry& entry : parsed.entries) {
    if (!SitemapMayList(entry.url, sitemap_url, robots_txt_url, rule)) {
      ++out.filtered;
      if (policy.record_skipped) {
        out.skipped.push_back(
            {.url = entry.url, .reason = SkipReason::kSitemapLocation});
      }
      continue;
    }
    const Origin page{
        .redirect_hops = 0, .referrer = response.url, .lastmod = entry.lastmod};
    out.Note(policy, entry.url, AddDiscovered(policy, entry.url, 1, page));
  }
  return out;
}

}  // namespace sieve
