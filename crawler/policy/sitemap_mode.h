// crawler/policy/sitemap_mode.h: the closed sets of the crawl's sitemap
// settings (where sitemaps are looked for, and how strictly their location
// rule is applied), with their names in config files and flags.
//
// Example:
//   absl::StatusOr<sieve::SitemapSource> s =
//       sieve::ParseSitemapSource("robots+probe");
//   if (s.ok()) config.crawl.sitemaps = *s;  // SitemapSourceName(*s) same
#ifndef SIEVE_CRAWLER_POLICY_SITEMAP_MODE_H_
#define SIEVE_CRAWLER_POLICY_SITEMAP_MODE_H_

#include <span>
#include <string_view>

#include "absl/status/statusor.h"
#include "parse/sitemap.h"

namespace sieve {

// Where the crawl looks for sitemaps (crawl.sitemaps).
enum class SitemapSource {
  kOff,             // Never.
  kRobots,          // The Sitemap: lines of each origin's robots.txt.
  kRobotsAndProbe,  // Those, and /sitemap.xml of each host.
};

// Every source, in the order help texts list them.
std::span<const SitemapSource> AllSitemapSources();
// "off", "robots", "robots+probe".
std::string_view SitemapSourceName(SitemapSource source);
// Inverse of SitemapSourceName; InvalidArgument naming the accepted names.
absl::StatusOr<SitemapSource> ParseSitemapSource(std::string_view name);

// The location rule (parse/sitemap.h), by name (crawl.sitemap_location).
std::span<const SitemapLocationRule> AllSitemapLocationRules();
// "lenient", "strict".
std::string_view SitemapLocationRuleName(SitemapLocationRule rule);
// Inverse of SitemapLocationRuleName; InvalidArgument otherwise.
absl::StatusOr<SitemapLocationRule> ParseSitemapLocationRule(
    std::string_view name);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_SITEMAP_MODE_H_
