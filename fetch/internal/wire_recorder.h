// fetch/internal/wire_recorder.h: fills FetchResponse::wire for a Transfer
// when FetchOptions::keep_raw is set (see fetch/wire_capture.h). Internal to
// sieve::fetch.
//
// How: CURLOPT_DEBUGFUNCTION (with CURLOPT_VERBOSE, which it needs) receives
// the request head as sent (CURLINFO_HEADER_OUT); CURLOPT_HEADERFUNCTION
// receives each response header line as received; a new status line starts a
// new head, so interim 1xx responses and redirects curl followed leave only
// the last one. Content decoding is turned off
// (CURLOPT_HTTP_CONTENT_DECODING = 0, Accept-Encoding "gzip, deflate"), so
// the Transfer's body buffer holds the bytes as received; Finish moves them
// into wire.body and decodes FetchResponse::body with DecodeContent.
#ifndef SIEVE_FETCH_INTERNAL_WIRE_RECORDER_H_
#define SIEVE_FETCH_INTERNAL_WIRE_RECORDER_H_

#include <curl/curl.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "fetch/fetch_types.h"

namespace sieve::fetch_internal {

class WireRecorder {
 public:
  // Sets the callbacks and the decoding options on `easy` (Accept-Encoding
  // only when `compressed`). Returns the first failing curl code (CURLE_OK
  // when all were set).
  CURLcode Configure(CURL* easy, bool compressed);

  // Forgets what an earlier attempt recorded.
  void Clear();

  // After the transfer ended with `code`: moves response->body (bytes as
  // received, `length_cut` when the Fetcher's cap stopped them) into
  // response->wire.body, decodes it back into response->body (at most
  // max_body_bytes, setting response->truncated when decoding hit it), and
  // fills the rest of response->wire. Returns `code`, or
  // CURLE_BAD_CONTENT_ENCODING when a complete transfer's body does not
  // decode.
  CURLcode Finish(CURL* easy, CURLcode code, bool length_cut,
                  int64_t max_body_bytes, FetchResponse* response);

 private:
  static int OnDebug(CURL* easy, curl_infotype type, char* data, size_t size,
                     void* self);
  static size_t OnHeader(char* data, size_t size, size_t count, void* self);

  std::string request_head_;
  std::string response_head_;
  bool response_since_request_ = true;
};

}  // namespace sieve::fetch_internal

#endif  // SIEVE_FETCH_INTERNAL_WIRE_RECORDER_H_
