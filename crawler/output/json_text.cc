#include "crawler/output/json_text.h"

#include <cstddef>
#include <cstdint>

namespace sieve {
namespace {

// The UTF-8 sequence at the start of `s`: how many bytes it spans and whether
// it is well formed. An ill-formed one spans its maximal subpart (the longest
// prefix that could begin a well-formed sequence, at least one byte), which is
// replaced by one U+FFFD: Unicode 15 §3.9, "U+FFFD Substitution of Maximal
// Subparts", as nlohmann::json and the WHATWG Encoding standard do. The
// well-formed byte sequences are Unicode's table 3-7 (RFC 3629 §4).
struct Utf8Sequence {
  size_t length;
  bool valid;
};

Utf8Sequence ReadUtf8Sequence(std::string_view s) {
  const auto b0 = static_cast<uint8_t>(s[0]);
  size_t total = 0;
  uint8_t lo = 0x80, hi = 0xBF;  // Range of the second byte.
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    total = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    total = 3;
    if (b0 == 0xE0) lo = 0xA0;  // No overlong forms.
    if (b0 == 0xED) hi = 0x9F;  // No surrogates.
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    total = 4;
    if (b0 == 0xF0) lo = 0x90;  // No overlong forms.
    if (b0 == 0xF4) hi = 0x8F;  // Nothing past U+10FFFF.
  } else {
    return {1, false};  // Not a lead byte.
  }
  size_t i = 1;
  for (; i < total && i < s.size(); ++i) {
    const auto b = static_cast<uint8_t>(s[i]);
    if (b < lo || b > hi) break;
    lo = 0x80;
    hi = 0xBF;
  }
  return {i, i == total};
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<uint8_t>(text[i]);
    if (c >= 0x80) {
      const Utf8Sequence seq = ReadUtf8Sequence(text.substr(i));
      if (seq.valid) {
        out.append(text.substr(i, seq.length));
      } else {
        out.append("\xEF\xBF\xBD");  // U+FFFD.
      }
      i += seq.length;
      continue;
    }
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\b':
        out.append("\\b");
        break;
      case '\f':
        out.append("\\f");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default:
        if (c < 0x20) {
          out.append("\\u00");
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out.push_back('"');
}

void AppendJsonStringOrNull(std::string& out, std::string_view text) {
  if (text.empty()) {
    out.append("null");
  } else {
    AppendJsonString(out, text);
  }
}

}  // namespace sieve
