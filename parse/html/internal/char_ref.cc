#include "parse/html/internal/char_ref.h"

#include <algorithm>
#include <iterator>

namespace sieve::html_internal {
namespace {

struct NamedRef {
  std::string_view name;  // without '&', with ';' where the table has one
  std::string_view utf8;
};

// Sorted by name (parse/html/gen_entities.py).
constexpr NamedRef kNamed[] = {
#include "parse/html/named_entities.inc"
};
constexpr size_t kLongestName = 32;  // "CounterClockwiseContourIntegral;"

bool IsAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

const NamedRef* FindNamed(std::string_view name) {
  const NamedRef* it = std::lower_bound(
      std::begin(kNamed), std::end(kNamed), name,
      [](const NamedRef& ref, std::string_view key) { return ref.name < key; });
  return it != std::end(kNamed) && it->name == name ? it : nullptr;
}

// §13.2.5.80 "numeric character reference end state": 0x80-0x9F as
// windows-1252 would read them.
constexpr char16_t kC1Replacements[32] = {
    0x20AC, 0x81,   0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,   0x017D, 0x8F,
    0x90,   0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D,   0x017E, 0x0178};

size_t ConsumeNumeric(std::string_view s, std::string* out) {
  // s starts with '#'.
  size_t i = 1;
  const bool hex = i < s.size() && (s[i] == 'x' || s[i] == 'X');
  if (hex) ++i;
  const size_t digits_begin = i;
  uint32_t value = 0;
  for (; i < s.size(); ++i) {
    const int digit =
        hex ? HexValue(s[i]) : (s[i] >= '0' && s[i] <= '9' ? s[i] - '0' : -1);
    if (digit < 0) break;
    value = value * (hex ? 16 : 10) + static_cast<uint32_t>(digit);
    if (value > 0x10FFFF) value = 0x110000;  // saturate: stays out of range
  }
  if (i == digits_begin) {  // absence of digits: the text stays as it was
    out->push_back('&');
    out->append(s.substr(0, i));
    return i;
  }
  if (i < s.size() && s[i] == ';') ++i;
  char32_t cp = value;
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    cp = 0xFFFD;
  } else if (cp >= 0x80 && cp <= 0x9F) {
    cp = kC1Replacements[cp - 0x80];
  }
  AppendUtf8(cp, out);
  return i;
}

}  // namespace

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t ConsumeCharRef(std::string_view after_amp, bool in_attribute,
                      std::string* out) {
  if (!after_amp.empty() && after_amp[0] == '#') {
    return ConsumeNumeric(after_amp, out);
  }
  size_t run = 0;
  while (run < after_amp.size() && run < kLongestName &&
         IsAlnum(after_amp[run])) {
    ++run;
  }
  if (run == 0) {
    out->push_back('&');
    return 0;
  }
  if (run < after_amp.size() && after_amp[run] == ';') ++run;
  // The longest table name that is a prefix of the run.
  for (size_t len = std::min(run, kLongestName); len > 0; --len) {
    const NamedRef* ref = FindNamed(after_amp.substr(0, len));
    if (ref == nullptr) continue;
    if (in_attribute && after_amp[len - 1] != ';' && len < after_amp.size() &&
        (after_amp[len] == '=' || IsAlnum(after_amp[len]))) {
      break;  // historical: "&copy=" in a URL stays as written
    }
    out->append(ref->utf8);
    return len;
  }
  // Not a reference: the '&' stays; the name is ordinary text that follows.
  out->push_back('&');
  return 0;
}

}  // namespace sieve::html_internal
