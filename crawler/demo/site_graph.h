// crawler/demo/site_graph.h: the synthetic web site of `sieve crawl --demo` and
// of the crawler's end-to-end tests: a few thousand HTML pages with a known,
// deterministic link graph and the things a crawler must handle: a robots.txt
// with a disallowed part, redirects (one a chain longer than the redirect
// limit), 404s, a slow page, non-HTML files, rel=nofollow links, off-site
// links, a path-repeating trap, mailto:/javascript: links and several spellings
// of one URL.
//
// SiteGraph is pure (no server): Respond(path) says what the server answers,
// and Expected() computes, by a breadth-first walk with the crawler's rules,
// exactly which URLs a correct crawl fetches. crawler/demo/demo_site.h serves
// it over HTTP.
//
// Example:
//   sieve::SiteGraph site({.pages = 2000});
//   sieve::SiteResponse r = site.Respond("/p/12.html");           // 200,
//   text/html sieve::SiteGraph::Crawl c = site.Expected(/*max_depth=*/0);  //
//   paths a crawl fetches
#ifndef SIEVE_CRAWLER_DEMO_SITE_GRAPH_H_
#define SIEVE_CRAWLER_DEMO_SITE_GRAPH_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"

namespace sieve {

struct SiteOptions {
  // Pages /p/0.html ... /p/<pages-1>.html. Default: 3000.
  int pages = 3000;
  // Random links per page besides the chain link to the next page. Default: 6.
  int links_per_page = 6;
  // Seed of the link graph. Default: 7.
  uint64_t seed = 7;
  // How long /slow.html takes to answer. Default: 1.5 s.
  absl::Duration slow_page_delay = absl::Milliseconds(1500);
  // Authority of the off-site links (another host, never to be fetched in host
  // scope). Default: "localhost" plus the server's port, set by DemoSite.
  std::string offsite_authority = "offsite.invalid";
};

struct SiteResponse {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  std::string location;  // For 3xx.
  absl::Duration delay = absl::ZeroDuration();
};

class SiteGraph {
 public:
  explicit SiteGraph(SiteOptions options);

  // What the server answers for `path` (path and query, as requested).
  SiteResponse Respond(std::string_view path) const;

  // A crawl as the crawler's rules make it from "/" (host scope, robots.txt
  // obeyed, nofollow obeyed, redirects through the Sieve, at most
  // `max_redirects` in a chain, trap control).
  struct Crawl {
    std::map<std::string, int>
        fetched;  // Path -> depth, for every URL a crawl fetches.
    std::set<std::string>
        redirect_errors;              // Paths recorded as too_many_redirects.
    std::set<std::string> not_found;  // Paths answering 404.
  };
  // `max_depth` 0 = no limit. Depths follow a breadth-first walk: with a limit,
  // a parallel crawl fetches exactly these pages only when every page has one
  // shortest path; use the unlimited walk for exact checks.
  Crawl Expected(int max_depth = 0, int max_redirects = 5) const;

  // Paths a correct crawler never requests: robots-disallowed, nofollow, trap.
  static bool MustNotBeRequested(std::string_view path);

  const SiteOptions& options() const { return options_; }

 private:
  struct OutLink {
    std::string path;  // Canonical path on this site, or "" for links that are
                       // never followed.
    std::string href;  // As written in the page.
    bool nofollow = false;
  };
  std::vector<OutLink> OutLinks(int page) const;
  std::string RenderPage(int page) const;

  SiteOptions options_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_DEMO_SITE_GRAPH_H_
