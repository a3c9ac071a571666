// What one element contributes to a page's links, whichever parser found it
// (gumbo's tree or parse/html's tokens). Private to sieve::parse.
#ifndef SIEVE_PARSE_INTERNAL_LINK_COLLECTOR_H_
#define SIEVE_PARSE_INTERNAL_LINK_COLLECTOR_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "parse/internal/html_directives.h"
#include "parse/link_extractor.h"

namespace sieve::html_internal {

struct RawLink {
  std::string href;
  LinkKind kind;
  std::string rel;  // canonical: lower-case tokens, one space apart
};

// What one page yields before resolution.
struct Collected {
  std::vector<RawLink> links;
  std::optional<std::string> base_href;  // the first <base href>
  RobotsDirectives robots;
  bool found_id = false;  // An element has an id of LinkOptions::find_ids.
};

// The value of an element's attribute (lower-case name), or nullopt.
using AttributeLookup =
    absl::FunctionRef<std::optional<std::string_view>(std::string_view)>;

// Sets out->found_id when `id`, an element's id, is one of
// LinkOptions::find_ids. Each parser calls it for every element with an id
// while out->found_id is false and find_ids is not empty (reading the id
// itself, not through an AttributeLookup: every element has it looked up,
// not only the links').
void NoteId(std::string_view id, const LinkOptions& options, Collected* out);

// Adds what element `tag` (lower-case name) contributes: a link (a, area,
// link, iframe, frame, meta refresh), the first base href, meta robots.
void VisitElement(std::string_view tag, AttributeLookup attribute,
                  const LinkOptions& options, Collected* out);

// The URLs of a srcset attribute, in order (HTML Standard §4.8.4.3.10, "parse
// a srcset attribute": candidates split at commas outside parentheses, each
// URL followed by its descriptors).
std::vector<std::string> SrcsetUrls(std::string_view srcset);

// rel as a set of space-separated tokens (HTML Standard §4.6.7), ASCII
// case-insensitive: lower-case tokens, one space apart.
std::string CanonicalRel(std::string_view rel);

}  // namespace sieve::html_internal

#endif  // SIEVE_PARSE_INTERNAL_LINK_COLLECTOR_H_
