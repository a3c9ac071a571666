// fetch/fetch_counters.h: what a Fetcher's connections cost, counted where
// libcurl does the work, for the crawl's summary and the broad-web benchmark.
//
// Each counter is counted once, by the Fetcher, at the transfer that caused
// it: a connection at the transfer that opened it (CURLINFO_NUM_CONNECTS), a
// TLS handshake when its connection is first used (CURLOPT_PREREQFUNCTION,
// then OpenSSL's SSL_session_reused on the connection's SSL), a DNS lookup when
// libcurl starts a resolve, i.e. when its cache had no fresh answer
// (CURLOPT_RESOLVER_START_FUNCTION).
//
// Example:
//   sieve::FetchCounters c = fetcher.counters();
//   double per_host = double(c.connections_opened) / hosts;
#ifndef SIEVE_FETCH_FETCH_COUNTERS_H_
#define SIEVE_FETCH_FETCH_COUNTERS_H_

#include <cstdint>

namespace sieve {

struct FetchCounters {
  // Connections opened (TCP connects that succeeded or were attempted by a
  // transfer; redirects curl followed included).
  uint64_t connections_opened = 0;
  // Transfers that opened no connection: they reused one kept from an earlier
  // transfer (or multiplexed on one, with HTTP/2).
  uint64_t connections_reused = 0;
  // TLS handshakes on new connections: full, and resumed from a session an
  // earlier connection to the same host left (the Fetcher's share handle).
  uint64_t tls_full_handshakes = 0;
  uint64_t tls_resumed_handshakes = 0;
  // Host names resolved (cache misses of libcurl's DNS cache).
  uint64_t dns_lookups = 0;
};

}  // namespace sieve

#endif  // SIEVE_FETCH_FETCH_COUNTERS_H_
