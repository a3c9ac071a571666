// Tokenizer::Run: the states of HTML Standard §13.2.5.1-80, in its order.
// `c` is the current input character (Peek); a case that "reconsumes" changes
// state without Consume().
#include <array>
#include <cstring>

#include "parse/html/internal/gumbo_input.h"
#include "parse/html/internal/states.h"
#include "parse/html/tokenizer.h"

namespace sieve::html {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool IsSpace(int c) { return c == '\t' || c == '\n' || c == '\f' || c == ' '; }
bool IsAlpha(int c) { return c >= 0 && (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
char Lower(int c) {
  return static_cast<char>(c >= 'A' && c <= 'Z' ? c | 0x20 : c);
}

// Where the next byte of `bytes` in [begin, end) is, or end.
size_t Find3(std::string_view in, size_t begin, char a, char b, char c) {
  const char* p = in.data() + begin;
  const char* end = in.data() + in.size();
  while (p < end && *p != a && *p != b && *p != c) ++p;
  return static_cast<size_t>(p - in.data());
}

// The bytes that end the fast path of an unquoted attribute value: whitespace
// (CR included), '&', '>', NUL.
constexpr auto kUnquotedStop = [] {
  std::array<bool, 256> stop{};
  for (unsigned char c : {'\t', '\n', '\f', '\r', ' ', '&', '>', '\0'}) {
    stop[c] = true;
  }
  return stop;
}();

}  // namespace

void Tokenizer::AppendRawValue(size_t begin, size_t end) {
  const size_t from = attr_buffer_.size();
  for (size_t i = begin; i < end;) {
    const void* cr = std::memchr(in_.data() + i, '\r', end - i);
    const size_t stop =
        cr ? static_cast<size_t>(static_cast<const char*>(cr) - in_.data())
           : end;
    attr_buffer_.append(in_.data() + i, stop - i);
    if (stop == end) break;
    attr_buffer_.push_back('\n');
    i = stop + 1;
    if (i < end && in_[i] == '\n') ++i;
  }
  if (options_.gumbo_input) {
    html_internal::ReplaceAsGumboReads(&attr_buffer_, from);
  }
}

void Tokenizer::AppendChar(std::string* out, int c) {
  if (c == 0) {
    out->append(kReplacement);
  } else {
    out->push_back(static_cast<char>(c));
  }
}

void Tokenizer::Run() {
  for (;;) {
    const int c = Peek();
    switch (state_) {
      case S::kData: {
        if (!options_.text) {  // text is not wanted: only '<' matters
          const void* lt =
              std::memchr(in_.data() + pos_, '<', in_.size() - pos_);
          if (lt == nullptr) {
            pos_ = in_.size();
            FlushText();
            return;
          }
          pos_ = static_cast<size_t>(static_cast<const char*>(lt) - in_.data());
        } else {
          const size_t stop = Find3(in_, pos_, '<', '&', '\0');
          AppendTextNormalized(pos_, stop);
          pos_ = stop;
        }
        const int d = Peek();
        if (d == kEof) {
          FlushText();
          return;
        }
        ++pos_;
        if (d == '<') {
          state_ = S::kTagOpen;
        } else if (d == '&') {
          ConsumeCharRef(false, nullptr);
        } else {
          text_.push_back('\0');  // NUL in data is kept (the tree drops it)
        }
        break;
      }
      case S::kRcdata:
      case S::kRawtext:
      case S::kScriptData:
      case S::kPlaintext: {
        const bool rcdata = state_ == S::kRcdata;
        const char lt = state_ == S::kPlaintext ? '\0' : '<';
        size_t stop;
        if (!options_.text) {
          const void* p =
              lt ? std::memchr(in_.data() + pos_, lt, in_.size() - pos_)
                 : nullptr;
          stop =
              p ? static_cast<size_t>(static_cast<const char*>(p) - in_.data())
                : in_.size();
        } else {
          stop = Find3(in_, pos_, lt, rcdata ? '&' : '\0', '\0');
          AppendTextNormalized(pos_, stop);
        }
        pos_ = stop;
        const int d = Peek();
        if (d == kEof) {
          FlushText();
          return;
        }
        ++pos_;
        if (d == 0) {
          AppendText(kReplacement);
        } else if (d == '&') {
          ConsumeCharRef(false, nullptr);
        } else if (state_ == S::kScriptData) {
          state_ = S::kScriptDataLessThan;
        } else {
          return_state_ = state_;
          state_ = S::kTextLessThan;
        }
        break;
      }
      case S::kTagOpen:
        if (c == '!') {
          Consume();
          state_ = S::kMarkupDeclarationOpen;
        } else if (c == '/') {
          Consume();
          state_ = S::kEndTagOpen;
        } else if (IsAlpha(c)) {
          StartTagToken(false);
          state_ = S::kTagName;
        } else if (c == '?') {
          comment_.clear();
          state_ = S::kBogusComment;
        } else {
          AppendText("<");
          state_ = S::kData;
        }
        break;
      case S::kEndTagOpen:
        if (IsAlpha(c)) {
          StartTagToken(true);
          state_ = S::kTagName;
        } else if (c == '>') {
          Consume();
          state_ = S::kData;
        } else if (c == kEof) {
          AppendText("</");
          state_ = S::kData;
        } else {
          comment_.clear();
          state_ = S::kBogusComment;
        }
        break;
      case S::kTagName: {
        // Fast path: a run of lower-case letters and digits.
        size_t p = pos_;
        while (p < in_.size() && ((in_[p] >= 'a' && in_[p] <= 'z') ||
                                  (in_[p] >= '0' && in_[p] <= '9'))) {
          ++p;
        }
        if (p > pos_) {
          tag_name_.append(in_.data() + pos_, p - pos_);
          pos_ = p;
          break;
        }
        Consume();
        if (IsSpace(c)) {
          state_ = S::kBeforeAttributeName;
        } else if (c == '/') {
          state_ = S::kSelfClosingStartTag;
        } else if (c == '>') {
          EmitTag();
        } else if (c == kEof) {
          FlushText();
          return;
        } else {
          AppendChar(&tag_name_, Lower(c));
        }
        break;
      }
      case S::kTextLessThan:  // RCDATA / RAWTEXT less-than sign state
        if (c == '/') {
          Consume();
          text_end_tag_start_ = pos_ - 2;
          state_ = S::kTextEndTagOpen;
        } else {
          AppendText("<");
          state_ = return_state_;
        }
        break;
      case S::kTextEndTagOpen:
        if (IsAlpha(c)) {
          StartTagToken(true);
          state_ = S::kTextEndTagName;
        } else {
          AppendText("</");
          state_ = return_state_;
        }
        break;
      case S::kTextEndTagName:
        if ((IsSpace(c) || c == '/' || c == '>') && AppropriateEndTag()) {
          Consume();
          if (c == '>') {
            EmitTag();
          } else {
            state_ =
                IsSpace(c) ? S::kBeforeAttributeName : S::kSelfClosingStartTag;
          }
        } else if (IsAlpha(c)) {
          Consume();
          tag_name_.push_back(Lower(c));
        } else {
          AppendTextNormalized(text_end_tag_start_, pos_);
          state_ = return_state_;
        }
        break;
      case S::kScriptDataLessThan:
        if (c == '/') {
          Consume();
          text_end_tag_start_ = pos_ - 2;
          return_state_ = S::kScriptData;
          state_ = S::kTextEndTagOpen;
        } else if (c == '!') {
          Consume();
          AppendText("<!");
          state_ = S::kScriptDataEscapeStart;
        } else {
          AppendText("<");
          state_ = S::kScriptData;
        }
        break;
      case S::kScriptDataEscapeStart:
      case S::kScriptDataEscapeStartDash:
        if (c == '-') {
          Consume();
          AppendText("-");
          state_ = state_ == S::kScriptDataEscapeStart
                       ? S::kScriptDataEscapeStartDash
                       : S::kScriptDataEscapedDashDash;
        } else {
          state_ = S::kScriptData;
        }
        break;
      case S::kScriptDataEscaped:
      case S::kScriptDataEscapedDash:
      case S::kScriptDataEscapedDashDash:
        if (c == kEof) {
          FlushText();
          return;
        }
        Consume();
        if (c == '-') {
          AppendText("-");
          state_ = state_ == S::kScriptDataEscaped
                       ? S::kScriptDataEscapedDash
                       : S::kScriptDataEscapedDashDash;
        } else if (c == '<') {
          state_ = S::kScriptDataEscapedLessThan;
        } else if (c == '>' && state_ == S::kScriptDataEscapedDashDash) {
          AppendText(">");
          state_ = S::kScriptData;
        } else {
          if (options_.text) AppendChar(&text_, c);
          state_ = S::kScriptDataEscaped;
        }
        break;
      case S::kScriptDataEscapedLessThan:
        if (c == '/') {
          Consume();
          text_end_tag_start_ = pos_ - 2;
          return_state_ = S::kScriptDataEscaped;
          state_ = S::kTextEndTagOpen;
        } else if (IsAlpha(c)) {
          temp_.clear();
          AppendText("<");
          state_ = S::kScriptDataDoubleEscapeStart;
        } else {
          AppendText("<");
          state_ = S::kScriptDataEscaped;
        }
        break;
      case S::kScriptDataDoubleEscapeStart:
      case S::kScriptDataDoubleEscapeEnd: {
        const bool start = state_ == S::kScriptDataDoubleEscapeStart;
        if (IsSpace(c) || c == '/' || c == '>') {
          Consume();
          if (options_.text) AppendChar(&text_, c);
          state_ = (temp_ == "script") == start ? S::kScriptDataDoubleEscaped
                                                : S::kScriptDataEscaped;
        } else if (IsAlpha(c)) {
          Consume();
          temp_.push_back(Lower(c));
          if (options_.text) AppendChar(&text_, c);
        } else {
          state_ = start ? S::kScriptDataEscaped : S::kScriptDataDoubleEscaped;
        }
        break;
      }
      case S::kScriptDataDoubleEscaped:
      case S::kScriptDataDoubleEscapedDash:
      case S::kScriptDataDoubleEscapedDashDash:
        if (c == kEof) {
          FlushText();
          return;
        }
        Consume();
        if (c == '-') {
          AppendText("-");
          state_ = state_ == S::kScriptDataDoubleEscaped
                       ? S::kScriptDataDoubleEscapedDash
                       : S::kScriptDataDoubleEscapedDashDash;
        } else if (c == '<') {
          AppendText("<");
          state_ = S::kScriptDataDoubleEscapedLessThan;
        } else if (c == '>' && state_ == S::kScriptDataDoubleEscapedDashDash) {
          AppendText(">");
          state_ = S::kScriptData;
        } else {
          if (options_.text) AppendChar(&text_, c);
          state_ = S::kScriptDataDoubleEscaped;
        }
        break;
      case S::kScriptDataDoubleEscapedLessThan:
        if (c == '/') {
          Consume();
          temp_.clear();
          AppendText("/");
          state_ = S::kScriptDataDoubleEscapeEnd;
        } else {
          state_ = S::kScriptDataDoubleEscaped;
        }
        break;
      case S::kBeforeAttributeName:
        if (IsSpace(c)) {
          Consume();
        } else if (c == '/' || c == '>' || c == kEof) {
          state_ = S::kAfterAttributeName;
        } else if (c == '=') {
          Consume();
          StartAttribute();
          attr_buffer_.push_back('=');
          state_ = S::kAttributeName;
        } else {
          StartAttribute();
          state_ = S::kAttributeName;
        }
        break;
      case S::kAttributeName:
        if (IsSpace(c) || c == '/' || c == '>' || c == kEof) {
          EndAttributeName();
          state_ = S::kAfterAttributeName;
        } else if (c == '=') {
          Consume();
          EndAttributeName();
          state_ = S::kBeforeAttributeValue;
        } else {
          Consume();
          AppendChar(&attr_buffer_, Lower(c));
        }
        break;
      case S::kAfterAttributeName:
        if (IsSpace(c)) {
          Consume();
        } else if (c == '/') {
          Consume();
          state_ = S::kSelfClosingStartTag;
        } else if (c == '=') {
          Consume();
          state_ = S::kBeforeAttributeValue;
        } else if (c == '>') {
          Consume();
          EmitTag();
        } else if (c == kEof) {
          FlushText();
          return;
        } else {
          StartAttribute();
          state_ = S::kAttributeName;
        }
        break;
      case S::kBeforeAttributeValue:
        if (IsSpace(c)) {
          Consume();
        } else if (c == '"') {
          Consume();
          state_ = S::kAttributeValueDoubleQuoted;
        } else if (c == '\'') {
          Consume();
          state_ = S::kAttributeValueSingleQuoted;
        } else if (c == '>') {
          Consume();
          EmitTag();
        } else {
          state_ = S::kAttributeValueUnquoted;
        }
        break;
      case S::kAttributeValueDoubleQuoted:
      case S::kAttributeValueSingleQuoted: {
        const char quote =
            state_ == S::kAttributeValueDoubleQuoted ? '"' : '\'';
        const size_t stop = Find3(in_, pos_, quote, '&', '\0');
        AppendRawValue(pos_, stop);
        pos_ = stop;
        if (pos_ >= in_.size()) {
          FlushText();
          return;
        }
        ++pos_;
        if (in_[stop] == quote) {
          attrs_.back().value_end = static_cast<uint32_t>(attr_buffer_.size());
          state_ = S::kAfterAttributeValueQuoted;
        } else if (in_[stop] == '&') {
          ConsumeCharRef(true, &attr_buffer_);
        } else {
          attr_buffer_.append(kReplacement);
        }
        attrs_.back().value_end = static_cast<uint32_t>(attr_buffer_.size());
        break;
      }
      case S::kAttributeValueUnquoted: {
        // Fast path: up to the next character with a meaning here.
        size_t stop = pos_;
        while (stop < in_.size() &&
               !kUnquotedStop[static_cast<unsigned char>(in_[stop])]) {
          ++stop;
        }
        if (stop > pos_) {
          AppendRawValue(pos_, stop);
          pos_ = stop;
          attrs_.back().value_end = static_cast<uint32_t>(attr_buffer_.size());
          break;
        }
        if (c == kEof) {
          FlushText();
          return;
        }
        Consume();
        if (IsSpace(c)) {
          state_ = S::kBeforeAttributeName;
        } else if (c == '&') {
          ConsumeCharRef(true, &attr_buffer_);
        } else if (c == '>') {
          EmitTag();
          break;
        } else {
          AppendChar(&attr_buffer_, c);
        }
        attrs_.back().value_end = static_cast<uint32_t>(attr_buffer_.size());
        break;
      }
      case S::kAfterAttributeValueQuoted:
        if (IsSpace(c)) {
          Consume();
          state_ = S::kBeforeAttributeName;
        } else if (c == '/') {
          Consume();
          state_ = S::kSelfClosingStartTag;
        } else if (c == '>') {
          Consume();
          EmitTag();
        } else if (c == kEof) {
          FlushText();
          return;
        } else {
          state_ = S::kBeforeAttributeName;
        }
        break;
      case S::kSelfClosingStartTag:
        if (c == '>') {
          Consume();
          self_closing_ = true;
          EmitTag();
        } else if (c == kEof) {
          FlushText();
          return;
        } else {
          state_ = S::kBeforeAttributeName;
        }
        break;
      case S::kBogusComment:
        if (c == kEof) {
          EmitComment();
          FlushText();
          return;
        }
        Consume();
        if (c == '>') {
          EmitComment();
          state_ = S::kData;
        } else {
          AppendChar(&comment_, c);
        }
        break;
      case S::kMarkupDeclarationOpen:
        comment_.clear();
        if (in_.substr(pos_, 2) == "--") {
          pos_ += 2;
          state_ = S::kCommentStart;
        } else if (MatchAsciiCaseless("doctype")) {
          pos_ += 7;
          state_ = S::kDoctype;
        } else if (in_.substr(pos_, 7) == "[CDATA[") {
          pos_ += 7;
          if (cdata_allowed_) {
            state_ = S::kCdataSection;
          } else {
            comment_ = "[CDATA[";
            state_ = S::kBogusComment;
          }
        } else {
          state_ = S::kBogusComment;
        }
        break;
      case S::kCommentStart:
        if (c == '-') {
          Consume();
          state_ = S::kCommentStartDash;
        } else if (c == '>') {
          Consume();
          EmitComment();
          state_ = S::kData;
        } else {
          state_ = S::kComment;
        }
        break;
      case S::kCommentStartDash:
      case S::kCommentEndDash:
        if (c == '-') {
          Consume();
          state_ = S::kCommentEnd;
        } else if (c == '>' && state_ == S::kCommentStartDash) {
          Consume();
          EmitComment();
          state_ = S::kData;
        } else if (c == kEof) {
          EmitComment();
          FlushText();
          return;
        } else {
          comment_.push_back('-');
          state_ = S::kComment;
        }
        break;
      case S::kComment: {
        // Fast path: everything up to the next '<', '-' or NUL.
        const size_t stop = Find3(in_, pos_, '<', '-', '\0');
        for (size_t i = pos_; i < stop;) {
          const void* cr = std::memchr(in_.data() + i, '\r', stop - i);
          const size_t end = cr ? static_cast<size_t>(
                                      static_cast<const char*>(cr) - in_.data())
                                : stop;
          comment_.append(in_.data() + i, end - i);
          if (end == stop) break;
          comment_.push_back('\n');
          i = end + 1;
          if (i < stop && in_[i] == '\n') ++i;
        }
        pos_ = stop;
        if (pos_ >= in_.size()) {
          EmitComment();
          FlushText();
          return;
        }
        const char d = in_[pos_++];
        if (d == '<') {
          comment_.push_back('<');
          state_ = S::kCommentLessThan;
        } else if (d == '-') {
          state_ = S::kCommentEndDash;
        } else {
          comment_.append(kReplacement);
        }
        break;
      }
      case S::kCommentLessThan:
        if (c == '!') {
          Consume();
          comment_.push_back('!');
          state_ = S::kCommentLessThanBang;
        } else if (c == '<') {
          Consume();
          comment_.push_back('<');
        } else {
          state_ = S::kComment;
        }
        break;
      case S::kCommentLessThanBang:
        if (c == '-') {
          Consume();
          state_ = S::kCommentLessThanBangDash;
        } else {
          state_ = S::kComment;
        }
        break;
      case S::kCommentLessThanBangDash:
        if (c == '-') {
          Consume();
          state_ = S::kCommentLessThanBangDashDash;
        } else {
          state_ = S::kCommentEndDash;
        }
        break;
      case S::kCommentLessThanBangDashDash:
        state_ = S::kCommentEnd;  // nested-comment is only a parse error
        break;
      case S::kCommentEnd:
        if (c == '>') {
          Consume();
          EmitComment();
          state_ = S::kData;
        } else if (c == '!') {
          Consume();
          state_ = S::kCommentEndBang;
        } else if (c == '-') {
          Consume();
          comment_.push_back('-');
        } else if (c == kEof) {
          EmitComment();
          FlushText();
          return;
        } else {
          comment_.append("--");
          state_ = S::kComment;
        }
        break;
      case S::kCommentEndBang:
        if (c == '-') {
          Consume();
          comment_.append("--!");
          state_ = S::kCommentEndDash;
        } else if (c == '>') {
          Consume();
          EmitComment();
          state_ = S::kData;
        } else if (c == kEof) {
          EmitComment();
          FlushText();
          return;
        } else {
          comment_.append("--!");
          state_ = S::kComment;
        }
        break;
      default:
        if (!RunDoctypeOrCdata(c)) return;
        break;
    }
  }
}

}  // namespace sieve::html
