// The character encoding of an HTML page, and its conversion to UTF-8 (gumbo
// reads only UTF-8).
//
// Detection follows the HTML Standard's order (§13.2.3.2 "Determining the
// character encoding"), trimmed to what a crawler needs:
//   1. a byte order mark (UTF-8, UTF-16LE, UTF-16BE);
//   2. the charset parameter of the HTTP Content-Type header;
//   3. <meta charset> or <meta http-equiv="Content-Type"
//   content="...charset=..."> within the
//      first 1024 bytes (the Standard's prescan);
//   4. windows-1252, the Standard's default for unlabelled pages.
// Labels are mapped as the WHATWG Encoding Standard does ("latin1",
// "iso-8859-1" and "ascii" all mean windows-1252; "shift_jis" means
// Windows-31J; "gb2312" means GBK/gb18030). A label glibc iconv does not know
// is ignored, as the Standard ignores unknown labels.
//
// Conversion uses glibc iconv. Bytes that are invalid in the source encoding
// become U+FFFD; a page is never rejected. Thread-safe: each call opens its own
// iconv descriptor.
//
// Example:
//   std::string encoding =
//       sieve::DetectHtmlEncoding(body, "text/html; charset=Shift_JIS");
//   sieve::Utf8Text text = sieve::ConvertToUtf8(body, encoding);
//   // text.utf8 for gumbo
#ifndef SIEVE_PARSE_CHARSET_H_
#define SIEVE_PARSE_CHARSET_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace sieve {

// Returns the encoding's canonical WHATWG name ("UTF-8", "windows-1252",
// "Shift_JIS", "EUC-KR", "UTF-16LE", ...) or, for labels outside our table that
// iconv accepts, the label upper-cased. `content_type` is the raw header value
// and may be empty. Cost: O(min(|bytes|, 1024)).
std::string DetectHtmlEncoding(std::string_view bytes,
                               std::string_view content_type);

// Maps an encoding label to its canonical name (see above), or "" when neither
// our table nor iconv knows it. Case and surrounding whitespace are ignored.
std::string CanonicalEncodingName(std::string_view label);

struct Utf8Text {
  std::string utf8;  // the text, valid UTF-8, without a byte order mark
  size_t replaced =
      0;  // invalid or unmappable input sequences turned into U+FFFD
  std::string encoding;  // the encoding actually used
};

// Converts `bytes` from `encoding` (a label or canonical name) to UTF-8,
// dropping a leading BOM. An unknown encoding falls back to windows-1252. Cost:
// O(|bytes|), one allocation for the result.
Utf8Text ConvertToUtf8(std::string_view bytes, std::string_view encoding);

// `href` (UTF-8, from a document in `encoding`) with the non-ASCII characters
// of its query percent-encoded in that encoding, as the URL Standard's query
// state does with the document's encoding (a link "?q=café" on a windows-1252
// page is requested as "?q=caf%E9"); a character the encoding cannot
// represent becomes "%26%23" decimal "%3B" ("&#N;"), as the Standard's encoder
// writes it. The query is from the first '?' to the first '#' after it; the
// rest of the href is left alone (paths stay UTF-8). nullopt when nothing
// changes: no non-ASCII byte in the query, or an encoding whose URLs use
// UTF-8 (UTF-8, UTF-16LE/BE), or one iconv cannot write. Cost: O(|href|) and
// one iconv descriptor, only for such a query.
std::optional<std::string> EncodeQueryIn(std::string_view href,
                                         std::string_view encoding);

}  // namespace sieve

#endif  // SIEVE_PARSE_CHARSET_H_
