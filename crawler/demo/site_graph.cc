// crawler/demo/site_graph.cc: the test site's graph: which pages link where
// (OutLinks, LinksOn), its sitemaps and requisites, what must never be
// requested. What the server answers is site_responses.cc's.
#include "crawler/demo/site_graph.h"

#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "crawler/demo/site_html.h"

namespace sieve {
namespace {

using demo_internal::AV;
using demo_internal::Html;
using demo_internal::MetaNofollow;
using demo_internal::Mix;
using demo_internal::ParseNumbered;

// The graph's own numbers: pages only the sitemaps reach: /s/0..9.html
// (pages.xml), /g/0..9.html (the two gzip parts of index.xml, five each),
// /s/b0..1.html (broken.xml).
constexpr int kSitemapPages = 10;
constexpr int kGzipParts = 2;
constexpr int kPagesPerPart = 5;

bool HasRepeatedSegment(std::string_view path, int max) {
  absl::flat_hash_map<absl::string_view, int> counts;
  for (absl::string_view s : absl::StrSplit(AV(path), '/', absl::SkipEmpty())) {
    if (++counts[s] > max) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> SiteGraph::SitemapsInRobots() {
  return {"/sitemaps/pages.xml", "/sitemaps/index.xml", "/sitemaps/broken.xml"};
}

SiteGraph::SitemapFile SiteGraph::Sitemap(std::string_view raw_path) const {
  const std::string_view path = raw_path.substr(0, raw_path.find('?'));
  SitemapFile file;
  int part = 0;
  if (path == "/sitemaps/pages.xml") {
    for (int i = 0; i < kSitemapPages; ++i)
      file.paths.push_back(absl::StrCat("/s/", i, ".html"));
  } else if (path == "/sitemaps/index.xml") {
    file.index = true;
    for (int i = 0; i < kGzipParts; ++i)
      file.paths.push_back(absl::StrCat("/sitemaps/part-", i, ".xml.gz"));
  } else if (ParseNumbered(path, "/sitemaps/part-", ".xml.gz", &part) &&
             part < kGzipParts) {
    for (int i = 0; i < kPagesPerPart; ++i)
      file.paths.push_back(
          absl::StrCat("/g/", part * kPagesPerPart + i, ".html"));
  } else if (path == "/sitemaps/broken.xml") {
    file.paths = {"/s/b0.html", "/s/b1.html"};
    file.broken = true;
  }
  return file;
}

std::vector<std::string> SiteGraph::RequisitesOf(std::string_view path) {
  if (path != "/req/") return {};
  return {"/req/style.css", "/req/more.css",     "/req/bg.png",
          "/req/h1.png",    "/req/favicon.ico",  "/req/app.js",
          "/req/a.png",     "/req/fallback.png", "/req/small.png",
          "/req/large.png", "/req/moved.png",    "/req/moved-target.png"};
}

SiteGraph::SiteGraph(SiteOptions options) : options_(std::move(options)) {}

bool SiteGraph::MustNotBeRequested(std::string_view path) {
  return absl::StartsWith(AV(path), "/private/") ||
         absl::StartsWith(AV(path), "/nofollow/") ||
         HasRepeatedSegment(path, 3);
}

std::vector<SiteGraph::OutLink> SiteGraph::OutLinks(int i) const {
  const int n = options_.pages;
  std::vector<OutLink> links;
  auto page = [](int j) { return absl::StrCat("/p/", j, ".html"); };
  const int next = (i + 1) % n;
  links.push_back({page(next), absl::StrCat(next, ".html"), false});
  for (int k = 0; k < options_.links_per_page; ++k) {
    const int j = static_cast<int>(
        Mix(options_.seed ^ (uint64_t(i) << 20) ^ uint64_t(k)) %
        static_cast<uint64_t>(n));
    // Several spellings of one URL: normalisation must make them one key.
    std::string href;
    switch (k % 5) {
      case 0:
        href = page(j);
        break;
      case 1:
        href = absl::StrCat("../p/", j, ".html");
        break;
      case 2:
        href = absl::StrCat(j, ".html#section-", k);
        break;
      case 3:
        href = absl::StrCat("/p/../p/./", j, ".html");
        break;
      default:
        href = absl::StrCat("  /p/", j, ".html\n");
        break;
    }
    links.push_back({page(j), href, false});
  }
  auto add = [&](const std::string& path, bool nofollow = false) {
    links.push_back({path, path, nofollow});
  };
  if (i % 10 == 0) add(absl::StrCat("/private/", i, ".html"));
  if (i % 25 == 1) add(absl::StrCat("/old/", i));
  if (i % 25 == 2) add(absl::StrCat("/chain/", i, "/3"));
  if (i == 9)
    add(absl::StrCat("/chain/", i, "/7"));  // Longer than the redirect limit.
  if (i % 50 == 3) add(absl::StrCat("/missing/", i, ".html"));
  if (i % 40 == 4) {
    add(absl::StrCat("/files/", i, ".pdf"));
    add(absl::StrCat("/img/", i, ".png"));
  }
  if (i == 5) add("/slow.html");
  if (i == 8) add("/t/x/");
  if (i % 30 == 6)
    add(absl::StrCat("/nofollow/", i, ".html"), /*nofollow=*/true);
  if (i % 30 == 7) {
    links.push_back(
        {"",
         absl::StrCat("http://", options_.offsite_authority, "/p/", i, ".html"),
         false});
  }
  links.push_back({"", "mailto:webmaster@example.com", false});
  links.push_back({"", "javascript:void(0)", false});
  return links;
}

std::string SiteGraph::RenderPage(int i) const {
  std::string head;
  if (MetaNofollow(i)) head = "<meta name=\"robots\" content=\"nofollow\">";
  if (i % 100 == 11)
    absl::StrAppend(&head, "<link rel=\"stylesheet\" href=\"/style.css\">");
  std::string body =
      absl::StrCat("<p>Page ", i, " of the Sieve demo site.</p>\n<ul>\n");
  for (const OutLink& link : OutLinks(i)) {
    absl::StrAppend(&body, "<li><a href=\"", link.href, "\"",
                    link.nofollow ? " rel=\"nofollow\"" : "",
                    ">link</a></li>\n");
  }
  absl::StrAppend(&body, "</ul>\n");
  return Html(absl::StrCat("Page ", i), head, body);
}

SiteGraph::PageLinks SiteGraph::LinksOn(std::string_view raw_path) const {
  const std::string_view path = raw_path.substr(0, raw_path.find('?'));
  PageLinks page;
  int i = 0;
  auto link = [](std::string to) { return OutLink{to, to, false}; };
  if (path == "/") {
    page.links = {link("/p/0.html"), link("/p/1.html"), link("/same/a.html"),
                  link("/same/b.html")};
    if (options_.index_pages > 0) page.links.push_back(link("/big/"));
    if (options_.traps) page.links.push_back(link("/shop/0.html"));
  } else if (absl::StartsWith(AV(path), "/s/") ||
             absl::StartsWith(AV(path), "/g/")) {
    page.links = {link("/")};
  } else if (options_.requisite_pages && path == "/req/") {
    page.links = {link("/p/0.html")};
  } else if (options_.traps && ParseNumbered(path, "/shop/", ".html", &i) &&
             i < 10) {
    for (int k = 1; k <= 3; ++k) {
      page.links.push_back(link(absl::StrCat("/shop/", (i + k) % 10, ".html")));
    }
  } else if (path == "/big/" && options_.index_pages > 0) {
    for (int j = 0; j < options_.index_pages; ++j) {
      page.links.push_back(link(absl::StrCat("/big/", j, ".html")));
    }
  } else if (ParseNumbered(path, "/big/", ".html", &i) &&
             i < options_.index_pages) {
    page.links = {
        link("/big/"),
        link(absl::StrCat("/big/", (i + 1) % options_.index_pages, ".html"))};
  } else if (ParseNumbered(path, "/p/", ".html", &i) && i < options_.pages) {
    page.meta_nofollow = MetaNofollow(i);
    page.links = OutLinks(i);
  } else if (path == "/slow.html") {
    page.links = {link("/p/1.html")};
  } else if (absl::StartsWith(AV(path), "/t/")) {
    page.links = {link(absl::StrCat(AV(path), "x/"))};
  }
  return page;
}

}  // namespace sieve
