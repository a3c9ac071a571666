// fetch/content_decoder.h: undoes the HTTP content codings gzip, x-gzip and
// deflate (RFC 9110 8.4.1) with zlib, for the Fetcher when it keeps the body
// as received (FetchOptions::keep_raw) and so turns curl's own decoding off.
//
// Surprises first:
//   - The output is capped at `max_bytes`: a compression bomb is inflated up
//     to the cap and no further (`cut` set), as curl's decoding plus the
//     Fetcher's body cap would do.
//   - A stream that simply ends early (the body was cut, or the server
//     stopped) is not an error: what inflated is kept.
//   - "deflate" is tried as zlib (the RFC) and then as raw deflate (what some
//     servers send).
//
// Example:
//   sieve::DecodedContent d = sieve::DecodeContent("gzip", raw, 10 << 20);
//   if (!d.ok) Fail(d.error);
#ifndef SIEVE_FETCH_CONTENT_DECODER_H_
#define SIEVE_FETCH_CONTENT_DECODER_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace sieve {

struct DecodedContent {
  std::string body;
  bool cut = false;  // The decoded body reached max_bytes and was cut there.
  bool ok = true;    // False: corrupt data or an unknown coding (see error).
  std::string error;
};

// Decodes `raw` sent with Content-Encoding `encoding` (a comma-separated list,
// applied in order, so undone last to first; "" and "identity" change
// nothing). REQUIRES: max_bytes > 0. Cost: O(output), at most max_bytes of
// output per coding.
DecodedContent DecodeContent(std::string_view encoding, std::string_view raw,
                             int64_t max_bytes);

}  // namespace sieve

#endif  // SIEVE_FETCH_CONTENT_DECODER_H_
