// fetch/wire_capture.h: the bytes of one HTTP exchange as they crossed the
// wire, for an archive (WARC) of the crawl. Filled only when
// FetchOptions::keep_raw is set; empty otherwise, so a crawl without an
// archive pays nothing.
//
// Surprises first:
//   - `body` keeps the content coding the server applied (gzip, deflate):
//     with keep_raw, curl's decoding is off, and the Fetcher inflates the body
//     itself (fetch/content_decoder.h) into FetchResponse::body, applying
//     max_body_bytes to the decoded size too, so a compression bomb is cut.
//     Accept-Encoding is then "gzip, deflate" (what we can decode).
//   - The transfer coding (chunked) is removed by curl: `body` is the HTTP
//     entity body, which is what WARC's payload digest covers.
//   - When curl followed redirects, only the last request and response are
//     kept (the hops are in none of the fields).
//   - `cut` says whether max_body_bytes (kLength) or the time limit (kTime)
//     ended the body early; WARC calls that WARC-Truncated.
//
// Example:
//   options.keep_raw = true;
//   ... FetchResponse r = ...;
//   if (r.wire.captured()) warc.WriteExchange(WarcExchangeFromFetch(r, t));
#ifndef SIEVE_FETCH_WIRE_CAPTURE_H_
#define SIEVE_FETCH_WIRE_CAPTURE_H_

#include <cstdint>
#include <string>

namespace sieve {

// What ended a body before the server did.
enum class BodyCut : uint8_t {
  kNone = 0,
  kLength,  // max_body_bytes reached (of the bytes as received).
  kTime,    // The transfer timed out (total or low-speed limit) mid-body.
};

struct WireCapture {
  // Request line and header lines as sent, through the blank line (curl's
  // CURLINFO_HEADER_OUT; for HTTP/2, curl's HTTP/1-style rendering of them).
  std::string request_head;
  // Status line and header lines as received, through the blank line. For
  // HTTP/2 the status line is curl's "HTTP/2 200".
  std::string response_head;
  // The entity body as received: content coding kept, transfer coding
  // removed; at most max_body_bytes.
  std::string body;
  // Address of the server connected to (CURLINFO_PRIMARY_IP); "" if none.
  std::string ip_address;
  BodyCut cut = BodyCut::kNone;

  // True when a response (at least its head) was received and kept.
  bool captured() const { return !response_head.empty(); }
};

}  // namespace sieve

#endif  // SIEVE_FETCH_WIRE_CAPTURE_H_
