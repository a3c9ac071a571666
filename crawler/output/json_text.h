// crawler/output/json_text.h: JSON text appended to a caller's buffer, for the
// record writers that format one line per page into a buffer they reuse (no
// JSON tree, no allocation once the buffer has grown).
//
// Surprises first:
//   - Invalid UTF-8 (a URL taken from a mis-declared page) never fails: each
//     ill-formed part (RFC 3629: no overlong forms, no surrogates, nothing
//     past U+10FFFF, nothing cut short) becomes one U+FFFD, as
//     nlohmann::json's error_handler_t::replace writes it.
//   - Control characters are escaped (\n, \t, ... or \u00XX); '/' and
//     non-ASCII characters are written as they are.
//
// Example:
//   std::string line;
//   sieve::AppendJsonString(line, "say \"hi\"");  // line == "\"say \\\"hi\\\"\""
#ifndef SIEVE_CRAWLER_OUTPUT_JSON_TEXT_H_
#define SIEVE_CRAWLER_OUTPUT_JSON_TEXT_H_

#include <string>
#include <string_view>

namespace sieve {

// Appends `text` as a JSON string, quotes included. Cost: one pass over
// `text`.
void AppendJsonString(std::string& out, std::string_view text);

// Appends `text` as a JSON string, or null when it is empty.
void AppendJsonStringOrNull(std::string& out, std::string_view text);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_OUTPUT_JSON_TEXT_H_
