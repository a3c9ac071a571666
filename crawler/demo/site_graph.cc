#include "crawler/demo/site_graph.h"

#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "crawler/output/warc_format.h"

namespace sieve {
namespace {

absl::string_view AV(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

// SplitMix64 (Steele, Lea, Flood 2014): a fixed, portable mix, so the graph is
// the same on every machine.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::string Html(std::string_view title, const std::string& head,
                 const std::string& body) {
  return absl::StrCat("<!DOCTYPE html>\n<html><head><title>", AV(title),
                      "</title>", head, "</head>\n<body><h1>", AV(title),
                      "</h1>\n", body, "</body></html>\n");
}

// "/p/12.html" -> 12 (when `prefix` is "/p/" and `suffix` ".html").
bool ParseNumbered(std::string_view path, std::string_view prefix,
                   std::string_view suffix, int* n) {
  absl::string_view p = AV(path);
  if (!absl::ConsumePrefix(&p, AV(prefix)) ||
      !absl::ConsumeSuffix(&p, AV(suffix)))
    return false;
  return absl::SimpleAtoi(p, n) && *n >= 0;
}

// Pages that say <meta name="robots" content="nofollow">.
bool MetaNofollow(int page) { return page % 97 == 13; }

bool HasRepeatedSegment(std::string_view path, int max) {
  absl::flat_hash_map<absl::string_view, int> counts;
  for (absl::string_view s : absl::StrSplit(AV(path), '/', absl::SkipEmpty())) {
    if (++counts[s] > max) return true;
  }
  return false;
}

// Pages only the sitemaps reach: /s/0..9.html (pages.xml), /g/0..9.html (the
// two gzip parts of index.xml, five each), /s/b0..1.html (broken.xml).
constexpr int kSitemapPages = 10;
constexpr int kGzipParts = 2;
constexpr int kPagesPerPart = 5;

// The body both /same/ URLs serve, byte for byte.
std::string SamePage() {
  return Html("Mirrored page", "", "<p>The same bytes at two URLs.</p>\n");
}

std::string UrlSet(const std::string& authority,
                   const std::vector<std::string>& paths) {
  std::string xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
  for (const std::string& path : paths) {
    absl::StrAppend(&xml, "  <url><loc>http://", authority, path,
                    "</loc><lastmod>2024-05-01</lastmod></url>\n");
  }
  return xml;
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

SiteResponse SiteGraph::RespondRequisites(std::string_view path) const {
  SiteResponse r;
  if (path == "/req/") {
    r.body =
        Html("Page requisites",
             "<link rel=\"stylesheet\" href=\"style.css\">"
             "<link rel=\"icon\" href=\"/req/favicon.ico\">"
             "<script src=\"app.js\"></script>",
             absl::StrCat(
                 "<img src=\"a.png\"> <img src=\"a.png\" alt=\"again\">\n"
                 "<img src=\"moved.png\">\n"
                 "<img src=\"fallback.png\" srcset=\"small.png 1x, large.png "
                 "2x\">\n<img src=\"http://",
                 options_.offsite_authority,
                 "/req/offsite.png\">\n<a href=\"/req/", std::string(2100, 'x'),
                 "\">too long</a> <a href=\"/p/0.html\">home</a>\n"));
  } else if (path == "/req/style.css") {
    r.content_type = "text/css";
    r.body = "@import \"more.css\";\nbody { background: url('bg.png') }\n";
  } else if (path == "/req/more.css") {
    r.content_type = "text/css; charset=utf-8";
    r.body =
        "h1 { background-image: url(/req/h1.png) }\n"
        "/* url(/req/comment.png) */\n";
  } else if (path == "/req/moved.png") {
    r.status = 301;
    r.location = "/req/moved-target.png";
  } else if (path == "/req/app.js") {
    r.content_type = "application/javascript";
    r.body = "document.write('<a href=\"/req/never.html\">x</a>');\n";
  } else if (absl::EndsWith(AV(path), ".png") ||
             absl::EndsWith(AV(path), ".ico")) {
    r.content_type =
        absl::EndsWith(AV(path), ".png") ? "image/png" : "image/x-icon";
    r.body = std::string("\x89PNG\r\n\x1a\n", 8) + std::string(path);
  } else {
    r.status = 404;
  }
  return r;
}

SiteResponse SiteGraph::RespondThrottling(std::string_view path) const {
  SiteResponse r;
  for (const int code : {429, 503}) {
    const std::string dir = absl::StrCat("/throttle/", code, "/");
    if (path == dir) {
      std::string links = absl::StrCat("<a href=\"", dir, "busy\">busy</a>\n");
      for (int i = 0; i < 10; ++i) {
        absl::StrAppend(&links, "<a href=\"", dir, "ok/", i, "\">", i,
                        "</a>\n");
      }
      r.body = Html(absl::StrCat("throttling ", code), "", links);
      return r;
    }
    if (path == dir + "busy") {
      r.status = code;
      if (code == 503) r.retry_after = "2";
      r.body = Html("busy", "", "try later");
      return r;
    }
    int i = 0;
    if (ParseNumbered(path, absl::StrCat(dir, "ok/"), "", &i) && i < 10) {
      r.body = Html(absl::StrCat("ok ", i), "", "fine");
      return r;
    }
  }
  r.status = 404;
  return r;
}

SiteResponse SiteGraph::Respond(std::string_view raw_path) const {
  std::string_view path = raw_path.substr(0, raw_path.find('?'));
  SiteResponse r;
  int i = 0;
  if (path == "/robots.txt") {
    r.content_type = "text/plain";
    r.body =
        "# Sieve demo site\nUser-agent: *\nDisallow: /private/\n\nUser-agent: "
        "otherbot\n"
        "Disallow: /\n\n"
        "User-agent: MyBot\nDisallow: /p/\n\n";
    for (const std::string& sitemap : SitemapsInRobots()) {
      absl::StrAppend(&r.body, "Sitemap: http://", options_.self_authority,
                      sitemap, "\n");
    }
  } else if (options_.throttle_pages &&
             absl::StartsWith(AV(path), "/throttle/")) {
    r = RespondThrottling(path);
  } else if (options_.charset_pages && path == "/charset/") {
    r.content_type = "text/html; charset=windows-1252";
    r.body =
        "<!doctype html><title>caf\xE9</title>"
        "<a href=\"target?q=caf\xE9\">query</a> "
        "<a href=\"caf\xE9.html\">path</a> "
        "<a href=\"moved\">moved</a>\n";
  } else if (options_.charset_pages && path == "/charset/moved") {
    // A Location as servers write them, not in the crawl's normal form.
    r.status = 301;
    r.location = "caf%e9%20\"q\".html";
  } else if (options_.charset_pages &&
             (path == "/charset/target" ||
              path == "/charset/caf\xC3\xA9.html" ||
              absl::StartsWith(AV(path), "/charset/caf%"))) {
    r.body = Html("charset target", "", "here");
  } else if (options_.requisite_pages && absl::StartsWith(AV(path), "/req/")) {
    r = RespondRequisites(path);
  } else if (path == "/") {
    r.body = Html(
        "Sieve demo site", "",
        absl::StrCat(
            "<a href=\"/p/0.html\">start</a> <a "
            "href=\"p/1.html\">next</a>\n"
            "<a href=\"/same/a.html\">mirror a</a> "
            "<a href=\"/same/b.html\">mirror b</a>\n",
            options_.index_pages > 0 ? "<a href=\"/big/\">index</a>\n" : "",
            options_.traps ? "<a href=\"/search?page=0\">search</a> "
                             "<a href=\"/cal/2026/11/\">calendar</a> "
                             "<a href=\"/shop/0.html\">shop</a>\n"
                           : ""));
  } else if (path == "/same/a.html" || path == "/same/b.html") {
    r.body = SamePage();
  } else if (path == "/sitemaps/index.xml") {
    r.content_type = "application/xml";
    r.body =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<sitemapindex "
        "xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
    for (const std::string& part : Sitemap(path).paths) {
      absl::StrAppend(&r.body, "  <sitemap><loc>http://",
                      options_.self_authority, part, "</loc></sitemap>\n");
    }
    absl::StrAppend(&r.body, "</sitemapindex>\n");
  } else if (path == "/sitemaps/broken.xml") {
    // Two URLs, then an element that never closes.
    r.content_type = "application/xml";
    r.body = absl::StrCat(UrlSet(options_.self_authority, Sitemap(path).paths),
                          "  <url><loc>http://", options_.self_authority,
                          "/s/b2.html\n");
  } else if (absl::StartsWith(AV(path), "/sitemaps/") &&
             !Sitemap(path).paths.empty()) {
    r.content_type = "application/xml";
    r.body = absl::StrCat(UrlSet(options_.self_authority, Sitemap(path).paths),
                          "</urlset>\n");
    if (absl::EndsWith(AV(path), ".gz")) {
      r.content_type = "application/gzip";
      r.body = GzipMember(r.body, /*level=*/9);  // zlib's best
    }
  } else if (absl::StartsWith(AV(path), "/s/") ||
             absl::StartsWith(AV(path), "/g/")) {
    // Reached only through a sitemap (any number answers, as a CMS would).
    r.body = Html(absl::StrCat("Listed in a sitemap: ", AV(path)), "",
                  "<a href=\"/\">home</a>\n");
  } else if (ParseNumbered(path, "/p/", ".html", &i) && i < options_.pages) {
    r.body = RenderPage(i);
  } else if (options_.traps && path == "/search") {
    int page = 0;
    absl::string_view query = AV(raw_path.substr(path.size()));
    if (!absl::ConsumePrefix(&query, "?page=") ||
        !absl::SimpleAtoi(query, &page)) {
      page = 0;
    }
    r.body = Html("Search", "",
                  absl::StrCat("<a href=\"/search?page=", page + 1,
                               "\">more results</a>"));
  } else if (options_.traps && absl::StartsWith(AV(path), "/cal/")) {
    std::vector<std::string> parts =
        absl::StrSplit(AV(path), '/', absl::SkipEmpty());
    int year = 0, month = 0;
    if (parts.size() == 3 && absl::SimpleAtoi(parts[1], &year) &&
        absl::SimpleAtoi(parts[2], &month) && month >= 1 && month <= 12) {
      auto href = [](int y, int m) {
        if (m == 0) return absl::StrCat("/cal/", y - 1, "/12/");
        if (m == 13) return absl::StrCat("/cal/", y + 1, "/01/");
        return absl::StrCat("/cal/", y, "/", m < 10 ? "0" : "", m, "/");
      };
      r.body = Html("Calendar", "",
                    absl::StrCat("<a href=\"", href(year, month - 1),
                                 "\">previous month</a> <a href=\"",
                                 href(year, month + 1), "\">next month</a>"));
    } else {
      r.status = 404;
    }
  } else if (options_.traps && ParseNumbered(path, "/shop/", ".html", &i) &&
             i < 10) {
    // A new session ID for every page view, as a site that puts it in links.
    const std::string sid =
        absl::StrCat(absl::Hex(Mix(std::hash<std::string_view>{}(raw_path))));
    r.body = Html(
        absl::StrCat("Shop ", i), "",
        absl::StrCat("<a href=\"/shop/", (i + 1) % 10, ".html;jsessionid=", sid,
                     "\">next</a> <a href=\"/shop/", (i + 2) % 10,
                     ".html?sid=", sid, "\">after</a> <a href=\"/shop/",
                     (i + 3) % 10, ".html?PHPSESSID=", sid, "\">then</a>"));
  } else if (path == "/big/" && options_.index_pages > 0) {
    std::string body = "<ul>\n";
    for (int j = 0; j < options_.index_pages; ++j) {
      absl::StrAppend(&body, "<li><a href=\"", j, ".html\">page ", j,
                      "</a> (<a href=\"/big/", j, ".html#top\">top</a>)\n");
    }
    r.body = Html("Index", "", absl::StrCat(body, "</ul>\n"));
  } else if (ParseNumbered(path, "/big/", ".html", &i) &&
             i < options_.index_pages) {
    r.body =
        Html(absl::StrCat("Indexed page ", i), "",
             absl::StrCat("<a href=\"/big/\">index</a> <a href=\"",
                          (i + 1) % options_.index_pages, ".html\">next</a>"));
  } else if (ParseNumbered(path, "/old/", "", &i)) {
    r.status = 301;
    r.location = absl::StrCat("/p/", (i * 7 + 3) % options_.pages, ".html");
  } else if (absl::StartsWith(AV(path), "/chain/")) {
    std::vector<std::string> parts =
        absl::StrSplit(AV(path), '/', absl::SkipEmpty());
    int page = 0, k = 0;
    if (parts.size() == 3 && absl::SimpleAtoi(parts[1], &page) &&
        absl::SimpleAtoi(parts[2], &k)) {
      r.status = k > 0 ? 302 : 301;
      r.location = k > 0 ? absl::StrCat("/chain/", page, "/", k - 1)
                         : absl::StrCat("/p/", page % options_.pages, ".html");
    } else {
      r.status = 404;
    }
  } else if (ParseNumbered(path, "/files/", ".pdf", &i)) {
    r.content_type = "application/pdf";
    r.body = absl::StrCat("%PDF-1.4\n% not really a PDF ", i,
                          "\n<a href=\"/never-parsed\">\n");
  } else if (ParseNumbered(path, "/img/", ".png", &i)) {
    r.content_type = "image/png";
    r.body = std::string("\x89PNG\r\n\x1a\n", 8) + std::string(64, '\0');
  } else if (path == "/slow.html") {
    r.delay = options_.slow_page_delay;
    r.body = Html("Slow page", "", "<a href=\"/p/1.html\">back</a>");
  } else if (path == "/style.css") {
    r.content_type = "text/css";
    r.body = "body { font-family: sans-serif; }\n";
  } else if (absl::StartsWith(AV(path), "/t/")) {
    // A trap: every page links one level deeper, forever.
    r.body = Html("Trap", "",
                  absl::StrCat("<a href=\"", AV(path), "x/\">deeper</a>"));
  } else if (absl::StartsWith(AV(path), "/private/") ||
             absl::StartsWith(AV(path), "/nofollow/")) {
    r.body =
        Html("Should not be fetched", "", "<a href=\"/p/0.html\">home</a>");
  } else {
    r.status = 404;
    r.body = Html("Not found", "", "");
  }
  if (r.status == 404) r.body = Html("Not found", "", "");
  return r;
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
