// fetch/fetch_types.h: what goes into a Fetcher (FetchRequest) and what comes
// out (FetchResponse).
//
// Surprises first:
//   - A 3xx is a successful response, not an error: unless the request asked
//     curl to follow redirects, `redirect_url` holds the Location resolved
//     against the URL fetched, and the caller decides whether to fetch it (the
//     crawler pushes it through the Sieve first). A Location whose scheme is
//     not http or https is refused: `redirect_url` stays empty and `error` is
//     kProtocol.
//   - `truncated` is not an error: the body holds the first
//     FetchOptions::max_body_bytes bytes.
//   - `status` may be set even when `error` is set (for instance kTooLarge,
//     known from the headers).
//   - A request header the Fetcher may not send (FetchRequest::headers) is
//     dropped, not an error: the request goes without it.
//
// Example:
//   fetcher.Submit({.id = 7, .url = "https://example.com/"});
//   for (sieve::FetchResponse& r : fetcher.Poll(absl::Seconds(1))) {
//     if (!r.ok()) {
//       Log(r.id, sieve::FetchErrorName(r.error), r.error_message);
//       continue;
//     }
//     if (!r.redirect_url.empty()) frontier.Push(r.redirect_url);
//   }
#ifndef SIEVE_FETCH_FETCH_TYPES_H_
#define SIEVE_FETCH_FETCH_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "fetch/failure_code.h"
#include "fetch/wire_capture.h"

namespace sieve {

// Header fields as (name, value), in order; a name may repeat.
using HeaderFields = std::vector<std::pair<std::string, std::string>>;

// The methods a Fetcher sends: neither has a request body.
enum class FetchMethod {
  kGet,
  kHead,  // CURLOPT_NOBODY: the answer's headers, no body.
};

struct FetchRequest {
  // Caller's cookie, copied into the response so it can be matched; the Fetcher
  // never reads it.
  uint64_t id = 0;
  // Absolute http:// or https:// URL. Anything else fails with kProtocol or
  // kInvalidUrl.
  std::string url;
  // Redirects curl follows itself before answering; each hop must be http or
  // https. 0 (the default) returns the 3xx to the caller. robots.txt fetches
  // use 5 (RFC 9309 2.3.1.2).
  int max_redirects = 0;
  // Body bytes kept for this request (wire and decoded, as
  // FetchOptions::max_body_bytes), when > 0; 0 (the default) uses the
  // Fetcher's. The crawl raises it for sitemaps (up to 50 MiB each).
  int64_t max_body_bytes = 0;
  // Conditional request (RFC 9110 13.1): when not empty, sent as
  // `If-None-Match: <if_none_match>` (an entity tag as the server sent it in
  // ETag) and `If-Modified-Since: <if_modified_since>` (an HTTP-date as the
  // server sent it in Last-Modified). A server that still has that version
  // answers 304 Not Modified with no body. Neither may hold CR or LF (the
  // request then goes without the header). Default: "" (unconditional).
  std::string if_none_match = {};
  std::string if_modified_since = {};
  // The method. Default: kGet.
  FetchMethod method = FetchMethod::kGet;
  // Request headers of this request only (a render's request carries the
  // page's), sent after the Fetcher's own (FetchOptions::extra_headers, curl's
  // Accept): one of the same name, case-insensitively, is replaced, except
  // User-Agent, which stays FetchOptions::user_agent. Dropped, the request
  // going on without them: a name that is not an RFC 9110 token, a name or
  // value holding CR, LF or NUL, and the headers the Fetcher owns: Host,
  // Content-Length, Transfer-Encoding, Connection, Keep-Alive, TE, Trailer,
  // Upgrade, Proxy-Connection, Expect, Accept-Encoding (the body comes back
  // decoded) and User-Agent. An empty value is sent empty. Cost: none when
  // empty and the request is not conditional (the Fetcher's list is shared);
  // otherwise one list of this request's. Default: none.
  HeaderFields headers = {};
  // Keep every header of the response in ResponseHeaders::all (what a
  // browser is handed for a render's request). Cost: a string pair per
  // header. Default: false (only the parsed fields below).
  bool keep_all_headers = false;
  // When the caller expects its next request to this host (the crawl's
  // frontier estimates it). The connection stays open after this transfer
  // only if that is within the 118 s an idle connection lives, so the idle
  // slots (FetchOptions::max_idle_connections) go to hosts that will use
  // them, not to hosts done or due again in minutes. Default: ZeroDuration
  // (soon: keep it).
  absl::Duration next_request_in = absl::ZeroDuration();
};

// Why a transfer failed. The curl codes behind each kind are listed in
// fetch/internal/transfer.cc.
// Why a fetch got no HTTP answer: the one failure enum (fetch/failure_code.h),
// of which the Fetcher returns kNone (an answer, maybe 4xx/5xx) or a transport
// code: kInvalidUrl, kDns, kConnect, kTimeout (connect_timeout,
// total_timeout, or the low-speed limit), kTls, kTooLarge (Content-Length
// above max_body_bytes with skip_oversized set; the body was not read),
// kProtocol (broken HTTP, bad content encoding, or a scheme other than
// http/https), kTooManyRedirects (more than FetchRequest::max_redirects),
// kReset, kBlockedAddress (the address is private and its host may not use
// one: FetchOptions::allow_private_addresses, private_address_hosts; no
// connection was made), kOther (out of memory, internal curl errors).
using FetchError = FailureCode;

// The name records use ("dns", "too_large", ...); "none" for kNone. O(1).
inline absl::string_view FetchErrorName(FetchError error) {
  const std::string_view name = FailureCodeName(error);
  return absl::string_view(name.data(), name.size());
}

// Headers of the last response received (after any redirect curl followed).
// Empty when absent. A header sent several times has its values joined with a
// comma and a space (RFC 9110 5.3).
struct ResponseHeaders {
  std::string content_type;
  // As sent; FetchResponse::redirect_url has the resolved form.
  std::string location;
  std::string retry_after;
  std::string x_robots_tag;
  // The validators of the response (RFC 9110 8.8), as sent: what a later
  // conditional request (FetchRequest::if_none_match, if_modified_since)
  // gives back.
  std::string etag;
  std::string last_modified;
  std::optional<int64_t> content_length;
  // Every Set-Cookie line, one per element and never joined (a cookie's
  // Expires holds a comma). Cost: none when the response sets no cookie.
  std::vector<std::string> set_cookie;
  // Every header of the response, names as sent, in the order received, a
  // repeated one once per line (Content-Encoding and Content-Length describe
  // the wire, not `body`); empty unless FetchRequest::keep_all_headers.
  HeaderFields all;
};

// Times from the start of the transfer to the end of each phase (curl's
// CURLINFO_*_TIME_T), so each is >= the one before it. The redirects curl
// followed are included.
struct FetchTimings {
  absl::Duration dns;         // Name resolved.
  absl::Duration connect;     // TCP connected.
  absl::Duration tls;         // TLS handshake done (0 for http://).
  absl::Duration first_byte;  // First response byte received.
  absl::Duration total;
};

struct FetchResponse {
  uint64_t id = 0;  // FetchRequest::id.
  std::string url;  // FetchRequest::url.
  // Last URL fetched (differs from url after redirects curl followed).
  std::string effective_url;
  int status = 0;  // HTTP status of the last response; 0 if none arrived.
  ResponseHeaders headers;
  // For a 3xx not followed: the Location resolved against effective_url
  // (http/https only).
  std::string redirect_url;
  std::string body;  // Decoded (gzip, deflate, ...), at most max_body_bytes.
  bool truncated = false;
  FetchTimings timings;
  // Header and body bytes received on the wire, before decoding.
  int64_t wire_bytes = 0;
  // Address of the server (or proxy) connected to (CURLINFO_PRIMARY_IP), and
  // the HTTP version of the response: "1.0", "1.1", "2" or "3"; "" when no
  // response arrived.
  std::string ip_address;
  std::string http_version;
  FetchError error = FetchError::kNone;
  std::string error_message;  // curl's own words when error != kNone.
  // The exchange as it crossed the wire, for an archive; empty unless
  // FetchOptions::keep_raw (see fetch/wire_capture.h).
  WireCapture wire;

  bool ok() const { return error == FetchError::kNone; }
};

}  // namespace sieve

#endif  // SIEVE_FETCH_FETCH_TYPES_H_
