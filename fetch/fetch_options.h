// fetch/fetch_options.h: how a Fetcher talks to servers: limits, timeouts,
// headers.
//
// Only global bounds live here. Per-host questions (how many transfers to one
// host at once, delays, retries after 429/5xx or a failed connection) belong
// to the Frontier: the Fetcher fetches what it is given, once.
//
// Every bound a hostile server could stretch has an option here: how long to
// wait for a connection, for the whole transfer, how slow a transfer may crawl,
// how many body bytes to keep. The crawler maps the `[fetch]` table of
// config/default.toml onto these structs; this library never reads the config
// itself.
//
// Example:
//   sieve::FetchOptions options;
//   options.max_concurrent_transfers = 32;
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
#include "fetch/dns_cache.h"

namespace sieve {

// FetchOptions::max_idle_connections when 0: one per host of a crawl over
// 10,000 hosts in rotation (each host's next request then skips TCP and TLS
// setup), at ~36 KB each over HTTPS (docs/architecture.md, memory). The
// Fetcher spreads them over multi handles of kIdleConnectionsPerMulti each
// (fetch/internal/curl_multis.h): libcurl 7.88 walks a handle's whole cache
// per transfer, and prunes dead connections by walking it again after each
// one it closes (D dead among N held cost D x N), so one handle of 4,096
// made no request for 30 s of a 2-minute run on the unbounded-web benchmark,
// and of 10,000 (the open-file bound of before) stalled 60-80 s (issue #36).
// At 1,024, 10,000 hosts over HTTPS ran at 0.72x the pages/s of the crawler
// before issue #36; at 10,240, 10 minutes of the unbounded web over HTTPS
// keep their speed (last quarter 1.00x the first) for 165 MB more RSS than
// 1,024 (docs/benchmarks.md, "Side by side with main before issue 36, again").
inline constexpr int64_t kDefaultMaxIdleConnections = 10240;

struct FetchOptions {
  // Transfers running at once; further Submit()s wait in the Fetcher's FIFO
  // queue, outside curl, so their timeouts have not started.
  // REQUIRES: >= 1. Default: 64.
  int max_concurrent_transfers = 64;
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
  // and the response is marked `truncated` (not an error), whether or not the
  // server sent a Content-Length. REQUIRES: > 0. Default: 10 MiB.
  int64_t max_body_bytes = int64_t{10} << 20;
  // Refuse, instead of truncating, a response whose Content-Length exceeds
  // max_body_bytes: it ends with FetchError::kTooLarge before its body is read
  // (CURLOPT_MAXFILESIZE_LARGE). A body without Content-Length is still cut.
  // Default: false.
  bool skip_oversized = false;
  // User-Agent request header; its first word is the product token robots.txt
  // groups match. Default: "SieveBot/0.1".
  std::string user_agent = "SieveBot/0.1";
  // Extra request headers, each a full "Name: value" line. Default: none.
  std::vector<std::string> extra_headers;
  // Proxy every request goes through (CURLOPT_PROXY): "http://host:port",
  // "https://...", "socks4://", "socks4a://", "socks5://" or "socks5h://" (the
  // proxy resolves names). The private-address guard does not apply to the
  // proxy's address (the caller chose it) and cannot see the server's, which
  // the proxy connects to. Empty: none set here
  // (libcurl still honours http_proxy, https_proxy, no_proxy).
  // REQUIRES: empty or one of those schemes. Default: "".
  std::string proxy;
  // Negotiate HTTP/2 over TLS when the server offers it (ALPN), and multiplex
  // transfers to one host over a connection; plain http:// always uses
  // HTTP/1.1. Default: true.
  bool http2 = true;
  // Send Accept-Encoding with every encoding this libcurl decodes (gzip,
  // deflate, and br/zstd when built in) and decode the body. Default: true.
  bool compressed = true;
  // The crawl's DNS cache (fetch/dns_cache.h): answers kept for their
  // record's TTL bounded to [dns.min_ttl, dns.max_ttl], failures kept
  // dns.negative_ttl, lookups on the cache's resolver thread so Poll never
  // waits for one (a transfer whose host is being resolved waits outside
  // curl, its timeouts not started). Used when Fetcher::Create is given no
  // DnsCache of the caller's. Default: DnsOptions's defaults.
  DnsOptions dns{};
  // Idle connections kept open for later requests to their hosts. A crawl
  // whose hosts wait out a politeness delay between requests needs one per
  // host in rotation, or each request pays a new TCP and TLS handshake. The
  // hosts that took the slots keep them while they are fetched again within
  // 118 s; past the cap a transfer's connection is closed when it ends (not
  // the one idle longest, which in a rotation is the host due next). Each
  // costs a file descriptor (see fetch/open_file_limit.h) and, more, time:
  // libcurl 7.88 walks every connection it holds on each transfer that keeps
  // one (fetch/internal/idle_connections.h), so the Fetcher gives each of its
  // multi handles at most 1,024 (fetch/internal/curl_multis.h). Measured on
  // the broad-web and unbounded-web benchmarks (docs/benchmarks.md,
  // "Several multi handles"): kDefaultMaxIdleConnections.
  // 0 = kDefaultMaxIdleConnections, lowered to half the soft open-file limit
  // when that is less, and at least 4 x max_concurrent_transfers.
  // REQUIRES: >= 0. Default: 0.
  int64_t max_idle_connections = 0;
  // Verify the server's TLS certificate and host name. Turn off only for tests.
  // Default: true.
  bool verify_tls = true;
  // PEM file of the certificate authorities trusted when verifying
  // (CURLOPT_CAINFO), e.g. a company's own CA. Empty: libcurl's built-in
  // bundle (the system's). The library reads no environment; the crawler
  // fills this from fetch.ca_bundle, CURL_CA_BUNDLE or SSL_CERT_FILE
  // (fetch/ca_bundle.h). REQUIRES: empty or a readable file. Default: "".
  std::string ca_bundle;
  // Connect to any address, private ones included. Off by default: no socket
  // is opened to loopback, private (RFC 1918), link-local, CGNAT,
  // unique-local, multicast, unspecified or reserved addresses, nor to the
  // IPv6 forms carrying such an IPv4 address (fetch/address_guard.h). The
  // check is made on the address about to be connected, for the request and
  // for every redirect curl follows, so DNS answers and redirects cannot get
  // around it. A refused fetch ends with FetchError::kBlockedAddress.
  // Default: false.
  bool allow_private_addresses = false;
  // Hosts whose URLs may connect to private addresses all the same (the
  // crawler puts its seeds' hosts here, so a crawl of a loopback or intranet
  // site works). Matched against the host of the URL being connected at that
  // moment (after a redirect, the redirect's host), case-insensitively, IPv6
  // with or without brackets, a trailing dot ignored; ports are not compared.
  // Example: {"127.0.0.1", "intranet.example", "[::1]"}. Default: none.
  std::vector<std::string> private_address_hosts;
  // Keep the exchange as it crossed the wire in FetchResponse::wire (request
  // and response heads, the body with its content coding, the server's IP),
  // for a WARC archive. Turns curl's content decoding off and decodes gzip and
  // deflate in the Fetcher instead (Accept-Encoding: gzip, deflate), so body
  // stays the decoded text it is without this option. Costs a copy of each
  // body. Default: false.
  bool keep_raw = false;
};

// OK, or InvalidArgument naming the first option that breaks its REQUIRES line.
[[nodiscard]] absl::Status ValidateFetchOptions(const FetchOptions& options);

}  // namespace sieve

#endif  // SIEVE_FETCH_FETCH_OPTIONS_H_
