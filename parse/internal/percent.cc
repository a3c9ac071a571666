#include "parse/internal/percent.h"

namespace sieve::url_internal {
namespace {

constexpr char kHex[] = "0123456789ABCDEF";

// The sets of https://url.spec.whatwg.org/#percent-encoded-bytes, each built on
// the one before.
bool InSet(unsigned char c, EncodeSet set) {
  if (c < 0x20 || c > 0x7E) return true;  // C0 control percent-encode set
  switch (c) {
    case ' ':
    case '"':
    case '#':
    case '<':
    case '>':
      return true;  // query percent-encode set
    case '\'':
      return set == EncodeSet::kQuery;  // special-query set only (paths keep ')
    case '?':
    case '`':
    case '{':
    case '}':
      return set != EncodeSet::kQuery;  // path percent-encode set
    case '/':
    case ':':
    case ';':
    case '=':
    case '@':
    case '[':
    case '\\':
    case ']':
    case '^':
    case '|':
      return set == EncodeSet::kUserinfo;  // userinfo percent-encode set
    default:
      return false;
  }
}

// True if appending `c` to `out` would turn a stray '%' already there into an
// escape ("%%33" must not become "%3", nor "%3%41" "%3A"): such an escape stays
// encoded, so that normalising twice changes nothing.
bool WouldFormEscape(const std::string& out, unsigned char c) {
  if (HexValue(c) < 0 || out.empty()) return false;
  const size_t n = out.size();
  return out[n - 1] == '%' ||
         (n >= 2 && out[n - 2] == '%' &&
          HexValue(static_cast<unsigned char>(out[n - 1])) >= 0);
}

}  // namespace

void AppendEncoded(std::string_view in, EncodeSet set, std::string* out) {
  for (char ch : in) {
    const auto c = static_cast<unsigned char>(ch);
    if (InSet(c, set)) {
      out->push_back('%');
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xF]);
    } else {
      out->push_back(ch);
    }
  }
}

std::string NormalizeEscapes(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%' || i + 2 >= in.size()) {
      out.push_back(in[i]);
      continue;
    }
    const int hi = HexValue(static_cast<unsigned char>(in[i + 1]));
    const int lo = HexValue(static_cast<unsigned char>(in[i + 2]));
    if (hi < 0 || lo < 0) {
      out.push_back(in[i]);
      continue;
    }
    const auto decoded = static_cast<unsigned char>(hi * 16 + lo);
    if (IsUnreserved(decoded) && !WouldFormEscape(out, decoded)) {
      out.push_back(static_cast<char>(decoded));
    } else {
      out.push_back('%');
      out.push_back(kHex[hi]);
      out.push_back(kHex[lo]);
    }
    i += 2;
  }
  return out;
}

std::string DecodeAll(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%' && i + 2 < in.size()) {
      const int hi = HexValue(static_cast<unsigned char>(in[i + 1]));
      const int lo = HexValue(static_cast<unsigned char>(in[i + 2]));
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(in[i]);
  }
  return out;
}

}  // namespace sieve::url_internal
