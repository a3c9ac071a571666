#include "parse/charset.h"

#include <errno.h>
#include <iconv.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "parse/internal/meta_prescan.h"

namespace sieve {
namespace {

constexpr std::string_view kUtf8 = "UTF-8";
constexpr std::string_view kWindows1252 = "windows-1252";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

struct Label {
  std::string_view
      label;  // lower-case, as in the WHATWG Encoding Standard's table
  std::string_view canonical;  // the Standard's name
};

// The labels of the WHATWG Encoding Standard (§4.2) for the encodings crawls
// meet most.
constexpr std::array<Label, 66> kLabels = {{
    {"unicode-1-1-utf-8", kUtf8},
    {"unicode11utf8", kUtf8},
    {"unicode20utf8", kUtf8},
    {"utf-8", kUtf8},
    {"utf8", kUtf8},
    {"x-unicode20utf8", kUtf8},
    {"ansi_x3.4-1968", kWindows1252},
    {"ascii", kWindows1252},
    {"cp1252", kWindows1252},
    {"cp819", kWindows1252},
    {"csisolatin1", kWindows1252},
    {"ibm819", kWindows1252},
    {"iso-8859-1", kWindows1252},
    {"iso-ir-100", kWindows1252},
    {"iso8859-1", kWindows1252},
    {"iso88591", kWindows1252},
    {"iso_8859-1", kWindows1252},
    {"iso_8859-1:1987", kWindows1252},
    {"l1", kWindows1252},
    {"latin1", kWindows1252},
    {"us-ascii", kWindows1252},
    {"windows-1252", kWindows1252},
    {"x-cp1252", kWindows1252},
    {"csshiftjis", "Shift_JIS"},
    {"ms932", "Shift_JIS"},
    {"ms_kanji", "Shift_JIS"},
    {"shift-jis", "Shift_JIS"},
    {"shift_jis", "Shift_JIS"},
    {"sjis", "Shift_JIS"},
    {"windows-31j", "Shift_JIS"},
    {"x-sjis", "Shift_JIS"},
    {"cseucpkdfmtjapanese", "EUC-JP"},
    {"euc-jp", "EUC-JP"},
    {"x-euc-jp", "EUC-JP"},
    {"csiso2022jp", "ISO-2022-JP"},
    {"iso-2022-jp", "ISO-2022-JP"},
    {"chinese", "GBK"},
    {"csgb2312", "GBK"},
    {"csiso58gb231280", "GBK"},
    {"gb2312", "GBK"},
    {"gb_2312", "GBK"},
    {"gb_2312-80", "GBK"},
    {"gbk", "GBK"},
    {"iso-ir-58", "GBK"},
    {"x-gbk", "GBK"},
    {"gb18030", "gb18030"},
    {"big5", "Big5"},
    {"big5-hkscs", "Big5"},
    {"cn-big5", "Big5"},
    {"csbig5", "Big5"},
    {"x-x-big5", "Big5"},
    {"cseuckr", "EUC-KR"},
    {"csksc56011987", "EUC-KR"},
    {"euc-kr", "EUC-KR"},
    {"iso-ir-149", "EUC-KR"},
    {"korean", "EUC-KR"},
    {"ks_c_5601-1987", "EUC-KR"},
    {"ks_c_5601-1989", "EUC-KR"},
    {"ksc5601", "EUC-KR"},
    {"ksc_5601", "EUC-KR"},
    {"windows-949", "EUC-KR"},
    {"unicodefffe", "UTF-16BE"},
    {"utf-16be", "UTF-16BE"},
    {"csunicode", "UTF-16LE"},
    {"utf-16", "UTF-16LE"},
    {"utf-16le", "UTF-16LE"},
}};

// glibc iconv's name for a canonical name where they differ: the WHATWG
// decoders are the Microsoft supersets (Shift_JIS is CP932, EUC-KR is CP949,
// GBK decodes as gb18030).
std::string IconvName(std::string_view canonical) {
  if (canonical == kWindows1252) return "CP1252";
  if (canonical == "Shift_JIS") return "CP932";
  if (canonical == "GBK" || canonical == "gb18030") return "GB18030";
  if (canonical == "Big5") return "BIG5-HKSCS";
  if (canonical == "EUC-KR") return "CP949";
  return std::string(canonical);
}

class Iconv {
 public:
  explicit Iconv(const std::string& from)
      : cd_(iconv_open("UTF-8", from.c_str())) {}
  ~Iconv() {
    if (ok()) iconv_close(cd_);
  }
  Iconv(const Iconv&) = delete;
  Iconv& operator=(const Iconv&) = delete;
  bool ok() const { return cd_ != reinterpret_cast<iconv_t>(-1); }
  iconv_t get() const { return cd_; }

 private:
  iconv_t cd_;
};

std::string_view StripBom(std::string_view bytes, std::string_view canonical) {
  if (canonical == kUtf8 && bytes.starts_with("\xEF\xBB\xBF"))
    return bytes.substr(3);
  if (canonical == "UTF-16LE" && bytes.starts_with("\xFF\xFE"))
    return bytes.substr(2);
  if (canonical == "UTF-16BE" && bytes.starts_with("\xFE\xFF"))
    return bytes.substr(2);
  return bytes;
}

// Length of the valid UTF-8 sequence at `s[i]` (RFC 3629 section 4: no
// overlong forms, no surrogates, nothing past U+10FFFF), or 0 if there is none.
size_t ValidUtf8Length(std::string_view s, size_t i) {
  const auto byte = [&](size_t j) { return static_cast<unsigned char>(s[j]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80;  // Bounds of the second byte (RFC 3629's table).
  unsigned char hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t j = 2; j < n; ++j) {
    if ((byte(i + j) & 0xC0) != 0x80) return 0;
  }
  return n;
}

// iconv's UTF-8 output is not always valid UTF-8 (glibc's UTF-8 decoder
// passes code points past U+10FFFF through): each byte that starts no valid
// sequence becomes U+FFFD. No copy when the text is valid. Found by
// parse/fuzz/charset_fuzzer.
void ReplaceInvalidUtf8(std::string& text, size_t& replaced) {
  size_t i = 0;
  size_t n = 0;
  while (i < text.size() && (n = ValidUtf8Length(text, i)) != 0) i += n;
  if (i == text.size()) return;
  std::string out(text, 0, i);
  while (i < text.size()) {
    n = ValidUtf8Length(text, i);
    if (n == 0) {
      out.append(kReplacement);
      ++replaced;
      ++i;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  text = std::move(out);
}

}  // namespace

std::string CanonicalEncodingName(std::string_view label) {
  std::string lower(label);
  absl::StripAsciiWhitespace(&lower);
  absl::AsciiStrToLower(&lower);
  if (lower.empty()) return "";
  for (const Label& entry : kLabels) {
    if (entry.label == lower) return std::string(entry.canonical);
  }
  // Only a token iconv could name (glibc's iconv_open ignores bytes it does
  // not know, so "\xA0\xDEUTF-8" opened as UTF-8; found by
  // parse/fuzz/charset_fuzzer).
  for (const char c : lower) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) &&
        std::string_view("-_.:").find(c) == std::string_view::npos) {
      return "";
    }
  }
  std::string upper = absl::AsciiStrToUpper(lower);
  if (Iconv(upper).ok())
    return upper;  // e.g. "WINDOWS-1251", "KOI8-R", "ISO-8859-2"
  return "";
}

std::string DetectHtmlEncoding(std::string_view bytes,
                               std::string_view content_type) {
  if (bytes.starts_with("\xEF\xBB\xBF")) return std::string(kUtf8);
  if (bytes.starts_with("\xFF\xFE")) return "UTF-16LE";
  if (bytes.starts_with("\xFE\xFF")) return "UTF-16BE";
  std::string from_header =
      CanonicalEncodingName(charset_internal::CharsetFromContent(content_type));
  if (!from_header.empty()) return from_header;
  std::string from_meta = CanonicalEncodingName(
      charset_internal::PrescanMetaCharset(bytes.substr(0, 1024)));
  // A <meta> cannot declare UTF-16 (the prescan only ran because the bytes are
  // ASCII-compatible), and x-user-defined is windows-1252 for our purpose (HTML
  // Standard §13.2.3.2 step 2.4).
  if (from_meta == "UTF-16LE" || from_meta == "UTF-16BE")
    return std::string(kUtf8);
  if (!from_meta.empty()) return from_meta;
  return std::string(kWindows1252);
}

Utf8Text ConvertToUtf8(std::string_view bytes, std::string_view encoding) {
  Utf8Text result;
  result.encoding = CanonicalEncodingName(encoding);
  Iconv converter(IconvName(result.encoding));
  if (result.encoding.empty() || !converter.ok()) {
    result.encoding = std::string(kWindows1252);
    return ConvertToUtf8(bytes, kWindows1252);
  }
  bytes = StripBom(bytes, result.encoding);
  // UTF-8 output needs at most 3 bytes per input byte for the single- and
  // double-byte encodings we meet; start at 1.5x and grow on E2BIG.
  result.utf8.resize(bytes.size() + bytes.size() / 2 + 16);
  char* in = const_cast<char*>(
      bytes.data());  // iconv's signature; it does not write input.
  size_t in_left = bytes.size();
  size_t used = 0;
  while (true) {
    char* out = result.utf8.data() + used;
    size_t out_left = result.utf8.size() - used;
    const size_t rc = iconv(converter.get(), in_left > 0 ? &in : nullptr,
                            &in_left, &out, &out_left);
    used = result.utf8.size() - out_left;
    if (rc != static_cast<size_t>(-1)) {
      if (in_left == 0) break;
      continue;
    }
    if (errno == E2BIG) {
      result.utf8.resize(result.utf8.size() * 2);
    } else if (errno == EILSEQ || errno == EINVAL) {
      // EILSEQ: an invalid or unmappable sequence; EINVAL: one cut off by the
      // end of input. Either way one byte becomes U+FFFD and decoding resumes
      // at the next byte.
      if (result.utf8.size() - used < kReplacement.size())
        result.utf8.resize(used * 2 + 16);
      result.utf8.replace(used, kReplacement.size(), kReplacement);
      used += kReplacement.size();
      ++result.replaced;
      ++in;
      --in_left;
      if (in_left == 0) break;
    } else {
      break;
    }
  }
  result.utf8.resize(used);
  ReplaceInvalidUtf8(result.utf8, result.replaced);
  // A BOM that iconv decoded (an encoding named in another spelling, or a
  // second BOM) is dropped too: the result never starts with U+FEFF.
  if (std::string_view(result.utf8).starts_with("\xEF\xBB\xBF")) {
    result.utf8.erase(0, 3);
  }
  return result;
}

}  // namespace sieve

namespace sieve {
namespace {

// The code point of the valid UTF-8 sequence `s` (1 to 4 bytes).
uint32_t CodePoint(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  switch (s.size()) {
    case 1:
      return b(0);
    case 2:
      return (uint32_t{b(0)} & 0x1F) << 6 | (b(1) & 0x3F);
    case 3:
      return (uint32_t{b(0)} & 0x0F) << 12 | (uint32_t{b(1)} & 0x3F) << 6 |
             (b(2) & 0x3F);
    default:
      return (uint32_t{b(0)} & 0x07) << 18 | (uint32_t{b(1)} & 0x3F) << 12 |
             (uint32_t{b(2)} & 0x3F) << 6 | (b(3) & 0x3F);
  }
}

void AppendPercentEncoded(std::string& out, std::string_view bytes) {
  constexpr char kHex[] = "0123456789ABCDEF";
  for (char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out.push_back('%');
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0xF]);
  }
}

}  // namespace

std::optional<std::string> EncodeQueryIn(std::string_view href,
                                         std::string_view encoding) {
  // URL Standard "get an output encoding": UTF-16 and replacement give UTF-8.
  if (encoding.empty() || encoding == kUtf8 || encoding == "UTF-16LE" ||
      encoding == "UTF-16BE") {
    return std::nullopt;
  }
  const size_t query = href.find('?');
  if (query == std::string_view::npos) return std::nullopt;
  const size_t end = std::min(href.find('#', query), href.size());
  const std::string_view q = href.substr(query + 1, end - query - 1);
  if (std::all_of(q.begin(), q.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x80;
      })) {
    return std::nullopt;
  }
  const std::string to = IconvName(CanonicalEncodingName(encoding));
  iconv_t cd = iconv_open(to.c_str(), "UTF-8");
  if (cd == reinterpret_cast<iconv_t>(-1)) return std::nullopt;
  std::string out(href.substr(0, query + 1));
  out.reserve(href.size() + 2 * q.size());
  char buffer[32];
  for (size_t i = 0; i < q.size();) {
    size_t n = ValidUtf8Length(q, i);
    if (n == 1) {
      // ASCII as it is, after a stateful encoding (ISO-2022-JP) returns to
      // its initial state.
      char* o = buffer;
      size_t o_left = sizeof(buffer);
      if (iconv(cd, nullptr, nullptr, &o, &o_left) != static_cast<size_t>(-1)) {
        AppendPercentEncoded(out, std::string_view(buffer, o - buffer));
      }
      out.push_back(q[i++]);
      continue;
    }
    if (n == 0) n = 1;  // Not UTF-8: the byte as it is (NormalizeUrl escapes).
    const std::string_view ch = q.substr(i, n);
    i += n;
    char* in = const_cast<char*>(ch.data());  // iconv does not write input.
    size_t in_left = ch.size();
    char* o = buffer;
    size_t o_left = sizeof(buffer);
    if (n > 1 &&
        iconv(cd, &in, &in_left, &o, &o_left) != static_cast<size_t>(-1)) {
      AppendPercentEncoded(out, std::string_view(buffer, o - buffer));
    } else if (n > 1) {
      // Not in the encoding: the URL Standard's encoder writes "&#N;".
      iconv(cd, nullptr, nullptr, nullptr, nullptr);
      absl::StrAppend(&out, "%26%23", CodePoint(ch), "%3B");
    } else {
      out.append(ch);
    }
  }
  // The same at the end.
  char* o = buffer;
  size_t o_left = sizeof(buffer);
  if (iconv(cd, nullptr, nullptr, &o, &o_left) != static_cast<size_t>(-1)) {
    AppendPercentEncoded(out, std::string_view(buffer, o - buffer));
  }
  iconv_close(cd);
  out.append(href.substr(end));
  return out;
}

}  // namespace sieve
