// tests/crawler/crawl/site_answer_key.h: the crawl tests' answer key: which
// URLs of the test site (crawler/demo/site_graph.h) a correct crawl fetches,
// computed by a breadth-first walk with the crawler's rules, independently of
// the crawler's code.
//
// The rules: host scope from "/", robots.txt and rel=nofollow and meta
// nofollow obeyed, trap URLs skipped, redirects followed through the Sieve (a
// target seen before is not fetched again), at most `max_redirects` in a chain,
// and (with `sitemaps`, the crawl's default crawl.sitemaps = "robots") the
// sitemaps robots.txt names fetched at depth 0, an index's sitemaps too, and
// the pages they list at depth 1.
//
// Example:
//   sieve::SiteGraph site({.pages = 300});
//   sieve::testing_util::ExpectedCrawl key = sieve::testing_util::Expected(site);
//   EXPECT_TRUE(key.fetched.contains("/p/12.html"));
#ifndef SIEVE_TESTS_CRAWLER_CRAWL_SITE_ANSWER_KEY_H_
#define SIEVE_TESTS_CRAWLER_CRAWL_SITE_ANSWER_KEY_H_

#include <map>
#include <set>
#include <string>

#include "crawler/demo/site_graph.h"

namespace sieve::testing_util {

struct ExpectedCrawl {
  // Path -> depth, for every URL a crawl fetches.
  std::map<std::string, int> fetched;
  // Paths recorded as too_many_redirects.
  std::set<std::string> redirect_errors;
  // Paths answering 404.
  std::set<std::string> not_found;
  // Sitemap files fetched, and those a parser must report broken.
  std::set<std::string> sitemaps;
  std::set<std::string> broken_sitemaps;
  // Pages the sitemaps list (the test site links none of them).
  std::set<std::string> sitemap_only;
};

// `max_depth` 0 = no limit. Depths follow a breadth-first walk: with a limit, a
// parallel crawl fetches exactly these pages only when every page has one
// shortest path; use the unlimited walk for exact checks. Cost: one Respond
// and one LinksOn per reachable page.
ExpectedCrawl Expected(const SiteGraph& site, int max_depth = 0,
                       int max_redirects = 5, bool sitemaps = true);

}  // namespace sieve::testing_util

#endif  // SIEVE_TESTS_CRAWLER_CRAWL_SITE_ANSWER_KEY_H_
