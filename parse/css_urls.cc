#include "parse/css_urls.h"

#include <cstdint>
#include <optional>

#include "absl/strings/ascii.h"

namespace sieve {
namespace {

// CSS Syntax Level 3, §4.2 definitions.
bool IsWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}
bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' ||
         c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

// ASCII case-insensitive `name` == `lower` (lower-case).
bool EqualsLower(std::string_view name, std::string_view lower) {
  if (name.size() != lower.size()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (absl::ascii_tolower(static_cast<unsigned char>(name[i])) != lower[i])
      return false;
  }
  return true;
}

void AppendUtf8(uint32_t cp, std::string& out) {
  // §4.3.7: zero, a surrogate or past the last code point is U+FFFD.
  if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = 0xFFFD;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

class Scanner {
 public:
  explicit Scanner(std::string_view css) : s_(css) {}

  std::vector<std::string> Run() {
    bool after_import = false;  // The last token was @import.
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '/' && Peek(1) == '*') {
        const size_t end = s_.find("*/", i_ + 2);
        i_ = end == std::string_view::npos ? s_.size() : end + 2;
        continue;
      }
      if (IsWhitespace(c)) {
        ++i_;
        continue;
      }
      if (c == '"' || c == '\'') {
        ++i_;
        std::string value = ReadString(c);
        if (after_import) Keep(std::move(value));
        after_import = false;
        continue;
      }
      if (c == '\\') {  // An escape starts an identifier: not url(.
        i_ += 2;
        after_import = false;
        continue;
      }
      if (c == '@') {
        ++i_;
        const std::string_view name = ReadName();
        after_import = EqualsLower(name, "import");
        continue;
      }
      if (IsNameChar(c)) {
        const std::string_view name = ReadName();
        after_import = false;
        if (Peek(0) == '(' && EqualsLower(name, "url")) {
          ++i_;
          ReadUrl();
        }
        continue;
      }
      ++i_;
      after_import = false;
    }
    return std::move(urls_);
  }

 private:
  char Peek(size_t ahead) const {
    return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0';
  }

  void Keep(std::string url) {
    if (!url.empty()) urls_.push_back(std::move(url));
  }

  std::string_view ReadName() {
    const size_t start = i_;
    while (i_ < s_.size() && IsNameChar(s_[i_])) ++i_;
    return s_.substr(start, i_ - start);
  }

  // §4.3.7, after the backslash; REQUIRES: not at a newline.
  void ReadEscape(std::string& out) {
    if (i_ >= s_.size()) {
      AppendUtf8(0xFFFD, out);
      return;
    }
    if (absl::ascii_isxdigit(static_cast<unsigned char>(s_[i_]))) {
      uint32_t cp = 0;
      for (int n = 0; n < 6 && i_ < s_.size() &&
                      absl::ascii_isxdigit(static_cast<unsigned char>(s_[i_]));
           ++n, ++i_) {
        const char h = absl::ascii_tolower(static_cast<unsigned char>(s_[i_]));
        cp = cp * 16 + static_cast<uint32_t>(h <= '9' ? h - '0' : h - 'a' + 10);
      }
      if (i_ < s_.size() && IsWhitespace(s_[i_])) {
        if (s_[i_] == '\r' && Peek(1) == '\n') ++i_;
        ++i_;
      }
      AppendUtf8(cp, out);
      return;
    }
    out.push_back(s_[i_++]);
  }

  // §4.3.5, after the opening quote. An unescaped newline ends a bad string
  // (kept as read so far: a browser drops it, it is no URL then).
  std::string ReadString(char quote) {
    std::string out;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == quote) {
        ++i_;
        return out;
      }
      if (c == '\n' || c == '\r' || c == '\f') return {};  // Bad string.
      ++i_;
      if (c != '\\') {
        out.push_back(c);
      } else if (i_ < s_.size() && (s_[i_] == '\n' || s_[i_] == '\f')) {
        ++i_;  // An escaped newline continues the string.
      } else if (i_ < s_.size() && s_[i_] == '\r') {
        i_ += Peek(1) == '\n' ? 2 : 1;
      } else {
        ReadEscape(out);
      }
    }
    return out;  // EOF ends the string (a parse error, not a bad string).
  }

  // After "url(": §4.3.6 (a quoted value is a function whose first argument
  // is the string).
  void ReadUrl() {
    while (i_ < s_.size() && IsWhitespace(s_[i_])) ++i_;
    if (Peek(0) == '"' || Peek(0) == '\'') {
      const char quote = s_[i_++];
      Keep(ReadString(quote));
      SkipPastParenthesis();
      return;
    }
    std::string out;
    while (i_ < s_.size()) {
      const char c = s_[i_++];
      if (c == ')') {
        Keep(std::move(out));
        return;
      }
      if (IsWhitespace(c)) {
        while (i_ < s_.size() && IsWhitespace(s_[i_])) ++i_;
        if (Peek(0) == ')') {
          ++i_;
          Keep(std::move(out));
        } else {
          SkipPastParenthesis();  // Bad url.
        }
        return;
      }
      if (c == '"' || c == '\'' || c == '(' ||
          (c == '\\' &&
           (Peek(0) == '\n' || Peek(0) == '\r' || Peek(0) == '\f'))) {
        SkipPastParenthesis();  // Bad url.
        return;
      }
      if (c == '\\') {
        ReadEscape(out);
      } else {
        out.push_back(c);
      }
    }
    Keep(std::move(out));  // EOF ends the url (a parse error).
  }

  // The remnants of a bad url or a url("...") function: up to the ')'.
  void SkipPastParenthesis() {
    while (i_ < s_.size()) {
      const char c = s_[i_++];
      if (c == ')') return;
      if (c == '\\') ++i_;
    }
  }

  std::string_view s_;
  size_t i_ = 0;
  std::vector<std::string> urls_;
};

}  // namespace

std::vector<std::string> ScanCssUrls(std::string_view css) {
  return Scanner(css).Run();
}

CssLinks ExtractCssLinks(std::string_view css, std::string_view base_url,
                         const UrlOptions& options) {
  CssLinks out;
  for (const std::string& ref : ScanCssUrls(css)) {
    absl::StatusOr<std::string> url = ResolveUrl(base_url, ref, options);
    if (url.ok()) {
      out.urls.push_back(*std::move(url));
    } else {
      ++out.skipped;
    }
  }
  return out;
}

}  // namespace sieve
