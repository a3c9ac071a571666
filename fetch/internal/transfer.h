// fetch/internal/transfer.h: one request's curl easy handle and the state its
// callbacks fill in. Internal to sieve::fetch; the Fetcher owns Transfers and
// drives them through its multi handle.
#ifndef SIEVE_FETCH_INTERNAL_TRANSFER_H_
#define SIEVE_FETCH_INTERNAL_TRANSFER_H_

#include <curl/curl.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "fetch/fetch_options.h"
#include "fetch/fetch_types.h"
#include "fetch/internal/curl_handles.h"
#include "fetch/internal/wire_recorder.h"

namespace sieve::fetch_internal {

// Maps a curl result to our error kind (kNone for CURLE_OK).
FetchError ClassifyCurlCode(CURLcode code);

// True when `url` is absolute and its scheme is http or https (parsed with
// curl's URL API).
bool HasWebScheme(const char* url);

// "host:port" of `url`, host lower-cased, port defaulted from the scheme: the
// unit of the per-host connection cap (curl groups connections the same way).
// Empty when the URL does not parse.
std::string HostKey(const std::string& url);

class Transfer {
 public:
  // `options` and `extra_headers` must outlive the Transfer (the Fetcher owns
  // both).
  Transfer(FetchRequest request, const FetchOptions& options,
           const curl_slist* extra_headers);
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  // Creates the easy handle and sets every option; CURLOPT_PRIVATE points at
  // this Transfer. An error (out of memory, a URL curl rejects at once) is
  // returned as the response instead by the caller: see FailedResponse.
  [[nodiscard]] absl::Status Configure();

  // Clears what the previous attempt received; the easy handle keeps its
  // options.
  void PrepareRetry();

  // Builds the response of the attempt that just finished with `code`.
  FetchResponse Finish(CURLcode code);

  // A response for a transfer that never started (Configure failed).
  FetchResponse FailedResponse(const absl::Status& status) const;

  CURL* easy() const { return easy_.get(); }
  const FetchRequest& request() const { return request_; }
  const std::string& host_key() const { return host_key_; }
  int attempts() const { return attempts_; }
  void count_attempt() { ++attempts_; }

 private:
  static size_t OnBody(char* data, size_t size, size_t count, void* self);
  void ReadHeaders(ResponseHeaders* headers) const;
  void ReadTimings(FetchTimings* timings) const;

  const FetchRequest request_;
  const std::string host_key_;
  const FetchOptions& options_;
  const curl_slist* const extra_headers_;
  CurlEasyPtr easy_;
  std::string body_;
  bool truncated_ = false;
  WireRecorder wire_;  // Used only with FetchOptions::keep_raw.
  int attempts_ = 0;
  char error_buffer_[CURL_ERROR_SIZE] = {};
};

}  // namespace sieve::fetch_internal

#endif  // SIEVE_FETCH_INTERNAL_TRANSFER_H_
