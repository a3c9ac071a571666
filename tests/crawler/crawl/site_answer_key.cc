#include "tests/crawler/crawl/site_answer_key.h"

#include <deque>
#include <string>
#include <utility>

namespace sieve::testing_util {

ExpectedCrawl Expected(const SiteGraph& site, int max_depth, int max_redirects,
                       bool sitemaps) {
  struct Item {
    std::string path;
    int depth;
    int hops;
  };
  ExpectedCrawl crawl;
  std::set<std::string> seen = {"/"};
  std::deque<Item> queue = {{"/", 0, 0}};
  auto discover = [&](const std::string& path, int depth, int hops) {
    if (max_depth > 0 && depth > max_depth) return;
    if (SiteGraph::MustNotBeRequested(path)) return;
    if (seen.insert(path).second) queue.push_back({path, depth, hops});
  };
  // Sitemaps first (the crawl queues them when robots.txt arrives, before
  // any page's links); what they list is at depth 1.
  std::set<std::string> sitemap_pages;
  std::deque<std::string> sitemap_queue;
  if (sitemaps) {
    for (const std::string& path : SiteGraph::SitemapsInRobots())
      sitemap_queue.push_back(path);
  }
  while (!sitemap_queue.empty()) {
    const std::string path = sitemap_queue.front();
    sitemap_queue.pop_front();
    if (!seen.insert(path).second) continue;
    crawl.fetched[path] = 0;
    crawl.sitemaps.insert(path);
    const SiteGraph::SitemapFile file = site.Sitemap(path);
    if (file.broken) crawl.broken_sitemaps.insert(path);
    for (const std::string& entry : file.paths) {
      if (file.index) {
        sitemap_queue.push_back(entry);
      } else {
        sitemap_pages.insert(entry);
        discover(entry, 1, 0);
      }
    }
  }
  while (!queue.empty()) {
    Item item = std::move(queue.front());
    queue.pop_front();
    crawl.fetched[item.path] = item.depth;
    const SiteResponse r = site.Respond(item.path);
    if (r.status >= 300 && r.status < 400) {
      if (item.hops + 1 > max_redirects) {
        crawl.redirect_errors.insert(item.path);
      } else {
        discover(r.location, item.depth, item.hops + 1);
      }
      continue;
    }
    if (r.status == 404) crawl.not_found.insert(item.path);
    if (r.status != 200 || !r.content_type.starts_with("text/html")) continue;
    const SiteGraph::PageLinks page = site.LinksOn(item.path);
    if (page.meta_nofollow) continue;
    for (const SiteGraph::OutLink& link : page.links) {
      if (!link.path.empty() && !link.nofollow)
        discover(link.path, item.depth + 1, 0);
    }
  }
  // Pages the sitemaps list that the crawl fetches.
  for (const std::string& path : sitemap_pages) {
    if (crawl.fetched.contains(path)) crawl.sitemap_only.insert(path);
  }
  return crawl;
}

}  // namespace sieve::testing_util
