// The URLs a stylesheet loads: every url(...) and every @import "..." of a
// CSS file, for a crawler that fetches page requisites (crawl.page_requisites,
// docs/crawling.md). A scanner of CSS Syntax Level 3's tokens that carry
// URLs, not a CSS parser: comments and strings are skipped as the tokenizer
// skips them, so a url() inside a comment or a string is not one.
//
// What it reads (CSS Syntax Level 3, §4.3): url(x), url("x"), url('x') in any
// case, with white space inside the parentheses; @import "x" and @import
// url(x); escapes (\41, \", an escaped newline in a string) decoded. What it
// does not: image-set("x" 1x) and src: "x" strings (only url() tokens are
// URLs), and a bad url (a quote or '(' inside an unquoted one) is dropped as
// browsers drop it. Bytes are taken as UTF-8 or ASCII; the URLs of a
// stylesheet in another encoding are nearly always ASCII.
//
// Thread-safe (no state). Cost: one pass over the bytes, no recursion; any
// bytes are accepted (parse/fuzz/css_urls_fuzzer.cc).
//
// Example:
//   sieve::CssLinks css = sieve::ExtractCssLinks(
//       "@import 'a.css'; b { background: url(img/b.png) }",
//       "http://example.com/s/main.css");
//   // css.urls: "http://example.com/s/a.css", "http://example.com/s/img/b.png"
#ifndef SIEVE_PARSE_CSS_URLS_H_
#define SIEVE_PARSE_CSS_URLS_H_

#include <string>
#include <string_view>
#include <vector>

#include "parse/url.h"

namespace sieve {

// The URL references of `css` as written (escapes decoded, not resolved), in
// order; empty ones dropped.
std::vector<std::string> ScanCssUrls(std::string_view css);

struct CssLinks {
  std::vector<std::string> urls;  // Absolute, normalised; duplicates kept.
  int skipped = 0;  // data:, other schemes, and references that do not parse.
};

// ScanCssUrls, each resolved against `base_url` (the stylesheet's URL) with
// ResolveUrl and `options`.
CssLinks ExtractCssLinks(std::string_view css, std::string_view base_url,
                         const UrlOptions& options = {});

}  // namespace sieve

#endif  // SIEVE_PARSE_CSS_URLS_H_
