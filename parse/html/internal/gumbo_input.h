// Reading text as gumbo 0.10.1 reads its input (its utf8.c), for the
// tokenizer's Options::gumbo_input. Private to sieve::parse.
#ifndef SIEVE_PARSE_HTML_INTERNAL_GUMBO_INPUT_H_
#define SIEVE_PARSE_HTML_INTERNAL_GUMBO_INPUT_H_

#include <cstddef>
#include <string>

namespace sieve::html_internal {

// Rewrites (*text)[from, end) with U+FFFD for each invalid UTF-8 sequence (its
// maximal subpart, as the Encoding Standard's decoder reads it), each control
// other than whitespace and NUL, and each noncharacter. The HTML Standard keeps
// the last two (they are parse errors only); gumbo replaces them. Cost: one
// pass; no copy when every byte is printable ASCII.
void ReplaceAsGumboReads(std::string* text, size_t from);

}  // namespace sieve::html_internal

#endif  // SIEVE_PARSE_HTML_INTERNAL_GUMBO_INPUT_H_
