#include "parse/internal/link_collector.h"

#include <utility>

#include "absl/strings/ascii.h"

namespace sieve::html_internal {
namespace {

struct LinkElement {
  std::string_view tag;
  std::string_view attribute;
  LinkKind kind;
};

// The elements whose attribute is a link, written once.
constexpr LinkElement kLinkElements[] = {
    {"a", "href", LinkKind::kAnchor},   {"area", "href", LinkKind::kArea},
    {"link", "href", LinkKind::kLink},  {"iframe", "src", LinkKind::kIframe},
    {"frame", "src", LinkKind::kFrame},
};

std::string Lower(std::optional<std::string_view> value) {
  std::string out(value.value_or(""));
  absl::AsciiStrToLower(&out);
  return out;
}

}  // namespace

std::string CanonicalRel(std::string_view rest) {
  std::string out;
  while (!rest.empty()) {
    while (!rest.empty() &&
           absl::ascii_isspace(static_cast<unsigned char>(rest.front()))) {
      rest.remove_prefix(1);
    }
    size_t end = 0;
    while (end < rest.size() &&
           !absl::ascii_isspace(static_cast<unsigned char>(rest[end]))) {
      ++end;
    }
    if (end == 0) break;
    if (!out.empty()) out.push_back(' ');
    const size_t start = out.size();
    out.append(rest.substr(0, end));
    for (size_t i = start; i < out.size(); ++i) {
      out[i] = absl::ascii_tolower(static_cast<unsigned char>(out[i]));
    }
    rest.remove_prefix(end);
  }
  return out;
}

void VisitElement(std::string_view tag, AttributeLookup attribute,
                  const LinkOptions& options, Collected* out) {
  for (const LinkElement& element : kLinkElements) {
    if (element.tag != tag) continue;
    if (std::optional<std::string_view> value = attribute(element.attribute)) {
      out->links.push_back(
          RawLink{std::string(*value), element.kind,
                  CanonicalRel(attribute("rel").value_or(""))});
    }
    return;
  }
  if (tag == "base") {
    if (std::optional<std::string_view> href = attribute("href");
        href && !out->base_href) {
      out->base_href = std::string(*href);
    }
  } else if (tag == "meta") {
    const std::optional<std::string_view> content = attribute("content");
    if (!content) return;
    const std::string http_equiv = Lower(attribute("http-equiv"));
    const std::string name = Lower(attribute("name"));
    if (http_equiv == "refresh") {
      if (std::optional<std::string> url = RefreshUrl(*content)) {
        out->links.push_back(
            RawLink{*std::move(url), LinkKind::kMetaRefresh, ""});
      }
    }
    if (name == "robots" ||
        (!options.robots_name.empty() && name == options.robots_name)) {
      AddMetaRobots(*content, &out->robots);
    }
  }
}

}  // namespace sieve::html_internal
