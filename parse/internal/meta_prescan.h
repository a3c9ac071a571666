// The HTML Standard's encoding prescan (§13.2.3.2, "prescan a byte stream to
// determine its encoding"), simplified: it finds <meta charset> and <meta
// http-equiv=Content-Type content=...> and skips comments and other tags.
// Private to sieve::parse.
#ifndef SIEVE_PARSE_INTERNAL_META_PRESCAN_H_
#define SIEVE_PARSE_INTERNAL_META_PRESCAN_H_

#include <string>
#include <string_view>

namespace sieve::charset_internal {

// The encoding label declared by the first qualifying <meta> in `head` (the
// caller passes the first 1024 bytes), or "" if there is none. The label is
// returned as written.
std::string PrescanMetaCharset(std::string_view head);

// HTML Standard "extracting a character encoding from a meta element": the
// value after "charset=" in `content` (quoted or up to ';'/whitespace), or "".
// Also fits a Content-Type header.
std::string CharsetFromContent(std::string_view content);

}  // namespace sieve::charset_internal

#endif  // SIEVE_PARSE_INTERNAL_META_PRESCAN_H_
