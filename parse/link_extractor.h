// Links pulled out of an HTML page, each resolved and normalised (parse/url.h),
// with what the crawler must obey: rel=nofollow on a link, and nofollow/noindex
// for the whole page from <meta name=robots> or an X-Robots-Tag header.
//
// The page is decoded to UTF-8 first (parse/charset.h: BOM, Content-Type,
// <meta>, windows-1252) and read with the HTML Standard's tokenizer and the
// tree-builder rules that decide which elements a page has
// (parse/html/tokenizer.h, parse/html/tree_state.h), so uppercase tags,
// unclosed tags, raw text, comments and entities in attributes come out as a
// browser sees them. gumbo's full HTML5 tree (LinkOptions::html_parser =
// HtmlParser::kGumbo) gives the same links, about 9 times slower
// (docs/parse_speed.md).
//
// What counts as a link (LinkKind): <a href>, <area href>, <link href> (with
// its rel: canonical, alternate, next, prev, stylesheet...), <iframe src>,
// <frame src>, and the URL of <meta http-equiv=refresh content="5; url=...">.
// With LinkOptions::requisites, the page requisites too (Link::requisite):
// <img src>, every URL of <img srcset> and <source srcset> (HTML Standard
// §4.8.4.3.10), <script src>, and <link href> whose rel is stylesheet, icon,
// apple-touch-icon or mask-icon.
// The first <base href> changes the base for every link of the page.
// javascript:, mailto:, tel:, data: and other non-http(s) hrefs, and hrefs that
// do not parse, are skipped and counted, never an error.
//
// Thread-safe (no shared state; an arena is used by one thread at a time).
// Cost: one pass of the tokenizer (about 210-300 MB/s per core on Debian's
// documentation sites: no tree, no allocation per tag), plus one resolution
// per link, most without libcurl (the base is parsed once per page); see
// bench/parse (bench_parse_site, BM_ExtractDocPages) for MB/s.
// Beware, with HtmlParser::kGumbo: gumbo 0.10.1 is quadratic in nesting depth
// (each start tag scans the stack of open elements): 10,000 nested <div>s
// parse in 0.2 s, 200,000 (1 MB) took 420 s in a debug build. Nothing here
// recurses, so depth cannot overflow the stack, but a crawler should bound the
// page size it parses.
//
// Example:
//   sieve::ExtractedLinks page = sieve::ExtractLinks(
//       body, "http://example.com/dir/", "text/html; charset=utf-8");
//   for (const sieve::Link& link : page.links) {
//     if (!page.nofollow && !link.nofollow) frontier.Push(link.url);
//   }
#ifndef SIEVE_PARSE_LINK_EXTRACTOR_H_
#define SIEVE_PARSE_LINK_EXTRACTOR_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "parse/parse_arena.h"
#include "parse/url.h"

namespace sieve {

enum class LinkKind {
  kAnchor,       // <a href>
  kArea,         // <area href>
  kLink,         // <link href>; see Link::rel
  kIframe,       // <iframe src>
  kFrame,        // <frame src>
  kMetaRefresh,  // <meta http-equiv=refresh content="N; url=...">
  // Only with LinkOptions::requisites:
  kImage,   // <img src>, <img srcset>, <source srcset>: one per URL
  kScript,  // <script src>
};

// "a", "area", "link", "iframe", "frame", "meta-refresh", "img", "script".
std::string_view LinkKindName(LinkKind kind);

struct Link {
  std::string url;  // absolute, normalised (NormalizeUrl with LinkOptions::url)
  LinkKind kind = LinkKind::kAnchor;
  std::string rel;        // rel tokens, lower-cased, single-space separated
                          // ("nofollow noopener"); or ""
  bool nofollow = false;  // rel has the token "nofollow"
  // With LinkOptions::requisites: an image, script, stylesheet or icon the
  // page needs to display, not a page it links to.
  bool requisite = false;

  // True if `token` (lower-case) is one of the rel tokens.
  bool HasRel(std::string_view token) const;
};

struct ExtractedLinks {
  std::vector<Link> links;  // in document order; duplicates kept
  std::string base_url;  // the base links were resolved against (document URL
                         // or <base href>)
  std::string encoding;  // the encoding the page was decoded from
                         // (parse/charset.h name)
  bool nofollow =
      false;  // <meta name=robots content=nofollow|none> or X-Robots-Tag
  bool noindex =
      false;  // <meta name=robots content=noindex|none> or X-Robots-Tag
  int skipped_scheme =
      0;  // hrefs with a scheme other than http(s): javascript:, mailto:, ...
  int skipped_invalid = 0;  // hrefs that do not resolve to a valid URL
  // An element of the document has an id of LinkOptions::find_ids.
  bool found_id = false;
};

// Which HTML parser finds the links. Both give the same links (the
// differential test over Debian's documentation sites,
// tests/parse/html_differential_test.cc); see docs/parse_speed.md.
enum class HtmlParser {
  kTokenizer,  // parse/html: WHATWG tokenizer + tree-state shim, no tree
  kGumbo,      // gumbo's full HTML5 tree (the reference)
};

// "tokenizer", "gumbo".
std::string_view HtmlParserName(HtmlParser parser);
// The parser named `name` (as HtmlParserName gives it), or InvalidArgument
// naming the choices ("must be one of tokenizer, gumbo; got \"x\"").
absl::StatusOr<HtmlParser> ParseHtmlParser(std::string_view name);

struct LinkOptions {
  // The parser. Default: HtmlParser::kTokenizer.
  HtmlParser html_parser = HtmlParser::kTokenizer;

  // Normalisation options applied to every link.
  // Default: UrlOptions{} (RFC 3986 normalisation only).
  UrlOptions url;

  // The crawler's robots product token, lower-case ("sievebot"). <meta
  // name="sievebot"> and X-Robots-Tag "sievebot: noindex" then apply too,
  // besides <meta name=robots>. Default: "" (only the generic "robots"
  // directives apply).
  std::string robots_name;

  // Also extract the page's requisites (Link::requisite). Default: false.
  bool requisites = false;

  // Element ids to look for, compared with the id attribute's value as the
  // tree has it (case-sensitive, character references decoded):
  // ExtractedLinks::found_id says whether an element has one. The crawler's
  // render `auto` mode looks for the frameworks' app roots this way
  // (crawler/render/render_signs.h) instead of reading the page again.
  // Default: {} (none looked for). Cost: one attribute lookup per element.
  std::vector<std::string> find_ids;
};

// Extracts the links of `html_bytes`, a page fetched from `base_url`.
// `content_type` is the HTTP Content-Type header ("" if none); `x_robots_tag`
// the X-Robots-Tag header ("" if none; several headers may be joined with ",
// "). REQUIRES: nothing; any bytes are accepted. If `base_url` is not a valid
// http(s) URL, relative links are counted in skipped_invalid.
// `arena` holds gumbo's tree while the page is parsed (parse/parse_arena.h;
// HtmlParser::kGumbo only); pass the calling thread's own. Default: nullptr,
// an arena kept per thread.
ExtractedLinks ExtractLinks(std::string_view html_bytes,
                            std::string_view base_url,
                            std::string_view content_type = "",
                            std::string_view x_robots_tag = "",
                            const LinkOptions& options = {},
                            ParseArena* arena = nullptr);

}  // namespace sieve

#endif  // SIEVE_PARSE_LINK_EXTRACTOR_H_
