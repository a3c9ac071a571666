// render/internal/link_script.h: the script that reads a rendered document's
// links, run in an isolated world (Page.createIsolatedWorld): it sees the
// page's DOM but not the page's JavaScript globals, so a page that redefines
// Array, URL or querySelectorAll cannot change what it reads.
#ifndef SIEVE_RENDER_INTERNAL_LINK_SCRIPT_H_
#define SIEVE_RENDER_INTERNAL_LINK_SCRIPT_H_

namespace sieve::render_internal {

// A function expression of one argument (whether to return the serialized
// DOM); returns {links: [absolute http(s) URLs], url: location.href,
// dom: string}. Open shadow roots are walked; URLs are resolved against the
// document's base URL, which <base href> sets.
inline constexpr const char kLinkScript[] = R"JS(
(function(wantDom) {
  const links = [];
  const add = (href) => {
    try {
      const url = new URL(href, document.baseURI);
      if (url.protocol === 'http:' || url.protocol === 'https:') {
        url.hash = '';
        links.push(url.href);
      }
    } catch (e) {}
  };
  const walk = (root) => {
    for (const el of root.querySelectorAll('a[href], area[href]')) {
      add(el.getAttribute('href'));
    }
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  let dom = '';
  if (wantDom) {
    const doctype = document.doctype;
    if (doctype) dom = new XMLSerializer().serializeToString(doctype);
    if (document.documentElement) dom += document.documentElement.outerHTML;
  }
  return {links: links, url: location.href, dom: dom};
})
)JS";

}  // namespace sieve::render_internal

#endif  // SIEVE_RENDER_INTERNAL_LINK_SCRIPT_H_
