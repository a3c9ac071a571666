// Sitemaps (sitemaps.org protocol 0.9): read the URLs a site lists in an XML
// `urlset`, the sitemaps an XML `sitemapindex` lists, or the lines of a plain
// text sitemap; any of them may be gzip-compressed.
//
// Surprises first:
//   - A broken sitemap is not a failure: the result holds every URL read before
//     the fault plus `error` and `error_message`. HTML served instead of a
//     sitemap, a <url> without <loc>, an unclosed element, a root in a foreign
//     namespace, a DOCTYPE and a corrupt gzip stream each end the parse there.
//   - The protocol's limits are enforced, not trusted: at most kMaxUrls
//     entries and kMaxUncompressedBytes bytes per file, counted after gunzip.
//     A gzip bomb is inflated only up to that limit (streaming, 64 KiB at a
//     time), never further. Hitting a limit sets error kTooManyUrls or
//     kTooLarge and keeps what came before.
//   - Nesting is the caller's business: an index yields the sitemaps it lists
//     (kind kIndex); the caller fetches them, to a depth it bounds.
//   - No DTD, no entities: a DOCTYPE stops the parse (error kDoctype, or
//     kNotASitemap for `<!DOCTYPE html>`), so no external entity is ever
//     loaded and no entity expansion can grow.
//   - Entries whose <loc> is not an absolute http(s) URL of at most
//     kMaxUrlBytes are skipped and counted, not fatal.
//
// Parsed by streaming with expat; memory is O(entries), not O(file).
// Thread-safety: pure functions, safe from any thread.
//
// Example:
//   sieve::SitemapResult r = sieve::ParseSitemap(response.body);
//   for (const sieve::SitemapEntry& e : r.entries) {
//     if (r.kind == sieve::SitemapKind::kIndex) FetchSitemapLater(e.url);
//     else if (sieve::SitemapMayList(e.url, sitemap_url, robots_url,
//                                    sieve::SitemapLocationRule::kLenient))
//       frontier.Push(e.url);   // e.lastmod goes into the URL's metadata
//   }
//   if (!r.ok()) Log(sitemap_url, sieve::SitemapErrorName(r.error),
//                    r.error_message);
#ifndef SIEVE_PARSE_SITEMAP_H_
#define SIEVE_PARSE_SITEMAP_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sieve {

// What the parser found at the root of the file.
enum class SitemapKind : uint8_t {
  kUnknown,  // Nothing recognisable (see error).
  kUrlSet,   // XML <urlset>: entries are pages.
  kIndex,    // XML <sitemapindex>: entries are further sitemaps.
  kText,     // One URL per line: entries are pages.
};

// Why a parse stopped early (kNone: it read the whole file).
enum class SitemapError : uint8_t {
  kNone = 0,
  kNotASitemap,     // The root is not urlset/sitemapindex (HTML, RSS, ...).
  kWrongNamespace,  // The root is not in the sitemaps.org namespace.
  kMissingLoc,      // A <url> or <sitemap> ended without a <loc>.
  kMalformedXml,    // Not well-formed XML (unclosed element, bad token).
  kDoctype,         // A DOCTYPE declaration (DTDs and entities are refused).
  kBadGzip,         // The gzip stream is corrupt (not just cut short).
  kTooManyUrls,     // More than kMaxUrls entries; the first kMaxUrls kept.
  kTooLarge,        // More than kMaxUncompressedBytes after gunzip.
};

// "none", "not_a_sitemap", "wrong_namespace", "missing_loc", "malformed_xml",
// "doctype", "bad_gzip", "too_many_urls", "too_large".
std::string_view SitemapErrorName(SitemapError error);

struct SitemapEntry {
  std::string url;      // The <loc> (or text line), whitespace trimmed.
  std::string lastmod;  // The <lastmod> as written (W3C datetime); may be "".
};

struct SitemapResult {
  SitemapKind kind = SitemapKind::kUnknown;
  std::vector<SitemapEntry> entries;  // In document order.
  SitemapError error = SitemapError::kNone;
  std::string error_message;       // With the line number for XML faults.
  int64_t skipped_entries = 0;     // <loc>s that are not http(s) URLs.
  int64_t uncompressed_bytes = 0;  // Bytes read after gunzip.
  bool gzipped = false;

  bool ok() const { return error == SitemapError::kNone; }
  // True when a protocol limit cut the file (kTooManyUrls or kTooLarge).
  bool truncated() const {
    return error == SitemapError::kTooManyUrls ||
           error == SitemapError::kTooLarge;
  }
};

struct SitemapParseOptions {
  // Accept a root element in any namespace (or none), as some generators
  // write. Default: false (the sitemaps.org 0.9 namespace, or Google's older
  // 0.84/0.9 ones, is required).
  bool accept_any_namespace = false;
};

// sitemaps.org: "no more than 50,000 URLs and must be no larger than 50MB
// (52,428,800 bytes)" per file, uncompressed.
inline constexpr int64_t kSitemapMaxUrls = 50'000;
inline constexpr int64_t kSitemapMaxUncompressedBytes = int64_t{50} << 20;
// sitemaps.org: <loc> "must be less than 2,048 characters".
inline constexpr size_t kSitemapMaxUrlBytes = 2048;

// Parses one sitemap file, gzip-compressed (detected by its magic bytes
// 1f 8b, whatever the Content-Type says) or not. XML when the first
// non-blank character (after a UTF-8 BOM) is '<', text otherwise. Never
// fails; see SitemapResult. Cost: O(min(uncompressed size, 50 MiB)) time,
// O(entries + 64 KiB) memory beyond `bytes`.
SitemapResult ParseSitemap(std::string_view bytes,
                           const SitemapParseOptions& options = {});

// The sitemaps.org location rule: a sitemap at http://h/a/b/sitemap.xml may
// list only URLs under http://h/a/b/ (same scheme, host and port, path
// prefix), unless robots.txt named it, in which case any URL of the robots.txt
// host may appear.
enum class SitemapLocationRule : uint8_t {
  kLenient,  // Every URL is accepted (StormCrawler's default; scope and
             // robots still filter it).
  kStrict,   // The rule above.
};

// True when `url` may be taken from the sitemap at `sitemap_url` under
// `rule`. `robots_txt_url` is the robots.txt that named the sitemap, or ""
// when it was found otherwise (probe, index). Compares with simple string
// rules (scheme and host case-insensitive, default ports dropped); a URL that
// does not parse is refused in kStrict. Cost: O(|url| + |sitemap_url|).
bool SitemapMayList(std::string_view url, std::string_view sitemap_url,
                    std::string_view robots_txt_url, SitemapLocationRule rule);

}  // namespace sieve

#endif  // SIEVE_PARSE_SITEMAP_H_
