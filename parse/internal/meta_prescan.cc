#include "parse/internal/meta_prescan.h"

#include <cstddef>

#include "absl/strings/ascii.h"

namespace sieve::charset_internal {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

bool StartsWithNoCase(std::string_view s, size_t at, std::string_view prefix) {
  if (at > s.size() || s.size() - at < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (absl::ascii_tolower(static_cast<unsigned char>(s[at + i])) != prefix[i])
      return false;
  }
  return true;
}

struct Attribute {
  std::string name;  // lower-cased
  std::string value;
};

// "Get an attribute" of the prescan. Returns false at '>' or the end of input.
bool NextAttribute(std::string_view s, size_t* pos, Attribute* attr) {
  size_t i = *pos;
  while (i < s.size() && (IsSpace(s[i]) || s[i] == '/')) ++i;
  if (i >= s.size() || s[i] == '>') {
    *pos = i;
    return false;
  }
  attr->name.clear();
  attr->value.clear();
  while (i < s.size() && !IsSpace(s[i]) && s[i] != '/' && s[i] != '>' &&
         (s[i] != '=' || attr->name.empty())) {
    attr->name.push_back(
        absl::ascii_tolower(static_cast<unsigned char>(s[i++])));
  }
  while (i < s.size() && IsSpace(s[i])) ++i;
  if (i < s.size() && s[i] == '=') {
    ++i;
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i < s.size() && (s[i] == '"' || s[i] == '\'')) {
      const char quote = s[i++];
      while (i < s.size() && s[i] != quote) attr->value.push_back(s[i++]);
      if (i < s.size()) ++i;
    } else {
      while (i < s.size() && !IsSpace(s[i]) && s[i] != '>')
        attr->value.push_back(s[i++]);
    }
  }
  *pos = i;
  return true;
}

}  // namespace

std::string CharsetFromContent(std::string_view content) {
  for (size_t i = 0; i + 7 <= content.size(); ++i) {
    if (!StartsWithNoCase(content, i, "charset")) continue;
    size_t j = i + 7;
    while (j < content.size() && IsSpace(content[j])) ++j;
    if (j >= content.size() || content[j] != '=') continue;
    ++j;
    while (j < content.size() && IsSpace(content[j])) ++j;
    if (j >= content.size()) return "";
    if (content[j] == '"' || content[j] == '\'') {
      const size_t close = content.find(content[j], j + 1);
      if (close == std::string_view::npos) return "";
      return std::string(content.substr(j + 1, close - j - 1));
    }
    size_t end = j;
    while (end < content.size() && !IsSpace(content[end]) &&
           content[end] != ';')
      ++end;
    return std::string(content.substr(j, end - j));
  }
  return "";
}

std::string PrescanMetaCharset(std::string_view head) {
  size_t i = 0;
  while (i < head.size()) {
    if (head.substr(i, 4) == "<!--") {
      const size_t end = head.find("-->", i + 4);
      if (end == std::string_view::npos) return "";
      i = end + 3;
      continue;
    }
    if (StartsWithNoCase(head, i, "<meta") && i + 5 < head.size() &&
        (IsSpace(head[i + 5]) || head[i + 5] == '/')) {
      size_t pos = i + 5;
      Attribute attr;
      bool got_pragma = false;
      enum { kUnset, kNeedPragma, kNoPragma } need_pragma = kUnset;
      std::string charset;
      while (NextAttribute(head, &pos, &attr)) {
        if (attr.name == "http-equiv") {
          got_pragma =
              got_pragma || absl::AsciiStrToLower(attr.value) == "content-type";
        } else if (attr.name == "content" && charset.empty()) {
          charset = CharsetFromContent(attr.value);
          if (!charset.empty()) need_pragma = kNeedPragma;
        } else if (attr.name == "charset") {
          charset = attr.value;
          need_pragma = kNoPragma;
        }
      }
      if (!charset.empty() && (need_pragma == kNoPragma || got_pragma))
        return charset;
      i = pos + 1;
      continue;
    }
    if (head[i] == '<' && i + 1 < head.size() &&
        (absl::ascii_isalpha(static_cast<unsigned char>(head[i + 1])) ||
         head[i + 1] == '/' || head[i + 1] == '!' || head[i + 1] == '?')) {
      // Another tag, </...>, <!...> or <?...>: skip its attributes so that a
      // quoted ">" or a
      // "<meta" inside a value is not misread.
      size_t pos = i + 2;
      while (pos < head.size() && !IsSpace(head[pos]) && head[pos] != '>')
        ++pos;
      Attribute attr;
      while (NextAttribute(head, &pos, &attr)) {
      }
      i = pos + 1;
      continue;
    }
    ++i;
  }
  return "";
}

}  // namespace sieve::charset_internal
