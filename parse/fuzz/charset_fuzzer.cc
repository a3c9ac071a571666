// Fuzzes the charset layer a fetched page goes through before gumbo:
// DetectHtmlEncoding (BOM, Content-Type, <meta> prescan) and ConvertToUtf8
// (iconv). The first line of the input is the Content-Type header, the rest
// the body. Whatever the bytes, the result must be valid UTF-8 with no BOM.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parse/charset.h"

namespace {

// RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF.
bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    for (size_t j = 1; j <= n; ++j) {
      if (i + j >= s.size()) return false;
      const unsigned char d = static_cast<unsigned char>(s[i + j]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

void Check(const sieve::Utf8Text& text) {
  if (!IsValidUtf8(text.utf8) || text.utf8.starts_with("\xEF\xBB\xBF")) {
    std::fprintf(stderr, "not valid UTF-8 without a BOM (from %s):",
                 text.encoding.c_str());
    for (const char c : text.utf8) {
      std::fprintf(stderr, " %02x", static_cast<unsigned char>(c));
    }
    std::fprintf(stderr, "\n");
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t eol = input.find('\n');
  const std::string_view content_type =
      eol == std::string_view::npos ? std::string_view() : input.substr(0, eol);
  const std::string_view body =
      eol == std::string_view::npos ? input : input.substr(eol + 1);
  const std::string encoding = sieve::DetectHtmlEncoding(body, content_type);
  Check(sieve::ConvertToUtf8(body, encoding));
  (void)sieve::CanonicalEncodingName(content_type);
  // The label as the page gives it, through the fallback paths too.
  Check(sieve::ConvertToUtf8(body, content_type));
  return 0;
}
