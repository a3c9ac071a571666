// crawler/render/render_signs.h: whether an HTML page looks built by script,
// so render.mode = auto renders it (docs/crawling.md, "Rendering").
//
// The signs, each one that a page without JavaScript shows its reader
// nothing, taken from the static bytes only:
//   - an empty app root: an element whose id is one of the mount points of
//     the common frameworks (app, root, __next, __nuxt, ___gatsby, svelte)
//     with nothing inside it;
//   - a <noscript> whose text asks for JavaScript ("enable JavaScript",
//     "requires JavaScript", ...: it contains the word) on a page with fewer
//     than kFewLinks followable links (Javadoc puts one on every page, however
//     full);
//   - scripts, no followable link and little text (under kLittleText visible
//     characters outside <script>, <style>, <noscript> and <template>).
// A page without any <script> never qualifies. A host whose last
// kRendersWithoutLinks renders added no link is not rendered again by auto
// (the frontier keeps the count with the host, parked and checkpointed too:
// CrawlFrontier::RendersWithoutLinks); a render that adds one resets it.
//
// Thread-safe (no state). Cost of ShouldRenderAuto: nothing more for a page
// with kFewLinks links or more and no element with an app root's id (the
// link extractor's pass looks for them: LinkOptions::find_ids =
// AppRootIds()); any other page, a scan for "<script" (find('<') steps),
// then, only when one is there, one pass of the tokenizer with text on.
//
// Example:
//   LinkOptions options;
//   options.find_ids = sieve::AppRootIds();
//   ExtractedLinks links = ExtractLinks(html, url, "", "", options);
//   if (sieve::ShouldRenderAuto(html, links.links.size(), links.found_id))
//     Render(page);
#ifndef SIEVE_CRAWLER_RENDER_RENDER_SIGNS_H_
#define SIEVE_CRAWLER_RENDER_RENDER_SIGNS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sieve {

// Visible characters (not whitespace) under which a page with scripts and no
// link counts as empty: a title and a line of text.
inline constexpr int64_t kLittleText = 200;
// Renders of one host's pages in a row that added no link, after which
// render.mode = auto renders none of its pages: its script builds nothing a
// crawler follows (a theme, a widget), and each render costs a browser's
// time. Three, so one page without links of its own (a contact form) does
// not stop a host whose other pages need the browser.
inline constexpr uint32_t kRendersWithoutLinks = 3;
// Followable links under which a page with a <noscript> about JavaScript
// counts as showing little: a site's navigation alone has more.
inline constexpr int64_t kFewLinks = 5;

// The ids of the common frameworks' mount points, an app root's id: app,
// root, __next, __nuxt, ___gatsby, svelte.
std::vector<std::string> AppRootIds();

// What the signs found in one page.
struct RenderSigns {
  bool scripts = false;         // A <script> element.
  bool empty_app_root = false;  // See the file comment.
  bool noscript_asks_js = false;
  int64_t text_chars = 0;  // Visible characters, whitespace not counted.
};

// The signs of `html` (UTF-8 or ASCII-compatible).
RenderSigns ReadRenderSigns(std::string_view html);

// Whether a page with `signs` and `links_found` followable links is rendered
// by render.mode = auto.
bool LooksScriptBuilt(const RenderSigns& signs, int64_t links_found);

// LooksScriptBuilt(ReadRenderSigns(html), links_found), with the signs read
// only when they can change the answer: what the crawl calls per HTML page.
// REQUIRES: `names_app_root` says whether an element of `html` has an id of
// AppRootIds() (ExtractedLinks::found_id with LinkOptions::find_ids =
// AppRootIds()).
bool ShouldRenderAuto(std::string_view html, int64_t links_found,
                      bool names_app_root);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_RENDER_RENDER_SIGNS_H_
