// fetch/fetch_failure.h: the one closed set of reasons a fetched URL gave no
// page (FailureCode), each with its cause and how a crawl retries it, and
// FailureOf, which names the failure of a FetchResponse and quotes its cause.
//
// The crawler writes the code to each record's `error`, the quote to
// `error_detail`, counts records per code in its summary, and decides retries
// from the table (docs/crawling.md "Error codes" prints it).
//
// Surprises first:
//   - 4xx and 5xx answers are failures here (http_4xx, http_5xx) although the
//     Fetcher counts them as responses (FetchResponse::ok()): the server
//     answered, but gave no page.
//   - 429 and 503 are `throttled`, never http_4xx/http_5xx: the host is asking
//     for less load, and the crawl backs off and retries.
//   - robots_unavailable is not returned by FailureOf: it is the crawler's
//     code for a URL held back because its host's robots.txt answered 429 or
//     5xx (RFC 9309 2.3.1.4), listed here so every code lives in one table.
//
// Example:
//   if (std::optional<sieve::Failure> f = sieve::FailureOf(response)) {
//     record.error = std::string(sieve::FailureCodeName(f->code));
//     record.error_detail = f->detail;  // "Failed to connect to ... refused"
//   }
#ifndef SIEVE_FETCH_FETCH_FAILURE_H_
#define SIEVE_FETCH_FETCH_FAILURE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fetch/fetch_types.h"

namespace sieve {

// How a crawl treats a failure.
enum class FailureRetry : uint8_t {
  kNever,     // Recorded at once.
  kError,     // Tried again after the host's back-off, max_error_retries.
  kThrottle,  // The host backs off; tried again, max_throttle_retries.
};

// X(enumerator, name, retry, connection_level, cause). `connection_level`: no
// connection to the server could be made; a host failing so several times in
// a row is unreachable (frontier/politeness.h, unreachable_after).
// clang-format off
#define SIEVE_FAILURE_CODES(X)                                                 \
  X(kInvalidUrl, "invalid_url", kNever, false,                                 \
    "the URL does not parse")                                                  \
  X(kDns, "dns", kNever, true, "the host name did not resolve")                \
  X(kConnect, "connect", kError, true,                                         \
    "TCP connection refused or unreachable")                                   \
  X(kTls, "tls", kNever, true,                                                 \
    "TLS handshake or certificate verification failed")                        \
  X(kTimeout, "timeout", kError, false,                                        \
    "connect, total or low-speed timeout")                                     \
  X(kReset, "reset", kError, false,                                            \
    "connection reset or closed before the response was complete")            \
  X(kProtocol, "protocol", kNever, false,                                      \
    "broken HTTP, a bad content encoding, or a scheme other than http(s)")     \
  X(kTooManyRedirects, "too_many_redirects", kNever, false,                    \
    "more redirects in a row than allowed")                                    \
  X(kTooLarge, "too_large", kNever, false,                                     \
    "the body is over max_body_bytes and oversized bodies are skipped")       \
  X(kBlockedAddress, "blocked_address", kNever, false,                         \
    "the address is private and its host is not allowed one")                 \
  X(kHttp4xx, "http_4xx", kNever, false, "the server answered 4xx (not 429)") \
  X(kHttp5xx, "http_5xx", kNever, false, "the server answered 5xx (not 503)") \
  X(kThrottled, "throttled", kThrottle, false,                                 \
    "the server answered 429 or 503")                                          \
  X(kRobotsUnavailable, "robots_unavailable", kThrottle, false,                \
    "robots.txt answered 429 or 5xx: the host's URLs wait (RFC 9309 2.3.1.4)") \
  X(kOther, "other", kNever, false, "anything else (out of memory, curl)")
// clang-format on

enum class FailureCode : uint8_t {
#define SIEVE_FAILURE_ENUM(e, name, retry, connection, cause) e,
  SIEVE_FAILURE_CODES(SIEVE_FAILURE_ENUM)
#undef SIEVE_FAILURE_ENUM
};

inline constexpr size_t kFailureCodeCount = 0
#define SIEVE_FAILURE_COUNT(e, name, retry, connection, cause) +1
    SIEVE_FAILURE_CODES(SIEVE_FAILURE_COUNT)
#undef SIEVE_FAILURE_COUNT
    ;

// One row of the table.
struct FailureInfo {
  std::string_view name;  // As written to records: "connect".
  FailureRetry retry;
  bool connection_level;
  std::string_view cause;
};

const FailureInfo& InfoOf(FailureCode code);
inline std::string_view FailureCodeName(FailureCode code) {
  return InfoOf(code).name;
}
// The code named `name`, or nullopt. Cost: O(kFailureCodeCount).
std::optional<FailureCode> FailureCodeFromName(std::string_view name);

struct Failure {
  FailureCode code = FailureCode::kOther;
  // The underlying cause, quoted: curl's message ("SSL certificate problem:
  // unable to get local issuer certificate"), or the HTTP status line
  // ("HTTP 503, Retry-After: 2").
  std::string detail;
};

// The failure of `response`, or nullopt when it is a page or a redirect
// (1xx-3xx, with no transport error). Cost: O(1).
std::optional<Failure> FailureOf(const FetchResponse& response);

}  // namespace sieve

#endif  // SIEVE_FETCH_FETCH_FAILURE_H_
