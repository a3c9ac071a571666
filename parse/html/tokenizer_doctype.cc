// The DOCTYPE states (HTML Standard §13.2.5.53-68) and the CDATA section
// states (§13.2.5.69-71) of Tokenizer::Run.
#include "parse/html/internal/states.h"
#include "parse/html/tokenizer.h"

namespace sieve::html {
namespace {

bool IsSpace(int c) { return c == '\t' || c == '\n' || c == '\f' || c == ' '; }
char Lower(int c) {
  return static_cast<char>(c >= 'A' && c <= 'Z' ? c | 0x20 : c);
}

}  // namespace

bool Tokenizer::RunDoctypeOrCdata(int c) {
  // Shared endings: '>' emits the DOCTYPE, EOF emits it in quirks mode.
  auto emit = [&](bool quirks) {
    if (quirks) force_quirks_ = true;
    EmitDoctype();
    state_ = S::kData;
  };
  auto at_eof = [&]() {
    emit(true);
    FlushText();
    return false;
  };
  auto value = [&]() -> std::string* {
    return state_ == S::kDoctypePublicIdDoubleQuoted ||
                   state_ == S::kDoctypePublicIdSingleQuoted
               ? &public_id_
               : &system_id_;
  };
  switch (state_) {
    case S::kDoctype:
      doctype_name_.clear();
      public_id_.clear();
      system_id_.clear();
      has_name_ = has_public_ = has_system_ = force_quirks_ = false;
      if (c == kEof) return at_eof();
      if (IsSpace(c)) Consume();
      state_ = S::kBeforeDoctypeName;
      return true;
    case S::kBeforeDoctypeName:
      if (c == kEof) return at_eof();
      Consume();
      if (IsSpace(c)) return true;
      if (c == '>') {
        emit(true);
        return true;
      }
      has_name_ = true;
      AppendChar(&doctype_name_, Lower(c));
      state_ = S::kDoctypeName;
      return true;
    case S::kDoctypeName:
      if (c == kEof) return at_eof();
      Consume();
      if (IsSpace(c)) {
        state_ = S::kAfterDoctypeName;
      } else if (c == '>') {
        emit(false);
      } else {
        AppendChar(&doctype_name_, Lower(c));
      }
      return true;
    case S::kAfterDoctypeName:
      if (c == kEof) return at_eof();
      if (IsSpace(c)) {
        Consume();
      } else if (c == '>') {
        Consume();
        emit(false);
      } else if (MatchAsciiCaseless("public")) {
        pos_ += 6;
        state_ = S::kAfterDoctypePublicKeyword;
      } else if (MatchAsciiCaseless("system")) {
        pos_ += 6;
        state_ = S::kAfterDoctypeSystemKeyword;
      } else {
        force_quirks_ = true;
        state_ = S::kBogusDoctype;
      }
      return true;
    case S::kAfterDoctypePublicKeyword:
    case S::kBeforeDoctypePublicId:
    case S::kAfterDoctypeSystemKeyword:
    case S::kBeforeDoctypeSystemId: {
      const bool is_public = state_ == S::kAfterDoctypePublicKeyword ||
                             state_ == S::kBeforeDoctypePublicId;
      const bool keyword = state_ == S::kAfterDoctypePublicKeyword ||
                           state_ == S::kAfterDoctypeSystemKeyword;
      if (c == kEof) return at_eof();
      if (IsSpace(c)) {
        Consume();
        if (keyword) {
          state_ =
              is_public ? S::kBeforeDoctypePublicId : S::kBeforeDoctypeSystemId;
        }
      } else if (c == '"' || c == '\'') {
        Consume();
        if (is_public) {
          has_public_ = true;
          public_id_.clear();
          state_ = c == '"' ? S::kDoctypePublicIdDoubleQuoted
                            : S::kDoctypePublicIdSingleQuoted;
        } else {
          has_system_ = true;
          system_id_.clear();
          state_ = c == '"' ? S::kDoctypeSystemIdDoubleQuoted
                            : S::kDoctypeSystemIdSingleQuoted;
        }
      } else if (c == '>') {
        Consume();
        emit(true);
      } else {
        force_quirks_ = true;
        state_ = S::kBogusDoctype;
      }
      return true;
    }
    case S::kDoctypePublicIdDoubleQuoted:
    case S::kDoctypePublicIdSingleQuoted:
    case S::kDoctypeSystemIdDoubleQuoted:
    case S::kDoctypeSystemIdSingleQuoted: {
      const bool is_public = state_ == S::kDoctypePublicIdDoubleQuoted ||
                             state_ == S::kDoctypePublicIdSingleQuoted;
      const char quote = state_ == S::kDoctypePublicIdDoubleQuoted ||
                                 state_ == S::kDoctypeSystemIdDoubleQuoted
                             ? '"'
                             : '\'';
      if (c == kEof) return at_eof();
      Consume();
      if (c == quote) {
        state_ =
            is_public ? S::kAfterDoctypePublicId : S::kAfterDoctypeSystemId;
      } else if (c == '>') {
        emit(true);
      } else {
        AppendChar(value(), c);
      }
      return true;
    }
    case S::kAfterDoctypePublicId:
    case S::kBetweenDoctypePublicAndSystemIds:
      if (c == kEof) return at_eof();
      if (IsSpace(c)) {
        Consume();
        state_ = S::kBetweenDoctypePublicAndSystemIds;
      } else if (c == '>') {
        Consume();
        emit(false);
      } else if (c == '"' || c == '\'') {
        Consume();
        has_system_ = true;
        system_id_.clear();
        state_ = c == '"' ? S::kDoctypeSystemIdDoubleQuoted
                          : S::kDoctypeSystemIdSingleQuoted;
      } else {
        force_quirks_ = true;
        state_ = S::kBogusDoctype;
      }
      return true;
    case S::kAfterDoctypeSystemId:
      if (c == kEof) return at_eof();
      if (IsSpace(c)) {
        Consume();
      } else if (c == '>') {
        Consume();
        emit(false);
      } else {
        state_ = S::kBogusDoctype;  // not in quirks mode
      }
      return true;
    case S::kBogusDoctype:
      if (c == kEof) {
        EmitDoctype();
        FlushText();
        return false;
      }
      Consume();
      if (c == '>') emit(false);
      return true;
    case S::kCdataSection: {
      if (c == kEof) {
        FlushText();
        return false;
      }
      const size_t stop = in_.find(']', pos_);
      const size_t end = stop == std::string_view::npos ? in_.size() : stop;
      AppendTextNormalized(pos_, end);
      pos_ = end;
      if (stop != std::string_view::npos) {
        ++pos_;
        state_ = S::kCdataSectionBracket;
      }
      return true;
    }
    case S::kCdataSectionBracket:
      if (c == ']') {
        Consume();
        state_ = S::kCdataSectionEnd;
      } else {
        AppendText("]");
        state_ = S::kCdataSection;
      }
      return true;
    case S::kCdataSectionEnd:
      if (c == ']') {
        Consume();
        AppendText("]");
      } else if (c == '>') {
        Consume();
        state_ = S::kData;
      } else {
        AppendText("]]");
        state_ = S::kCdataSection;
      }
      return true;
    default:
      return true;
  }
}

}  // namespace sieve::html
