// crawler/demo/site_responses.cc: what the test site's server answers for
// each path (SiteGraph::Respond): robots.txt, the feature pages (throttling,
// charsets, requisites), the home page and sitemaps, the graph's pages, the
// traps, the index, redirects and the rest.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "crawler/demo/site_graph.h"
#include "crawler/demo/site_html.h"
#include "crawler/output/warc_format.h"

namespace sieve {

using demo_internal::AV;
using demo_internal::Html;
using demo_internal::Mix;
using demo_internal::ParseNumbered;
using demo_internal::SamePage;
using demo_internal::UrlSet;

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

std::optional<SiteResponse> SiteGraph::RespondFeaturePages(
    std::string_view path) const {
  SiteResponse r;
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
  } else {
    return std::nullopt;
  }
  return r;
}

std::optional<SiteResponse> SiteGraph::RespondHomeAndSitemaps(
    std::string_view path) const {
  SiteResponse r;
  if (path == "/") {
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
  } else {
    return std::nullopt;
  }
  return r;
}

std::optional<SiteResponse> SiteGraph::RespondTraps(
    std::string_view path, std::string_view raw_path) const {
  if (!options_.traps) return std::nullopt;
  SiteResponse r;
  int i = 0;
  if (path == "/search") {
    int page = 0;
    absl::string_view query = AV(raw_path.substr(path.size()));
    if (!absl::ConsumePrefix(&query, "?page=") ||
        !absl::SimpleAtoi(query, &page)) {
      page = 0;
    }
    r.body = Html("Search", "",
                  absl::StrCat("<a href=\"/search?page=", page + 1,
                               "\">more results</a>"));
  } else if (absl::StartsWith(AV(path), "/cal/")) {
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
  } else if (ParseNumbered(path, "/shop/", ".html", &i) && i < 10) {
    // A new session ID for every page view, as a site that puts it in links.
    const std::string sid =
        absl::StrCat(absl::Hex(Mix(std::hash<std::string_view>{}(raw_path))));
    r.body = Html(
        absl::StrCat("Shop ", i), "",
        absl::StrCat("<a href=\"/shop/", (i + 1) % 10, ".html;jsessionid=", sid,
                     "\">next</a> <a href=\"/shop/", (i + 2) % 10,
                     ".html?sid=", sid, "\">after</a> <a href=\"/shop/",
                     (i + 3) % 10, ".html?PHPSESSID=", sid, "\">then</a>"));
  } else {
    return std::nullopt;
  }
  return r;
}

std::optional<SiteResponse> SiteGraph::RespondIndexAndRedirects(
    std::string_view path) const {
  SiteResponse r;
  int i = 0;
  if (path == "/big/" && options_.index_pages > 0) {
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
  } else {
    return std::nullopt;
  }
  return r;
}

SiteResponse SiteGraph::RespondOtherPages(std::string_view path) const {
  SiteResponse r;
  int i = 0;
  if (ParseNumbered(path, "/files/", ".pdf", &i)) {
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
  }
  return r;
}

SiteResponse SiteGraph::Respond(std::string_view raw_path) const {
  const std::string_view path = raw_path.substr(0, raw_path.find('?'));
  // The kinds of page in the order they are tried: the first that knows the
  // path answers.
  int i = 0;
  std::optional<SiteResponse> r = RespondFeaturePages(path);
  if (!r.has_value()) r = RespondHomeAndSitemaps(path);
  if (!r.has_value() && ParseNumbered(path, "/p/", ".html", &i) &&
      i < options_.pages) {
    r = SiteResponse{};
    r->body = RenderPage(i);
  }
  if (!r.has_value()) r = RespondTraps(path, raw_path);
  if (!r.has_value()) r = RespondIndexAndRedirects(path);
  if (!r.has_value()) r = RespondOtherPages(path);
  if (r->status == 404) r->body = Html("Not found", "", "");
  return *std::move(r);
}

}  // namespace sieve
