// fetch/fetcher.h: many HTTP transfers at once on libcurl multi handles,
// driven by the caller's loop through a non-blocking Submit/Poll interface.
//
// Surprises first:
//   - Not thread-safe: Submit, Poll, in_flight and the destructor must be
//     called from one thread (the crawl loop). Only Wakeup may be called from
//     any thread, to interrupt a Poll.
//   - Redirects are not followed unless the request asks
//     (FetchRequest::max_redirects); a 3xx comes back with its resolved
//     FetchResponse::redirect_url. Only http and https are ever fetched, for
//     the request and for every redirect.
//   - Nothing is retried and nothing is capped per host: every request is
//     attempted once and its outcome (a 429, a 5xx, a refused connection)
//     comes back at once. Retries, back-off and per-host concurrency are the
//     Frontier's (see fetch/retry_policy.h for Retry-After).
//   - At most max_concurrent_transfers run at once; the others wait in the
//     Fetcher's FIFO (not inside curl, so their timeouts have not started).
//   - No socket is opened to a private address (loopback, RFC 1918,
//     link-local, ...: fetch/address_guard.h) unless the URL's host is in
//     FetchOptions::private_address_hosts or allow_private_addresses is set;
//     such a fetch comes back with FetchError::kBlockedAddress.
//   - Transfers make progress only inside Poll: a loop that stops calling Poll
//     stalls them (and their timeouts fire when it resumes).
//   - Destroying the Fetcher aborts every transfer in flight, without a
//     response.
//   - Connections outlive their transfers: up to
//     FetchOptions::max_idle_connections stay open for the next request to
//     their host (those of the hosts that took the slots first, while they
//     are fetched again within 118 s; a transfer that finds no free slot, or
//     whose FetchRequest::next_request_in is past those 118 s, has its
//     connection closed when it ends), and each host's TLS session is
//     kept so a new connection resumes it. So the connections open never
//     pass max_idle_connections + max_concurrent_transfers, whatever the
//     number of hosts (fetch/internal/idle_connections.h says why libcurl's
//     own limit does not do). counters() says what was opened, reused,
//     resumed and resolved.
//   - Host names are resolved by a DnsCache (fetch/dns_cache.h), the
//     caller's or the Fetcher's own, for their record's TTL bounded. A
//     transfer whose host is being looked up waits outside curl (its
//     timeouts not started) while the others go on; a name that does not
//     resolve fails its transfers at once with FetchError::kDns while the
//     failure is cached. Only the target of a redirect curl follows is
//     resolved by curl itself.
//
// The loop is curl's docs/examples/10-at-a-time.c: at most
// max_concurrent_transfers easy handles in the multi handles, each carrying
// its context in CURLOPT_PRIVATE; Poll waits for their sockets and timers in
// one epoll set, lets curl act on them (curl_multi_socket_action), and reads
// curl_multi_info_read until something completes. A host's transfers all go
// to one multi handle, one per kIdleConnectionsPerMulti idle connections
// allowed (fetch/internal/curl_multis.h: libcurl walks a handle's whole
// connection cache per transfer).
//
// Example:
//   absl::StatusOr<std::unique_ptr<sieve::Fetcher>> fetcher =
//       sieve::Fetcher::Create({});
//   if (!fetcher.ok()) return fetcher.status();
//   (*fetcher)->Submit({.id = 1, .url = "https://example.com/"});
//   while ((*fetcher)->in_flight() > 0) {
//     for (sieve::FetchResponse& r : (*fetcher)->Poll(absl::Seconds(1))) {
//       Handle(r);
//     }
//   }
#ifndef SIEVE_FETCH_FETCHER_H_
#define SIEVE_FETCH_FETCHER_H_

#include <atomic>
#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "fetch/dns_cache.h"
#include "fetch/fetch_counters.h"
#include "fetch/fetch_options.h"
#include "fetch/fetch_types.h"
#include "fetch/internal/curl_dns_entries.h"
#include "fetch/internal/curl_handles.h"
#include "fetch/internal/curl_multis.h"
#include "fetch/internal/idle_connections.h"
#include "fetch/internal/tls_session_cache.h"
#include "fetch/internal/transfer.h"

namespace sieve {

class Fetcher {
 public:
  // Validates `options` (InvalidArgument), initialises libcurl once per process
  // (see fetch/curl_init.h) and creates the multi handle. Host names are
  // resolved through `dns`, which may be shared with other users of the same
  // answers (the crawler's politeness key); when null, the Fetcher makes its
  // own from options.dns.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Fetcher>> Create(
      FetchOptions options, std::shared_ptr<DnsCache> dns = nullptr);

  Fetcher(const Fetcher&) = delete;
  Fetcher& operator=(const Fetcher&) = delete;
  // Aborts transfers in flight and frees every handle and socket. O(transfers
  // in flight).
  ~Fetcher();

  // Queues a request; it starts during a later Poll, in submission order,
  // once fewer than max_concurrent_transfers are running. Never blocks, never
  // fails: every submitted request produces exactly one response from Poll,
  // errors included (unless the Fetcher is destroyed first). O(1).
  void Submit(FetchRequest request);

  // Runs transfers until at least one completes, `max_wait` passes, or Wakeup
  // is called; returns the completed ones (possibly none), in completion order.
  // Waits in epoll_wait, so an idle Fetcher costs no CPU. A Poll with
  // max_wait = 0 does the pending work without waiting.
  std::vector<FetchResponse> Poll(absl::Duration max_wait);

  // Adds `host` to FetchOptions::private_address_hosts, for connections made
  // from now on (the crawler adds a seed's redirect target). O(|host|).
  void AllowPrivateAddressHost(std::string_view host) {
    addresses_.AllowHost({host.data(), host.size()});
  }

  // Makes the current Poll return early, or the next one if none is running.
  // Thread-safe.
  void Wakeup();

  // Requests submitted whose response Poll has not returned yet: queued,
  // waiting for their host's address, or running.
  size_t in_flight() const;
  // Transfers inside curl right now (<= max_concurrent_transfers).
  size_t running() const { return running_.size(); }

  // Connections opened and reused, TLS handshakes full and resumed, DNS
  // lookups, since Create (fetch/fetch_counters.h). O(1).
  FetchCounters counters() const;
  // Idle connections kept at most (FetchOptions::max_idle_connections,
  // resolved).
  long max_idle_connections() const { return max_idle_connections_; }
  // Idle connections kept now (an upper bound: one the server closed counts
  // until it ages out). O(multi_handles()).
  size_t idle_connections() const;
  // libcurl multi handles the transfers are spread over, by host: one per
  // kIdleConnectionsPerMulti idle connections allowed
  // (fetch/internal/curl_multis.h). O(1).
  int multi_handles() const { return multis_->size(); }

 private:
  Fetcher(FetchOptions options,
          std::unique_ptr<fetch_internal::CurlMultis> multis,
          fetch_internal::CurlSlistPtr extra_headers,
          fetch_internal::CurlSharePtr share, long max_idle_connections,
          size_t idle_each, std::shared_ptr<DnsCache> dns);

  // The multi handle of the transfers to `idle_key` ("host:port").
  int MultiOf(const std::string& idle_key) const;

  void StartQueued(std::vector<FetchResponse>* out);
  // Gives `transfer` its host's addresses from the DnsCache; false when it
  // cannot start now: parked in resolving_ until the answer comes, or failed
  // into `out`.
  bool Resolve(std::unique_ptr<fetch_internal::Transfer>& transfer,
               std::vector<FetchResponse>* out);
  // Puts the transfers whose host's address came back at the head of queue_,
  // and fails into `out` those whose host did not resolve.
  void TakeResolved(std::vector<FetchResponse>* out);
  void CollectCompleted(std::vector<FetchResponse>* out);

  const FetchOptions options_;
  // Declared before the transfers so it outlives their easy handles, which
  // point at it.
  const fetch_internal::CurlSlistPtr extra_headers_;
  // Read by the transfers' socket callbacks, inside Poll (this thread).
  fetch_internal::AddressPolicy addresses_;
  // TLS sessions and DNS answers shared by every transfer; declared before
  // the multi handle and the transfers, so it is cleaned up after them.
  const fetch_internal::CurlSharePtr share_;
  // Hosts' TLS sessions beyond the share handle's 8; outlives the
  // connections in multis_, whose SSL contexts point at it.
  fetch_internal::TlsSessionCache tls_sessions_{16384};
  // The hosts whose addresses running transfers put in curl's DNS cache,
  // taken out again when their transfers are done.
  fetch_internal::CurlDnsEntries curl_dns_;
  const long max_idle_connections_;
  FetchCounters counters_;
  // Declared before the transfers; the destructor removes every easy handle
  // from its multi handle first.
  const std::unique_ptr<fetch_internal::CurlMultis> multis_;
  // Which transfers may keep their connections, per multi handle: at most
  // its share of max_idle_connections_ idle, so libcurl never evicts one
  // itself.
  std::vector<fetch_internal::IdleConnections> idle_;
  // Submitted, not started yet (FIFO). Their easy handles are made when they
  // start.
  std::deque<std::unique_ptr<fetch_internal::Transfer>> queue_;
  struct Running {
    std::unique_ptr<fetch_internal::Transfer> transfer;
    int multi;  // Its index in multis_.
  };
  absl::flat_hash_map<fetch_internal::Transfer*, Running> running_;
  std::atomic<bool> woken_{false};
  // Declared after multis_: its listener (set in the constructor, removed
  // first thing in the destructor) wakes multis_.
  const std::shared_ptr<DnsCache> dns_;
  // Transfers waiting for their host's address, by host, in submission
  // order; resolving_count_ of them.
  absl::flat_hash_map<std::string,
                      std::vector<std::unique_ptr<fetch_internal::Transfer>>>
      resolving_;
  size_t resolving_count_ = 0;
  // Set by the DnsCache's resolver thread when an answer came.
  std::atomic<bool> dns_answered_{false};
};

}  // namespace sieve

#endif  // SIEVE_FETCH_FETCHER_H_
