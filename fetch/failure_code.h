// fetch/failure_code.h: the one closed set of reasons a fetched URL gave no
// page (FailureCode), written once in SIEVE_FAILURE_CODES: the enumerator, the
// name records carry in `error`, how a crawl retries it, and its cause.
//
// The Fetcher returns the same enum (FetchError in fetch/fetch_types.h is an
// alias): kNone for an HTTP answer, else a transport code. The HTTP codes
// (http_4xx, http_5xx, throttled) come from FailureOf (fetch/fetch_failure.h),
// and robots_unavailable from the crawler; the Fetcher never returns them.
//
// Surprises first:
//   - kNone is the table's last row and not a failure: kFailureCodeCount
//     counts the failures only (kNone == kFailureCodeCount), and
//     FailureCodeFromName("none") is nullopt.
//   - The names are a file format (pages.jsonl, summary.json, the metrics):
//     rename a code and old records no longer parse.
//
// Example:
//   for (size_t i = 0; i < sieve::kFailureCodeCount; ++i)
//     Print(sieve::FailureCodeName(static_cast<sieve::FailureCode>(i)));
#ifndef SIEVE_FETCH_FAILURE_CODE_H_
#define SIEVE_FETCH_FAILURE_CODE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

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
  X(kOther, "other", kNever, false, "anything else (out of memory, curl)")     \
  X(kNone, "none", kNever, false, "no failure: an HTTP answer (not counted)")
// clang-format on

enum class FailureCode : uint8_t {
#define SIEVE_FAILURE_ENUM(e, name, retry, connection, cause) e,
  SIEVE_FAILURE_CODES(SIEVE_FAILURE_ENUM)
#undef SIEVE_FAILURE_ENUM
};

// The failures, kNone excluded (it is the last row).
inline constexpr size_t kFailureCodeCount =
    static_cast<size_t>(FailureCode::kNone);

// One row of the table.
struct FailureInfo {
  std::string_view name;  // As written to records: "connect".
  FailureRetry retry;
  bool connection_level;
  std::string_view cause;
};

// The row of `code` (kNone included). Cost: O(1).
const FailureInfo& InfoOf(FailureCode code);
inline std::string_view FailureCodeName(FailureCode code) {
  return InfoOf(code).name;
}
// The failure named `name`, or nullopt ("none" included). Cost:
// O(kFailureCodeCount).
std::optional<FailureCode> FailureCodeFromName(std::string_view name);

}  // namespace sieve

#endif  // SIEVE_FETCH_FAILURE_CODE_H_
