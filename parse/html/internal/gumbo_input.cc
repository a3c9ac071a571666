#include "parse/html/internal/gumbo_input.h"

#include <cstdint>
#include <cstring>
#include <string_view>

namespace sieve::html_internal {
namespace {

// The length of the valid UTF-8 sequence at the start of `s` (1-4), or 0 with
// *bad set to the length of its maximal invalid subpart (Encoding Standard
// §8.1.1 "UTF-8 decoder": an unexpected byte is not consumed).
size_t SequenceLength(std::string_view s, size_t* bad) {
  const auto b0 = static_cast<unsigned char>(s[0]);
  size_t need;
  unsigned char lower = 0x80, upper = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    if (b0 == 0xE0) lower = 0xA0;
    if (b0 == 0xED) upper = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    if (b0 == 0xF0) lower = 0x90;
    if (b0 == 0xF4) upper = 0x8F;
  } else {
    *bad = 1;
    return 0;
  }
  for (size_t i = 1; i <= need; ++i) {
    if (i >= s.size()) {
      *bad = i;
      return 0;
    }
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < lower || b > upper) {
      *bad = i;
      return 0;
    }
    lower = 0x80;
    upper = 0xBF;
  }
  return need + 1;
}

bool GumboReplaces(char32_t c) {
  return (c >= 0x1 && c <= 0x8) || c == 0xB || (c >= 0xE && c <= 0x1F) ||
         (c >= 0x7F && c <= 0x9F) || (c >= 0xFDD0 && c <= 0xFDEF) ||
         (c & 0xFFFE) == 0xFFFE;
}

char32_t Decode(std::string_view s) {
  const auto b0 = static_cast<unsigned char>(s[0]);
  if (s.size() == 1) return b0;
  char32_t cp = b0 & (0x7F >> s.size());
  for (size_t i = 1; i < s.size(); ++i) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3F);
  }
  return cp;
}

bool Plain(char c) {
  const auto b = static_cast<unsigned char>(c);
  return (b >= 0x20 && b < 0x7F) || b == '\t' || b == '\n' || b == '\f' ||
         b == '\r' || b == 0;
}

// True when the 8 bytes at `p` are all printable ASCII (0x20-0x7E), tested
// together: "Determine if a word has a byte less than n" and "greater than n"
// (Sean Eron Anderson, Bit Twiddling Hacks), exact for these n.
bool EightPrintable(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  constexpr uint64_t kOnes = ~uint64_t{0} / 255;
  constexpr uint64_t kHigh = kOnes * 0x80;
  const uint64_t below = (w - kOnes * 0x20) & ~w & kHigh;
  const uint64_t above = ((w + kOnes * (127 - 0x7E)) | w) & kHigh;
  return (below | above) == 0;
}

}  // namespace

void ReplaceAsGumboReads(std::string* text, size_t from) {
  size_t i = from;
  while (i + 8 <= text->size() && EightPrintable(text->data() + i)) i += 8;
  while (i < text->size() && Plain((*text)[i])) ++i;
  if (i == text->size()) return;
  const std::string tail = text->substr(i);
  text->resize(i);
  const std::string_view rest(tail);
  for (size_t j = 0; j < rest.size();) {
    if (Plain(rest[j])) {
      text->push_back(rest[j++]);
      continue;
    }
    size_t bad = 0;
    size_t length = 1;
    if (static_cast<unsigned char>(rest[j]) >= 0x80) {
      length = SequenceLength(rest.substr(j), &bad);
    }
    if (length > 0 && !GumboReplaces(Decode(rest.substr(j, length)))) {
      text->append(rest.substr(j, length));
      j += length;
    } else {
      text->append("\xEF\xBF\xBD");
      j += length > 0 ? length : bad;
    }
  }
}

}  // namespace sieve::html_internal
