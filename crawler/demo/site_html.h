// crawler/demo/site_html.h: the small pieces the test site's graph
// (site_graph.cc) and its answers (site_responses.cc) share: its HTML
// template, its numbered paths, its fixed mix. Private to crawler/demo/.
#ifndef SIEVE_CRAWLER_DEMO_SITE_HTML_H_
#define SIEVE_CRAWLER_DEMO_SITE_HTML_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace sieve::demo_internal {

inline absl::string_view AV(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

// SplitMix64 (Steele, Lea, Flood 2014): a fixed, portable mix, so the graph is
// the same on every machine.
inline uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline std::string Html(std::string_view title, const std::string& head,
                        const std::string& body) {
  return absl::StrCat("<!DOCTYPE html>\n<html><head><title>", AV(title),
                      "</title>", head, "</head>\n<body><h1>", AV(title),
                      "</h1>\n", body, "</body></html>\n");
}

// "/p/12.html" -> 12 (when `prefix` is "/p/" and `suffix` ".html").
inline bool ParseNumbered(std::string_view path, std::string_view prefix,
                          std::string_view suffix, int* n) {
  absl::string_view p = AV(path);
  if (!absl::ConsumePrefix(&p, AV(prefix)) ||
      !absl::ConsumeSuffix(&p, AV(suffix)))
    return false;
  return absl::SimpleAtoi(p, n) && *n >= 0;
}

// Pages that say <meta name="robots" content="nofollow">.
inline bool MetaNofollow(int page) { return page % 97 == 13; }

// The body both /same/ URLs serve, byte for byte.
inline std::string SamePage() {
  return Html("Mirrored page", "", "<p>The same bytes at two URLs.</p>\n");
}

inline std::string UrlSet(const std::string& authority,
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

}  // namespace sieve::demo_internal

#endif  // SIEVE_CRAWLER_DEMO_SITE_HTML_H_
