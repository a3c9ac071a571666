#include "fetch/internal/wire_recorder.h"

#include <utility>

#include "fetch/content_decoder.h"

namespace sieve::fetch_internal {

CURLcode WireRecorder::Configure(CURL* easy, bool compressed) {
  CURLcode rc = CURLE_OK;
  auto check = [&rc](CURLcode code) {
    if (rc == CURLE_OK) rc = code;
  };
  check(curl_easy_setopt(easy, CURLOPT_DEBUGFUNCTION, &WireRecorder::OnDebug));
  check(curl_easy_setopt(easy, CURLOPT_DEBUGDATA, this));
  check(curl_easy_setopt(easy, CURLOPT_VERBOSE, 1L));  // Else no OnDebug.
  check(
      curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &WireRecorder::OnHeader));
  check(curl_easy_setopt(easy, CURLOPT_HEADERDATA, this));
  // Only the codings DecodeContent undoes; the body reaches us as sent.
  if (compressed) {
    check(curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "gzip, deflate"));
  }
  check(curl_easy_setopt(easy, CURLOPT_HTTP_CONTENT_DECODING, 0L));
  return rc;
}

void WireRecorder::Clear() {
  request_head_.clear();
  response_head_.clear();
  response_since_request_ = true;
}

int WireRecorder::OnDebug(CURL* /*easy*/, curl_infotype type, char* data,
                          size_t size, void* self) {
  auto* r = static_cast<WireRecorder*>(self);
  if (type == CURLINFO_HEADER_OUT) {
    // A request after a response (a redirect curl follows) starts afresh.
    if (r->response_since_request_) {
      r->request_head_.clear();
      r->response_since_request_ = false;
    }
    r->request_head_.append(data, size);
  }
  return 0;
}

size_t WireRecorder::OnHeader(char* data, size_t size, size_t count,
                              void* self) {
  auto* r = static_cast<WireRecorder*>(self);
  const size_t bytes = size * count;
  const std::string_view line(data, bytes);
  if (line.substr(0, 5) == "HTTP/") {
    r->response_head_.clear();  // Interim 1xx or a followed redirect.
    r->response_since_request_ = true;
  }
  // Bounded by curl itself (CURL_MAX_HTTP_HEADER per line, and in all).
  r->response_head_.append(line);
  return bytes;
}

CURLcode WireRecorder::Finish(CURL* easy, CURLcode code, bool length_cut,
                              int64_t max_body_bytes, FetchResponse* response) {
  WireCapture& wire = response->wire;
  wire.request_head = std::move(request_head_);
  wire.response_head = std::move(response_head_);
  wire.body = std::move(response->body);
  char* ip = nullptr;
  if (curl_easy_getinfo(easy, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK &&
      ip != nullptr) {
    wire.ip_address = ip;
  }
  if (length_cut || code == CURLE_FILESIZE_EXCEEDED) {
    // FILESIZE_EXCEEDED: Content-Length above the cap, body never read.
    wire.cut = BodyCut::kLength;
  } else if (code == CURLE_OPERATION_TIMEDOUT && !wire.response_head.empty()) {
    wire.cut = BodyCut::kTime;
  }
  Clear();

  const char* encoding = nullptr;
  curl_header* header = nullptr;
  if (curl_easy_header(easy, "Content-Encoding", 0, CURLH_HEADER, -1,
                       &header) == CURLHE_OK) {
    encoding = header->value;
  }
  DecodedContent decoded = DecodeContent(encoding != nullptr ? encoding : "",
                                         wire.body, max_body_bytes);
  response->body = std::move(decoded.body);
  if (decoded.cut) response->truncated = true;
  const bool complete =
      code == CURLE_OK || (code == CURLE_WRITE_ERROR && length_cut);
  if (!decoded.ok && complete) return CURLE_BAD_CONTENT_ENCODING;
  return code;
}

}  // namespace sieve::fetch_internal
