// Links from gumbo's tree (HtmlParser::kGumbo, the reference).
#include <gumbo.h>

#include <optional>
#include <vector>

#include "parse/internal/collect_links.h"
#include "parse/internal/gumbo_document.h"

namespace sieve::html_internal {

// Depth-first, document order, with an explicit stack: a page may nest elements
// arbitrarily deep.
Collected CollectWithGumbo(std::string_view utf8, const LinkOptions& options,
                           ParseArena* arena) {
  Collected out;
  const GumboDocument document(utf8, arena);
  std::vector<const GumboNode*> stack;
  if (document.document() != nullptr) stack.push_back(document.document());
  while (!stack.empty()) {
    const GumboNode* node = stack.back();
    stack.pop_back();
    const GumboVector* children = nullptr;
    if (node->type == GUMBO_NODE_DOCUMENT) {
      children = &node->v.document.children;
    } else if (node->type == GUMBO_NODE_ELEMENT ||
               node->type == GUMBO_NODE_TEMPLATE) {
      const GumboElement& element = node->v.element;
      auto attribute =
          [&](std::string_view name) -> std::optional<std::string_view> {
        const GumboAttribute* attr =
            gumbo_get_attribute(&element.attributes, std::string(name).c_str());
        if (attr == nullptr) return std::nullopt;
        return std::string_view(attr->value);
      };
      VisitElement(gumbo_normalized_tagname(element.tag), attribute, options,
                   &out);
      if (!options.find_ids.empty() && !out.found_id) {
        if (const GumboAttribute* id =
                gumbo_get_attribute(&element.attributes, "id")) {
          NoteId(id->value, options, &out);
        }
      }
      children = &element.children;
    }
    if (children == nullptr) continue;
    for (unsigned i = children->length; i > 0; --i) {
      stack.push_back(static_cast<const GumboNode*>(children->data[i - 1]));
    }
  }
  return out;
}

}  // namespace sieve::html_internal
