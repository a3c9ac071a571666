// Character references (HTML Standard §13.2.5.72-80 and the named table of
// §13.5). Private to sieve::parse.
#ifndef SIEVE_PARSE_HTML_INTERNAL_CHAR_REF_H_
#define SIEVE_PARSE_HTML_INTERNAL_CHAR_REF_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace sieve::html_internal {

// Decodes the character reference at the start of `after_amp` (the input just
// after a '&') and appends its text to `out`: the referenced characters, or
// the consumed characters themselves when they are not a reference (a '&'
// alone, "&#" without digits, or in an attribute value a legacy name without
// ';' followed by '=' or an alphanumeric). Returns how many bytes of
// `after_amp` it consumed. Cost: one binary search of the table per candidate
// length of a named reference (at most 32).
size_t ConsumeCharRef(std::string_view after_amp, bool in_attribute,
                      std::string* out);

// Appends code point `cp` as UTF-8. REQUIRES: cp <= 0x10FFFF.
void AppendUtf8(char32_t cp, std::string* out);

}  // namespace sieve::html_internal

#endif  // SIEVE_PARSE_HTML_INTERNAL_CHAR_REF_H_
