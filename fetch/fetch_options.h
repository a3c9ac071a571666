// fetch/fetch_options.h: how a Fetcher talks to servers: limits, timeouts,
// headers, retries.
//
// Every bound a hostile server could stretch has an option here: how long to
// wait for a connection, for the whole transfer, how slow a transfer may crawl,
// how many body bytes to keep. The crawler maps the `[fetch]` table of
// config/default.toml onto these structs; this library never reads the config
// itself.
//
// Example:
//   sieve::FetchOptions options;
//   options.max_connections_per_host = 2;
//   options.total_timeout = absl::Seconds(20);
//   options.extra_headers = {"Accept-Language: en"};
//   absl::StatusOr<std::unique_ptr<sieve::Fetcher>> fetcher =
//       sieve::Fetcher::Create(options);
#ifndef SIEVE_FETCH_FETCH_OPTIONS_H_
#define SIEVE_FETCH_FETCH_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace sieve {

// When a failed attempt is tried again; see fetch/retry_policy.h for the exact
// rule.
struct RetryOptions {
  // Retries after the first attempt (so at most max_retries + 1 requests). 0
  // disables retries. REQUIRES: >= 0. Default: 2.
  int max_retries = 2;
  // Backoff before the first retry; the n-th retry waits about
  // initial_backoff * 2^(n-1), times a uniform random factor in [0.5, 1]
  // ("equal jitter"). REQUIRES: > 0. Default: 1 s.
  absl::Duration initial_backoff = absl::Seconds(1);
  // Cap on the computed backoff (before jitter). REQUIRES: >= initial_backoff.
  // Default: 30 s.
  absl::Duration max_backoff = absl::Seconds(30);
  // A Retry-After (seconds or HTTP-date) replaces the computed backoff. When it
  // asks for more than this, the attempt is not retried: the response goes back
  // to the caller, who may reschedule the host. REQUIRES: >= 0. Default: 120 s.
  absl::Duration max_retry_after = absl::Seconds(120);
  // Also retry transfers that failed with FetchError::kTimeout. Off by
  // default: a server that never answers would then hold a slot for
  // (max_retries + 1) * total_timeout. Default: false.
  bool retry_timeouts = false;
};

struct FetchOptions {
  // Transfers running at once; further Submit()s wait in a FIFO queue.
  // REQUIRES: >= 1. Default: 64.
  int max_concurrent_transfers = 64;
  // Transfers running at once to one host:port, and so open connections to it
  // (also set as CURLMOPT_MAX_HOST_CONNECTIONS, which covers redirects curl
  // follows). The rest wait in the Fetcher's queue, not inside curl, so their
  // timeouts have not started. 0 means no limit. REQUIRES: >= 0. Default: 2.
  int max_connections_per_host = 2;
  // Time allowed for DNS + TCP connect + TLS handshake
  // (CURLOPT_CONNECTTIMEOUT_MS). REQUIRES: > 0. Default: 10 s.
  absl::Duration connect_timeout = absl::Seconds(10);
  // Time allowed for the whole transfer, redirects followed inside curl
  // included (CURLOPT_TIMEOUT_MS). REQUIRES: > 0. Default: 30 s.
  absl::Duration total_timeout = absl::Seconds(30);
  // Abort a transfer that moves fewer than low_speed_limit bytes/s for
  // low_speed_time (CURLOPT_LOW_SPEED_LIMIT / CURLOPT_LOW_SPEED_TIME; curl
  // counts whole seconds, so the time is rounded up). A limit of 0 disables the
  // check. REQUIRES: limit >= 0, time >= 1 s. Default: 100 bytes/s for 20 s.
  int64_t low_speed_limit = 100;
  absl::Duration low_speed_time = absl::Seconds(20);
  // Body bytes kept (after decoding). A body that grows past it is cut there
  // and the response is marked `truncated` (not an error). A response whose
  // Content-Length already exceeds it is refused before its body is read, with
  // FetchError::kTooLarge. REQUIRES: > 0. Default: 10 MiB.
  int64_t max_body_bytes = int64_t{10} << 20;
  // User-Agent request header; its first word is the product token robots.txt
  // groups match. Default: "SieveBot/0.1".
  std::string user_agent = "SieveBot/0.1";
  // Extra request headers, each a full "Name: value" line. Default: none.
  std::vector<std::string> extra_headers;
  // Negotiate HTTP/2 over TLS when the server offers it (ALPN), and multiplex
  // transfers to one host over a connection; plain http:// always uses
  // HTTP/1.1. Default: true.
  bool http2 = true;
  // Send Accept-Encoding with every encoding this libcurl decodes (gzip,
  // deflate, and br/zstd when built in) and decode the body. Default: true.
  bool compressed = true;
  // How long resolved host names are reused (CURLOPT_DNS_CACHE_TIMEOUT).
  // Default: 60 s.
  absl::Duration dns_cache_lifetime = absl::Seconds(60);
  // Verify the server's TLS certificate and host name. Turn off only for tests.
  // Default: true.
  bool verify_tls = true;
  // Keep the exchange as it crossed the wire in FetchResponse::wire (request
  // and response heads, the body with its content coding, the server's IP),
  // for a WARC archive. Turns curl's content decoding off and decodes gzip and
  // deflate in the Fetcher instead (Accept-Encoding: gzip, deflate), so body
  // stays the decoded text it is without this option. Costs a copy of each
  // body. Default: false.
  bool keep_raw = false;
  // When and how failed attempts are retried inside the Fetcher.
  RetryOptions retry;
};

// OK, or InvalidArgument naming the first option that breaks its REQUIRES line.
[[nodiscard]] absl::Status ValidateFetchOptions(const FetchOptions& options);

}  // namespace sieve

#endif  // SIEVE_FETCH_FETCH_OPTIONS_H_
