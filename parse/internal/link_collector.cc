#include "parse/internal/link_collector.h"

#include <algorithm>
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

// Requisites (LinkOptions::requisites): the elements whose attribute loads
// something the page displays.
struct RequisiteElement {
  std::string_view tag;
  std::string_view attribute;
  LinkKind kind;
  bool srcset;  // The attribute is a srcset (several URLs).
};

constexpr RequisiteElement kRequisiteElements[] = {
    {"img", "src", LinkKind::kImage, false},
    {"img", "srcset", LinkKind::kImage, true},
    {"source", "srcset", LinkKind::kImage, true},
    {"script", "src", LinkKind::kScript, false},
};

bool IsSrcsetSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

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

std::vector<std::string> SrcsetUrls(std::string_view s) {
  std::vector<std::string> urls;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (IsSrcsetSpace(s[i]) || s[i] == ',')) ++i;
    const size_t start = i;
    while (i < s.size() && !IsSrcsetSpace(s[i])) ++i;
    std::string_view url = s.substr(start, i - start);
    if (url.empty()) break;
    if (url.ends_with(',')) {
      // No descriptors: the commas end the candidate.
      while (url.ends_with(',')) url.remove_suffix(1);
      if (!url.empty()) urls.emplace_back(url);
      continue;
    }
    urls.emplace_back(url);
    // The descriptors, up to a comma outside parentheses.
    bool in_parens = false;
    for (; i < s.size(); ++i) {
      if (in_parens) {
        in_parens = s[i] != ')';
      } else if (s[i] == '(') {
        in_parens = true;
      } else if (s[i] == ',') {
        ++i;
        break;
      }
    }
  }
  return urls;
}

void NoteId(std::string_view id, const LinkOptions& options, Collected* out) {
  if (std::find(options.find_ids.begin(), options.find_ids.end(), id) !=
      options.find_ids.end()) {
    out->found_id = true;
  }
}

void VisitElement(std::string_view tag, AttributeLookup attribute,
                  const LinkOptions& options, Collected* out) {
  if (options.requisites) {
    for (const RequisiteElement& element : kRequisiteElements) {
      if (element.tag != tag) continue;
      const std::optional<std::string_view> value =
          attribute(element.attribute);
      if (!value) continue;
      if (!element.srcset) {
        out->links.push_back(RawLink{std::string(*value), element.kind, ""});
        continue;
      }
      for (std::string& url : SrcsetUrls(*value)) {
        out->links.push_back(RawLink{std::move(url), element.kind, ""});
      }
    }
  }
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
