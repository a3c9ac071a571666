// Fuzzes ExtractLinks. The first byte picks the Content-Type (and so the
// decoder); the rest is the page. Every extracted URL must be a fixed point of
// NormalizeUrl.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parse/link_extractor.h"
#include "parse/url.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  constexpr std::string_view kContentTypes[] = {
      "",
      "text/html; charset=utf-8",
      "text/html; charset=shift_jis",
      "text/html; charset=windows-1252",
      "text/html; charset=utf-16le",
      "text/html; charset=euc-kr",
      "text/html; charset=gb18030",
      "text/html; charset=iso-2022-jp"};
  const std::string_view content_type = kContentTypes[data[0] % 8];
  const std::string_view html(reinterpret_cast<const char*>(data + 1),
                              size - 1);

  sieve::LinkOptions options;
  options.robots_name = "sievebot";
  const sieve::ExtractedLinks page =
      sieve::ExtractLinks(html, "http://example.com/dir/page.html",
                          content_type, "sievebot: noindex", options);
  for (const sieve::Link& link : page.links) {
    const absl::StatusOr<std::string> again = sieve::NormalizeUrl(link.url);
    if (!again.ok() || *again != link.url) std::abort();
  }
  return 0;
}
