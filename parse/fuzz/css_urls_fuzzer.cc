// Fuzzes ScanCssUrls and ExtractCssLinks (a fetched stylesheet's bytes). Every
// reference is non-empty, and every extracted URL is a fixed point of
// NormalizeUrl.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parse/css_urls.h"
#include "parse/url.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view css(reinterpret_cast<const char*>(data), size);
  for (const std::string& ref : sieve::ScanCssUrls(css)) {
    if (ref.empty()) std::abort();
  }
  const sieve::CssLinks links =
      sieve::ExtractCssLinks(css, "http://example.com/css/main.css");
  for (const std::string& url : links.urls) {
    const absl::StatusOr<std::string> again = sieve::NormalizeUrl(url);
    if (!again.ok() || *again != url) std::abort();
  }
  return 0;
}
