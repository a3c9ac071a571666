#include "parse/link_extractor.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "parse/charset.h"
#include "parse/internal/collect_links.h"
#include "parse/internal/extract_links.h"
#include "parse/internal/html_directives.h"
#include "parse/internal/url_canon.h"

namespace sieve {
namespace {

bool HasToken(std::string_view tokens, std::string_view token) {
  while (!tokens.empty()) {
    const size_t space = tokens.find(' ');
    if (tokens.substr(0, space) == token) return true;
    if (space == std::string_view::npos) break;
    tokens.remove_prefix(space + 1);
  }
  return false;
}

// The rel tokens of a <link> whose target the page needs to display.
constexpr std::string_view kRequisiteRels[] = {"stylesheet", "icon",
                                               "apple-touch-icon", "mask-icon"};

bool IsRequisite(LinkKind kind, std::string_view rel) {
  if (kind == LinkKind::kImage || kind == LinkKind::kScript) return true;
  if (kind != LinkKind::kLink) return false;
  for (std::string_view token : kRequisiteRels) {
    if (HasToken(rel, token)) return true;
  }
  return false;
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
    case LinkKind::kImage:
      return "img";
    case LinkKind::kScript:
      return "script";
  }
  return "?";
}

std::string_view HtmlParserName(HtmlParser parser) {
  switch (parser) {
    case HtmlParser::kTokenizer:
      return "tokenizer";
    case HtmlParser::kGumbo:
      return "gumbo";
  }
  return "?";
}

absl::StatusOr<HtmlParser> ParseHtmlParser(std::string_view name) {
  for (HtmlParser parser : {HtmlParser::kTokenizer, HtmlParser::kGumbo}) {
    if (HtmlParserName(parser) == name) return parser;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "must be one of tokenizer, gumbo; got \"", std::string(name), "\""));
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

  html_internal::Collected collected =
      options.html_parser == HtmlParser::kGumbo
          ? html_internal::CollectWithGumbo(utf8, options, arena)
          : html_internal::CollectWithTokenizer(utf8, options);

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
  for (html_internal::RawLink& raw : collected.links) {
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
    link.requisite = options.requisites && IsRequisite(raw.kind, raw.rel);
    link.rel = std::move(raw.rel);
    result.links.push_back(std::move(link));
  }

  html_internal::AddXRobotsTag(x_robots_tag, options.robots_name,
                               &collected.robots);
  result.nofollow = collected.robots.nofollow;
  result.noindex = collected.robots.noindex;
  result.found_id = collected.found_id;
  return result;
}

}  // namespace sieve
