// crawler/demo/site_graph.h: the synthetic web site of `sieve crawl --demo` and
// of the crawler's end-to-end tests: a few thousand HTML pages with a known,
// deterministic link graph and the things a crawler must handle:
//   - a robots.txt with a disallowed part, and a group for "MyBot" that
//     disallows /p/ (for a crawl under another robots token);
//   - redirects, one a chain longer than the redirect limit;
//   - 404s, a slow page, non-HTML files;
//   - rel=nofollow links and a page with <meta name=robots content=nofollow>;
//   - off-site links, a path-repeating trap, mailto:/javascript: links;
//   - several spellings of one URL;
//   - sitemaps named in robots.txt: a urlset of pages no link reaches
//     (/s/N.html), an index of two gzip sitemaps (/g/N.html), and a broken
//     one (an unclosed element after two URLs);
//   - two URLs serving the same bytes (/same/a.html, /same/b.html).
//   - optionally a large index page, /big/, linking to `index_pages` pages;
//   - optionally traps real sites have: endless query variants, session IDs
//     in links, an endless calendar (`traps`).
//
// SiteGraph is pure (no server): Respond(path) says what the server answers and
// LinksOn(path) lists a page's links as the site wrote them, so a test can
// compute which URLs a correct crawl fetches (the crawl tests' answer key,
// tests/crawler/crawl/site_answer_key.h). crawler/demo/demo_site.h serves it
// over HTTP.
//
// Example:
//   sieve::SiteGraph site({.pages = 2000});
//   sieve::SiteResponse r = site.Respond("/p/12.html");  // 200, text/html
//   sieve::SiteGraph::PageLinks l = site.LinksOn("/p/12.html");
#ifndef SIEVE_CRAWLER_DEMO_SITE_GRAPH_H_
#define SIEVE_CRAWLER_DEMO_SITE_GRAPH_H_

#include <cstdint>
#include <optional>
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
  // Authority of the site itself, for absolute URLs (sitemaps). Default:
  // "127.0.0.1" plus the server's port, set by DemoSite.
  std::string self_authority = "127.0.0.1";
  // When > 0, "/" also links to /big/, an index page linking to /big/0.html
  // ... /big/<index_pages-1>.html, each twice (once with a #fragment), as real
  // documentation indexes do; each of those pages links back to /big/ and to
  // the next one.
  // Default: 0.
  int index_pages = 0;
  // When true, "/" also links to three traps: /search?page=N links to page
  // N+1 forever; /cal/YYYY/MM/ links to the months before and after, forever;
  // the ten real pages /shop/0.html ... /shop/9.html link to each other with a
  // session ID that changes with every page view (";jsessionid=", "?sid=",
  // "?PHPSESSID="). LinksOn lists only the shop pages, so the answer key holds
  // every real page and no trap page. Default: false.
  bool traps = false;
  // DemoSite also serves the hostile pages of hostile_pages.h under /hostile/
  // (not part of the graph: Respond and LinksOn know nothing of them).
  // Default: false.
  bool hostile_pages = false;
  // The graph also answers the throttling pages (not linked from the rest):
  //   /throttle/429/: links to /throttle/429/busy and /throttle/429/ok/0..9;
  //     busy always answers 429 with no Retry-After;
  //   /throttle/503/: links to /throttle/503/busy and /throttle/503/ok/0..9;
  //     busy always answers 503 with "Retry-After: 2".
  // The ok pages answer 200. Default: false.
  bool throttle_pages = false;
  // The graph also answers /charset/, a windows-1252 page (not linked from
  // the rest) linking to /charset/target?q=café and /charset/café.html, the
  // é written as the byte 0xE9, and to /charset/moved, a 301 to
  // `caf%e9%20"q".html` (not in normal form); all answer 200 but the 301.
  // Default: false.
  bool charset_pages = false;
  // The graph also answers /req/ (not linked from the rest), a page with
  // every kind of page requisite: <img> (one twice, one redirected), <img
  // srcset>, <link
  // rel=stylesheet> whose CSS has a url() and an @import (whose CSS has a
  // url() and one in a comment), <script src> (whose text holds a link that
  // is never parsed), <link rel=icon>, an <img> on the off-site authority
  // (a private address the guard refuses), and a link longer than 2048
  // bytes. RequisitesOf("/req/") lists what a crawl with page requisites
  // fetches. Default: false.
  bool requisite_pages = false;
  // DemoSite answers the first this many robots.txt requests with 503.
  // Default: 0.
  int robots_unavailable_first = 0;
  // Added to every answer by DemoSite (a stand-in for a real server's
  // latency, for benchmarks). Default: 0.
  absl::Duration response_delay = absl::ZeroDuration();
  // When both are set, DemoSite serves HTTPS with this PEM certificate (chain)
  // and private key instead of HTTP. The graph's absolute URLs (sitemaps,
  // off-site links) keep http://. Default: "" (HTTP).
  std::string tls_cert_file = "";
  std::string tls_key_file = "";
};

struct SiteResponse {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  std::string location;     // For 3xx.
  std::string retry_after;  // A Retry-After header, when not empty.
  absl::Duration delay = absl::ZeroDuration();
};

class SiteGraph {
 public:
  explicit SiteGraph(SiteOptions options);

  // What the server answers for `path` (path and query, as requested).
  SiteResponse Respond(std::string_view path) const;

  struct OutLink {
    // Canonical path on this site, or "" for links never followed (off-site,
    // mailto:, javascript:).
    std::string path;
    // As written in the page.
    std::string href;
    // rel="nofollow".
    bool nofollow = false;
  };
  struct PageLinks {
    // The page says <meta name="robots" content="nofollow">.
    bool meta_nofollow = false;
    std::vector<OutLink> links;
  };
  // The links of the HTML page at `path` (path and query, as requested), in
  // page order; none for anything else (redirects, 404s, non-HTML files).
  PageLinks LinksOn(std::string_view path) const;

  // Paths a correct crawler never requests: robots-disallowed, nofollow, trap.
  static bool MustNotBeRequested(std::string_view path);

  // The sitemaps robots.txt names, as paths, in file order.
  static std::vector<std::string> SitemapsInRobots();
  struct SitemapFile {
    bool index = false;  // A <sitemapindex>: `paths` are sitemaps.
    // The entries a correct parser reads, as paths (for a broken file, those
    // before the fault).
    std::vector<std::string> paths;
    bool broken = false;  // The file ends in a fault a parser must report.
  };
  // The requisites a crawl with page requisites fetches for the page at
  // `path`, stylesheets' own included, as paths; empty for any other page.
  static std::vector<std::string> RequisitesOf(std::string_view path);

  // What the sitemap at `path` lists; empty for anything else.
  SitemapFile Sitemap(std::string_view path) const;

  const SiteOptions& options() const { return options_; }

 private:
  // The /throttle/ pages (SiteOptions::throttle_pages).
  SiteResponse RespondThrottling(std::string_view path) const;
  // The /req/ pages (SiteOptions::requisite_pages).
  SiteResponse RespondRequisites(std::string_view path) const;
  // Respond's kinds of page, each nullopt for a path not its own (tried in
  // this order): robots.txt and the feature pages (throttling, charsets,
  // requisites); the home page, the mirrored pages and the sitemaps; (the
  // graph's pages;) the traps; the index and the redirects; the rest (404
  // when nothing knows the path).
  std::optional<SiteResponse> RespondFeaturePages(std::string_view path) const;
  std::optional<SiteResponse> RespondHomeAndSitemaps(
      std::string_view path) const;
  std::optional<SiteResponse> RespondTraps(std::string_view path,
                                           std::string_view raw_path) const;
  std::optional<SiteResponse> RespondIndexAndRedirects(
      std::string_view path) const;
  SiteResponse RespondOtherPages(std::string_view path) const;
  std::vector<OutLink> OutLinks(int page) const;
  std::string RenderPage(int page) const;

  SiteOptions options_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_DEMO_SITE_GRAPH_H_
