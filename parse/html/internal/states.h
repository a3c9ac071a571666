// The tokenizer's states, HTML Standard §13.2.5, in the standard's order (the
// RCDATA, RAWTEXT and script data end-tag states share kText* with the state to
// return to in return_state_). Private to sieve::parse.
#ifndef SIEVE_PARSE_HTML_INTERNAL_STATES_H_
#define SIEVE_PARSE_HTML_INTERNAL_STATES_H_

#include <cstdint>

#include "parse/html/tokenizer.h"

namespace sieve::html {

enum class Tokenizer::S : uint8_t {
  kData,
  kRcdata,
  kRawtext,
  kScriptData,
  kPlaintext,
  kTagOpen,
  kEndTagOpen,
  kTagName,
  kTextLessThan,    // RCDATA / RAWTEXT less-than sign (return_state_)
  kTextEndTagOpen,  // RCDATA / RAWTEXT / script data (escaped) end tag open
  kTextEndTagName,  // ... end tag name
  kScriptDataLessThan,
  kScriptDataEscapeStart,
  kScriptDataEscapeStartDash,
  kScriptDataEscaped,
  kScriptDataEscapedDash,
  kScriptDataEscapedDashDash,
  kScriptDataEscapedLessThan,
  kScriptDataDoubleEscapeStart,
  kScriptDataDoubleEscaped,
  kScriptDataDoubleEscapedDash,
  kScriptDataDoubleEscapedDashDash,
  kScriptDataDoubleEscapedLessThan,
  kScriptDataDoubleEscapeEnd,
  kBeforeAttributeName,
  kAttributeName,
  kAfterAttributeName,
  kBeforeAttributeValue,
  kAttributeValueDoubleQuoted,
  kAttributeValueSingleQuoted,
  kAttributeValueUnquoted,
  kAfterAttributeValueQuoted,
  kSelfClosingStartTag,
  kBogusComment,
  kMarkupDeclarationOpen,
  kCommentStart,
  kCommentStartDash,
  kComment,
  kCommentLessThan,
  kCommentLessThanBang,
  kCommentLessThanBangDash,
  kCommentLessThanBangDashDash,
  kCommentEndDash,
  kCommentEnd,
  kCommentEndBang,
  kDoctype,
  kBeforeDoctypeName,
  kDoctypeName,
  kAfterDoctypeName,
  kAfterDoctypePublicKeyword,
  kBeforeDoctypePublicId,
  kDoctypePublicIdDoubleQuoted,
  kDoctypePublicIdSingleQuoted,
  kAfterDoctypePublicId,
  kBetweenDoctypePublicAndSystemIds,
  kAfterDoctypeSystemKeyword,
  kBeforeDoctypeSystemId,
  kDoctypeSystemIdDoubleQuoted,
  kDoctypeSystemIdSingleQuoted,
  kAfterDoctypeSystemId,
  kBogusDoctype,
  kCdataSection,
  kCdataSectionBracket,
  kCdataSectionEnd,
};

}  // namespace sieve::html

#endif  // SIEVE_PARSE_HTML_INTERNAL_STATES_H_
