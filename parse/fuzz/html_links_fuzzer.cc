// Differential: ExtractLinks with HtmlParser::kTokenizer must give the same
// set of links as gumbo (HtmlParser::kGumbo): the same distinct (URL, kind,
// rel), the same base, robots directives and found_id, on any UTF-8 page. Abort on the
// first difference. Only the set: the two tree-builder steps TreeState does not
// model (parse/html/tree_state.h) change the multiplicity and order of links,
// never the set: the adoption agency clones an <a> (a second copy of a link
// seen before) and foster parenting moves an element before its table. Order
// and multiplicity are checked page by page on real sites
// (tests/parse/html_differential_test.cc).
//
// Inputs with a NUL byte or a "<svg" / "<math" are not compared: there gumbo
// 0.10.1 departs from the HTML Standard (which the tokenizer follows, as the
// html5lib suite shows), and the fuzzer finds those departures at once. They
// are listed in docs/parse_speed.md: NUL before an attribute name is dropped
// (the standard makes it U+FFFD, part of the name); the end tag of any unknown
// element closes any other unknown element (gumbo compares its tag enum);
// svg <title> is missing from the special elements.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "parse/link_extractor.h"

namespace {

sieve::ExtractedLinks Extract(std::string_view html, sieve::HtmlParser parser) {
  sieve::LinkOptions options;
  options.html_parser = parser;
  options.robots_name = "sievebot";
  options.requisites = true;  // Images, scripts and srcsets compared too.
  options.find_ids = {"app", "root"};  // And whether an element has one.
  return sieve::ExtractLinks(html, "http://example.com/dir/page.html",
                             "text/html; charset=utf-8", "", options);
}

std::set<std::tuple<std::string, sieve::LinkKind, std::string>> Distinct(
    const sieve::ExtractedLinks& page) {
  std::set<std::tuple<std::string, sieve::LinkKind, std::string>> links;
  for (const sieve::Link& link : page.links) {
    links.emplace(link.url, link.kind, link.rel);
  }
  return links;
}

bool HasForeignContent(std::string_view html) {
  for (size_t i = html.find('<'); i != std::string_view::npos;
       i = html.find('<', i + 1)) {
    std::string name;
    for (size_t j = i + 1; j < html.size() && name.size() < 4; ++j) {
      name.push_back(static_cast<char>(html[j] | 0x20));
    }
    if (name.starts_with("svg") || name == "math") return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view html(reinterpret_cast<const char*>(data), size);
  if (html.find('\0') != std::string_view::npos || HasForeignContent(html)) {
    return 0;
  }
  const sieve::ExtractedLinks gumbo = Extract(html, sieve::HtmlParser::kGumbo);
  const sieve::ExtractedLinks tokens =
      Extract(html, sieve::HtmlParser::kTokenizer);
  const bool same =
      gumbo.base_url == tokens.base_url && gumbo.nofollow == tokens.nofollow &&
      gumbo.noindex == tokens.noindex && gumbo.found_id == tokens.found_id &&
      Distinct(gumbo) == Distinct(tokens);
  if (!same) {
    for (const auto* page : {&gumbo, &tokens}) {
      std::fprintf(stderr, "%s: base %s, found_id %d\n",
                   page == &gumbo ? "gumbo" : "tokenizer",
                   page->base_url.c_str(), page->found_id ? 1 : 0);
      for (const sieve::Link& link : page->links) {
        std::fprintf(stderr, "  %s %s [%s]\n",
                     std::string(sieve::LinkKindName(link.kind)).c_str(),
                     link.url.c_str(), link.rel.c_str());
      }
    }
    std::abort();
  }
  return 0;
}
