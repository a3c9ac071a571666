#include "crawler/loop/sitemap_queue.h"

#include "absl/strings/str_cat.h"
#include "filter/key_hash.h"
#include "parse/url.h"

namespace sieve {

void SitemapQueue::QueueFromRobots(const std::string& robots_url,
                                   const RobotsVerdict& verdict) {
  if (options_.source == SitemapSource::kOff) return;
  for (const std::string& sitemap : verdict.sitemaps) {
    (void)Queue(sitemap, Origin{.referrer = robots_url,
                                .sitemap = true,
                                .sitemap_nesting = 0,
                                .from_robots = true});
  }
  if (options_.source == SitemapSource::kRobotsAndProbe) {
    absl::StatusOr<UrlParts> parts = SplitUrl(robots_url, policy_->url_options);
    if (!parts.ok()) return;
    (void)Queue(
        absl::StrCat(parts->scheme, "://", parts->Authority(), "/sitemap.xml"),
        Origin{.referrer = robots_url, .sitemap = true, .sitemap_nesting = 0});
  }
}

bool SitemapQueue::Queue(std::string_view url, const Origin& origin) {
  if (options_.source == SitemapSource::kOff) return false;
  absl::StatusOr<UrlParts> parts = SplitUrl(url, policy_->url_options);
  if (!parts.ok()) return false;
  const std::string host = parts->Authority();
  const uint64_t host_key = Fingerprint64(host);
  auto it = per_host_.find(host_key);
  const int64_t queued = it == per_host_.end() ? 0 : it->second;
  if (queued >= options_.max_per_host) {
    log_->debug("sitemap {} not fetched: {} has had max_sitemaps_per_host ({})",
                std::string(url), host, options_.max_per_host);
    return false;
  }
  // Scope, trap control, robots.txt (when known) and the Sieve, like a link;
  // depth 0, so max_depth never hides a sitemap.
  if (AddDiscovered(*policy_, parts->normalized_url, /*depth=*/0, origin) !=
      AddOutcome::kQueued) {
    return false;
  }
  if (per_host_.size() >= kMaxHosts && !per_host_.contains(host_key)) {
    per_host_.clear();
  }
  ++per_host_[host_key];
  return true;
}

}  // namespace sieve
