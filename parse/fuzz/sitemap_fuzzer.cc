// Fuzzes ParseSitemap (XML, text and gzip paths) and checks the result's
// invariants: the URL limit holds, every entry is an http(s) URL of bounded
// length, and the uncompressed count never passes 50 MiB. The input's lines
// are also tried with SitemapMayList.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parse/sitemap.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  for (const bool any_namespace : {false, true}) {
    const sieve::SitemapResult r =
        sieve::ParseSitemap(input, {.accept_any_namespace = any_namespace});
    if (static_cast<int64_t>(r.entries.size()) > sieve::kSitemapMaxUrls ||
        r.uncompressed_bytes > sieve::kSitemapMaxUncompressedBytes) {
      std::abort();
    }
    for (const sieve::SitemapEntry& e : r.entries) {
      std::string scheme = e.url.substr(0, e.url.find("://"));
      for (char& c : scheme) c = static_cast<char>(std::tolower(c));
      if (e.url.size() > sieve::kSitemapMaxUrlBytes ||
          (scheme != "http" && scheme != "https")) {
        std::abort();
      }
      (void)sieve::SitemapMayList(e.url, "http://a.test/d/sitemap.xml", "",
                                  sieve::SitemapLocationRule::kStrict);
    }
    (void)sieve::SitemapErrorName(r.error);
  }
  const size_t nl = input.find('\n');
  const std::string_view first = input.substr(0, nl);
  (void)sieve::SitemapMayList(first, input, "",
                              sieve::SitemapLocationRule::kStrict);
  (void)sieve::SitemapMayList(input, first, first,
                              sieve::SitemapLocationRule::kStrict);
  return 0;
}
