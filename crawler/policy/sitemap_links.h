// crawler/policy/sitemap_links.h: what the crawl does with a fetched sitemap
// file: parse it (parse/sitemap.h), send the pages it lists through the link
// policy into the frontier (scope, robots.txt, the Sieve) at depth 1 with the
// sitemap as their referrer, and hand back the sitemaps an index lists, which
// the crawl loop queues itself (it bounds their nesting and count per host).
//
// Surprises first:
//   - Thread-safe like ProcessHtmlPage: parser threads call it.
//   - A broken file is not a failure: the URLs read before the fault are
//     queued and `error`/`error_detail` say what broke ("sitemap_" + the
//     SitemapErrorName, e.g. "sitemap_malformed_xml"), for the sitemap's own
//     pages.jsonl record.
//
// Example:
//   sieve::SitemapLinks s = sieve::ProcessSitemap(policy, response, origin,
//                                                 rule);
//   for (const std::string& child : s.child_sitemaps) QueueSitemap(child);
#ifndef SIEVE_CRAWLER_POLICY_SITEMAP_LINKS_H_
#define SIEVE_CRAWLER_POLICY_SITEMAP_LINKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "crawler/policy/link_policy.h"
#include "fetch/fetch_types.h"
#include "parse/sitemap.h"

namespace sieve {

// Sitemap indexes are followed this many levels below a sitemap named by
// robots.txt or probed: an index (level 0) -> its sitemaps (1) -> the
// sitemaps of an index among those (2). The protocol allows one level; the
// second tolerates sites that nest once more. Deeper indexes are recorded
// with error "sitemap_too_deep" and not followed.
inline constexpr int kMaxSitemapNesting = 2;

// LinkOutcomes (link_policy.h) counts the page entries; `filtered` also counts
// those the strict location rule refused.
struct SitemapLinks : LinkOutcomes {
  bool index = false;  // A <sitemapindex>.
  // Index: the sitemaps it lists (not queued yet, see above).
  std::vector<std::string> child_sitemaps;
  int64_t listed = 0;        // Entries read (pages or sitemaps).
  std::string error;         // "" when the whole file was read.
  std::string error_detail;  // The parser's message.
};

// Parses the sitemap `response` (fetched for a URL whose metadata is
// `origin`, Origin::sitemap set) and adds the pages it lists. Cost: one
// streaming parse (at most 50 MiB after gunzip, 50,000 entries) plus one
// AddDiscovered per page entry.
SitemapLinks ProcessSitemap(const LinkPolicy& policy,
                            const FetchResponse& response, const Origin& origin,
                            SitemapLocationRule rule);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_SITEMAP_LINKS_H_
