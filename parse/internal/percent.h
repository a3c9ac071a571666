// Percent-encoding helpers shared by the URL and robots.txt code. Private to
// sieve::parse.
//
// Two jobs: encode the bytes a browser would escape before a URL reaches
// libcurl (the WHATWG URL Standard's percent-encode sets), and bring every
// escape to one spelling (RFC 3986 §6.2.2.1-2: upper-case hex, unreserved
// characters decoded). All functions are pure and thread-safe.
#ifndef SIEVE_PARSE_INTERNAL_PERCENT_H_
#define SIEVE_PARSE_INTERNAL_PERCENT_H_

#include <string>
#include <string_view>

namespace sieve::url_internal {

// Which WHATWG percent-encode set to apply
// (https://url.spec.whatwg.org/#percent-encoded-bytes).
enum class EncodeSet {
  kQuery,     // C0 controls, non-ASCII, space " # < > and ' (special-query set)
  kPath,      // query set minus ', plus ? ` { }
  kUserinfo,  // path set plus / : ; = @ [ \ ] ^ |
};

// Appends `in` to `*out`, percent-encoding (upper-case hex) every byte in
// `set`. '%' is kept. Cost: one pass, O(|in|).
void AppendEncoded(std::string_view in, EncodeSet set, std::string* out);

// RFC 3986 §6.2.2.1 and §6.2.2.2: upper-cases the hex of every "%XX" escape and
// decodes the escapes of unreserved characters (ALPHA DIGIT - . _ ~). Malformed
// escapes ("%g1", a trailing
// "%") are kept byte-for-byte, and an escape whose decoding would complete one
// of them stays encoded, so the result is a fixed point. Cost: one pass,
// O(|in|).
std::string NormalizeEscapes(std::string_view in);

// Decodes every valid "%XX" escape (for hosts, before IDNA). Malformed escapes
// are kept.
std::string DecodeAll(std::string_view in);

// True for RFC 3986 unreserved characters.
inline bool IsUnreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

// Value of a hex digit, or -1.
inline int HexValue(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace sieve::url_internal

#endif  // SIEVE_PARSE_INTERNAL_PERCENT_H_
