#include "parse/link_extractor.h"

#include <gumbo.h>

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "parse/charset.h"
#include "parse/internal/extract_links.h"
#include "parse/internal/gumbo_document.h"
#include "parse/internal/html_directives.h"
#include "parse/internal/url_canon.h"

namespace sieve {
namespace {

using html_internal::RobotsDirectives;

struct RawLink {
  std::string href;
  LinkKind kind;
  std::string rel;
};

const char* Attr(const GumboElement& element, const char* name) {
  const GumboAttribute* attr = gumbo_get_attribute(&element.attributes, name);
  return attr ? attr->value : nullptr;
}

// rel is a set of space-separated tokens (HTML Standard §4.6.7), ASCII
// case-insensitive.
std::string CanonicalRel(const char* rel) {
  std::string out;
  if (rel == nullptr) return out;
  std::string_view rest(rel);
  while (!rest.empty()) {
    while (!rest.empty() &&
           absl::ascii_isspace(static_cast<unsigned char>(rest.front()))) {
      rest.remove_prefix(1);
    }
    size_t end = 0;
    while (end < rest.size() &&
           !absl::ascii_isspace(static_cast<unsigned char>(rest[end])))
      ++end;
    if (end == 0) break;
    if (!out.empty()) out.push_back(' ');
    std::string token(rest.substr(0, end));
    absl::AsciiStrToLower(&token);
    out += token;
    rest.remove_prefix(end);
  }
  return out;
}

bool HasToken(std::string_view tokens, std::string_view token) {
  while (!tokens.empty()) {
    const size_t space = tokens.find(' ');
    if (tokens.substr(0, space) == token) return true;
    if (space == std::string_view::npos) break;
    tokens.remove_prefix(space + 1);
  }
  return false;
}

// What one page yields before resolution.
struct Collected {
  std::vector<RawLink> links;
  std::optional<std::string> base_href;
  RobotsDirectives robots;
};

void VisitElement(const GumboElement& element, const LinkOptions& options,
                  Collected* out) {
  auto add = [&](const char* attribute, LinkKind kind) {
    if (const char* value = Attr(element, attribute)) {
      out->links.push_back(
          RawLink{value, kind, CanonicalRel(Attr(element, "rel"))});
    }
  };
  switch (element.tag) {
    case GUMBO_TAG_A:
      add("href", LinkKind::kAnchor);
      break;
    case GUMBO_TAG_AREA:
      add("href", LinkKind::kArea);
      break;
    case GUMBO_TAG_LINK:
      add("href", LinkKind::kLink);
      break;
    case GUMBO_TAG_IFRAME:
      add("src", LinkKind::kIframe);
      break;
    case GUMBO_TAG_FRAME:
      add("src", LinkKind::kFrame);
      break;
    case GUMBO_TAG_BASE:
      if (const char* href = Attr(element, "href"); href && !out->base_href)
        out->base_href = href;
      break;
    case GUMBO_TAG_META: {
      const char* content = Attr(element, "content");
      if (content == nullptr) break;
      std::string http_equiv =
          Attr(element, "http-equiv") ? Attr(element, "http-equiv") : "";
      std::string name = Attr(element, "name") ? Attr(element, "name") : "";
      absl::AsciiStrToLower(&http_equiv);
      absl::AsciiStrToLower(&name);
      if (http_equiv == "refresh") {
        if (std::optional<std::string> url =
                html_internal::RefreshUrl(content)) {
          out->links.push_back(
              RawLink{*std::move(url), LinkKind::kMetaRefresh, ""});
        }
      }
      if (name == "robots" ||
          (!options.robots_name.empty() && name == options.robots_name)) {
        html_internal::AddMetaRobots(content, &out->robots);
      }
      break;
    }
    default:
      break;
  }
}

// Depth-first, document order, with an explicit stack: a page may nest elements
// arbitrarily deep.
Collected Collect(const GumboNode* document, const LinkOptions& options) {
  Collected out;
  std::vector<const GumboNode*> stack;
  if (document != nullptr) stack.push_back(document);
  while (!stack.empty()) {
    const GumboNode* node = stack.back();
    stack.pop_back();
    const GumboVector* children = nullptr;
    if (node->type == GUMBO_NODE_DOCUMENT) {
      children = &node->v.document.children;
    } else if (node->type == GUMBO_NODE_ELEMENT ||
               node->type == GUMBO_NODE_TEMPLATE) {
      VisitElement(node->v.element, options, &out);
      children = &node->v.element.children;
    }
    if (children == nullptr) continue;
    for (unsigned i = children->length; i > 0; --i) {
      stack.push_back(static_cast<const GumboNode*>(children->data[i - 1]));
    }
  }
  return out;
}

}  // namespace

std::string_view LinkKindName(LinkKind kind) {
  switch (kind) {
    case LinkKind::kAnchor:
      return "a";
    case LinkKind::kArea:
      return "area";
    case LinkKind::kLink:
      return "link";
    case LinkKind::kIframe:
      return "iframe";
    case LinkKind::kFrame:
      return "frame";
    case LinkKind::kMetaRefresh:
      return "meta-refresh";
  }
  return "?";
}

bool Link::HasRel(std::string_view token) const { return HasToken(rel, token); }

ExtractedLinks ExtractLinks(std::string_view html_bytes,
                            std::string_view base_url,
                            std::string_view content_type,
                            std::string_view x_robots_tag,
                            const LinkOptions& options, ParseArena* arena) {
  return html_internal::ExtractLinksWith(html_bytes, base_url, content_type,
                                         x_robots_tag, options, arena,
                                         url_internal::Resolver::kFast);
}

ExtractedLinks html_internal::ExtractLinksWith(
    std::string_view html_bytes, std::string_view base_url,
    std::string_view content_type, std::string_view x_robots_tag,
    const LinkOptions& options, ParseArena* arena,
    url_internal::Resolver resolver) {
  if (arena == nullptr) {
    // A cache, not state: it changes no result, only where gumbo's memory
    // comes from. One per thread, as the arena is not thread-safe; freed at
    // thread exit.
    thread_local ParseArena thread_arena;
    arena = &thread_arena;
  }
  ExtractedLinks result;
  result.encoding = DetectHtmlEncoding(html_bytes, content_type);
  // gumbo reads UTF-8 and replaces invalid sequences itself, so UTF-8 needs no
  // copy.
  Utf8Text converted;
  std::string_view utf8 = html_bytes;
  if (result.encoding != "UTF-8") {
    converted = ConvertToUtf8(html_bytes, result.encoding);
    utf8 = converted.utf8;
  } else if (utf8.starts_with("\xEF\xBB\xBF")) {
    utf8.remove_prefix(3);
  }

  Collected collected;
  {
    const html_internal::GumboDocument document(utf8, arena);
    collected = Collect(document.document(), options);
  }

  // The document's own URL, then the first <base href> resolved against it
  // (HTML Standard §2.4.1 "document base URL"). A <base> that does not resolve
  // is ignored.
  absl::StatusOr<url_internal::UrlComponents> base =
      url_internal::ResolveComponents("", base_url, resolver);
  if (collected.base_href) {
    if (std::optional<std::string> encoded =
            EncodeQueryIn(*collected.base_href, result.encoding)) {
      *collected.base_href = *std::move(encoded);
    }
    absl::StatusOr<url_internal::UrlComponents> declared =
        url_internal::ResolveAgainst(base, *collected.base_href, resolver);
    if (declared.ok()) base = *std::move(declared);
  }
  result.base_url = base.ok() ? base->Assemble() : std::string(base_url);

  result.links.reserve(collected.links.size());
  for (RawLink& raw : collected.links) {
    const std::string scheme = url_internal::LeadingScheme(raw.href);
    if (!scheme.empty() && scheme != "http" && scheme != "https") {
      ++result.skipped_scheme;
      continue;
    }
    // A query in the document's encoding (URL Standard: the "encoding" a
    // document passes to the URL parser).
    if (std::optional<std::string> encoded =
            EncodeQueryIn(raw.href, result.encoding)) {
      raw.href = *std::move(encoded);
    }
    absl::StatusOr<url_internal::UrlComponents> url =
        url_internal::ResolveAgainst(base, raw.href, resolver);
    if (!url.ok()) {
      ++result.skipped_invalid;
      continue;
    }
    url_internal::ApplyUrlOptions(options.url, &*url);
    Link link;
    link.url = url->Assemble();
    link.kind = raw.kind;
    link.nofollow = HasToken(raw.rel, "nofollow");
    link.rel = std::move(raw.rel);
    result.links.push_back(std::move(link));
  }

  html_internal::AddXRobotsTag(x_robots_tag, options.robots_name,
                               &collected.robots);
  result.nofollow = collected.robots.nofollow;
  result.noindex = collected.robots.noindex;
  return result;
}

}  // namespace sieve
