// fetch/internal/idle_connections.h: which connections the Fetcher lets
// libcurl keep after their transfers, so that at most `cap` idle connections
// stay open and libcurl never has to choose one to close.
//
// Why not CURLMOPT_MAXCONNECTS alone: past that limit libcurl 7.88 closes the
// connection idle longest (Curl_conncache_extract_oldest, lib/conncache.c),
// which (1) walks every connection bundle of its cache on each transfer that
// returns a connection, and (2) leaves the closed connection's bundle (a hash
// entry per host:port) in the cache for good: bundle_remove_conn there does not
// drop an empty bundle, unlike Curl_conncache_remove_conn. A crawl that meets
// new hosts without end then grows that hash by one bundle per host evicted,
// and every transfer walks it again in curl_multi_remove_handle (its
// close_connect_only pass over the whole cache, run whenever the transfer
// kept its connection) and in the eviction: issue #36 measured ~90 % of the
// crawl's CPU there and RSS growing without bound, with the cap at 256.
// Closing the longest idle is also the wrong choice for a crawl, whose hosts
// come back in rotation: the host idle longest is the one due next (the
// earlier age-bound attempt opened 5.4 connections per host, docs/benchmarks.md).
//
// What this does instead: a transfer may keep its connection only if its
// caller expects the host again within `max_idle` (`want_keep`, from
// FetchRequest::next_request_in: on a broad crawl most hosts are next due
// minutes later, and a slot they held would go unused while a host due in
// seconds found none) and it takes one its host left idle, or a slot is free
// (at most `cap` idle or reserved by running transfers); otherwise the
// Fetcher sets CURLOPT_FORBID_REUSE and curl
// closes the connection at the end of that transfer, through the path that
// drops its bundle (and skips the walk in curl_multi_remove_handle). The hosts
// that hold slots keep them while they are fetched again within `max_idle`
// (CURLOPT_MAXAGE_CONN, which has curl close older ones); new hosts get a slot
// as those age out. So libcurl's cache holds at most cap + transfers in flight
// connections and as many bundles, whatever the number of hosts seen.
//
// Counts are an upper bound of what curl holds: a connection the server closed
// is counted until it ages out.
//
// Example (what the Fetcher does per transfer):
//   IdleConnections idle(/*cap=*/2, absl::Seconds(118));
//   bool keep = idle.Start("a.test:80", now);  // true: a free slot
//   ... if (!keep) curl_easy_setopt(easy, CURLOPT_FORBID_REUSE, 1L);
//   idle.Finish("a.test:80", keep, /*connection_kept=*/ok, now);
//
// Internal to sieve::fetch; single-threaded like the Fetcher. O(1) amortised
// per call (each Finish adds one entry that Expire removes once).
#ifndef SIEVE_FETCH_INTERNAL_IDLE_CONNECTIONS_H_
#define SIEVE_FETCH_INTERNAL_IDLE_CONNECTIONS_H_

#include <cstddef>
#include <deque>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"

namespace sieve::fetch_internal {

// Seconds an idle connection stays open (CURLOPT_MAXAGE_CONN, set on every
// transfer: libcurl's default). curl closes an older one when a transfer next
// opens a connection (at most once a second) or would reuse it.
inline constexpr long kMaxIdleSeconds = 118;

class IdleConnections {
 public:
  // REQUIRES: max_idle > 0.
  IdleConnections(size_t cap, absl::Duration max_idle)
      : cap_(cap), max_idle_(max_idle) {}

  // A transfer to `key` (CurlDnsEntries::Key: "host:port") starts at `now`.
  // Takes one idle connection of `key` if there is one (curl will reuse it);
  // returns whether this transfer may keep its connection afterwards: true
  // when it took one, or a slot was free (then reserved until Finish); false
  // when `want_keep` is false or no slot is free.
  bool Start(const std::string& key, bool want_keep, absl::Time now);
  // The transfer Start returned `kept_slot` for ended; `connection_kept`:
  // curl keeps its connection (it ended without a connection error).
  // Call only when `kept_slot` was true (a no-op otherwise).
  void Finish(const std::string& key, bool kept_slot, bool connection_kept,
              absl::Time now);

  // Idle connections counted now (<= cap).
  size_t idle() const { return idle_; }
  // Slots reserved by running transfers.
  size_t reserved() const { return reserved_; }
  size_t cap() const { return cap_; }

 private:
  // Forgets the connections idle since max_idle or longer: curl closes them.
  void Expire(absl::Time now);

  struct Host {
    size_t idle = 0;
    absl::Time since;  // When the last of them became idle.
  };
  const size_t cap_;
  const absl::Duration max_idle_;
  absl::flat_hash_map<std::string, Host> hosts_;
  // (key, since) in the order they became idle; an entry whose `since` is
  // no longer its host's is stale and skipped.
  std::deque<std::pair<std::string, absl::Time>> order_;
  size_t idle_ = 0;
  size_t reserved_ = 0;
};

}  // namespace sieve::fetch_internal

#endif  // SIEVE_FETCH_INTERNAL_IDLE_CONNECTIONS_H_
