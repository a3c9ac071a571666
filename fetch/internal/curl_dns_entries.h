// fetch/internal/curl_dns_entries.h: which hosts' addresses the Fetcher has
// put in libcurl's DNS cache (CURLOPT_RESOLVE), so that it takes them out
// again once no transfer of its needs them.
//
// Why: libcurl 7.88 walks its whole DNS cache after every transfer, to prune
// expired entries (Curl_hostcache_prune, called from multi_done in its
// lib/multi.c). Each transfer to a host the DnsCache resolved leaves that
// host's entry there for dns.min_ttl, so with H hosts crawled in that window
// every page costs a walk over H entries: about 7 % of the crawl's CPU at
// 1,000 hosts, and at 10,000 hosts taking it away halved the CPU per page
// (docs/benchmarks.md, "Crawling a broad web"). The DnsCache already keeps
// every answer for the crawl, and each transfer gives curl its host's
// addresses again, so curl's copy is only needed while a transfer of that
// host runs. A host whose transfers are all done is handed back as a removal
// line ("-host:port") for the next transfer to carry: curl's cache then holds
// about the hosts in flight.
//
// Example (what the Fetcher does):
//   entries.Started("a.test:443");            // a transfer of a.test starts
//   entries.Finished("a.test:443");           // ... and ends
//   std::vector<std::string> gone = entries.TakeUnused();  // {"a.test:443"}
//   // the next transfer's CURLOPT_RESOLVE: "-a.test:443", then its own line.
//
// Internal to sieve::fetch; single-threaded like the Fetcher. O(1) per call
// but TakeUnused, O(hosts handed back).
#ifndef SIEVE_FETCH_INTERNAL_CURL_DNS_ENTRIES_H_
#define SIEVE_FETCH_INTERNAL_CURL_DNS_ENTRIES_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace sieve::fetch_internal {

class CurlDnsEntries {
 public:
  // The key of `host` and `port` in curl's DNS cache, "host:port" with the
  // host in lower case, as curl builds it (create_hostcache_id in its
  // lib/hostip.c).
  static std::string Key(const std::string& host, long port);

  // A transfer that carries the entry `key` starts (is given to curl).
  void Started(const std::string& key);
  // That transfer is done (a key never Started is ignored).
  void Finished(const std::string& key);
  // The keys no running transfer uses since the last call, for the next
  // transfer to remove; empties the list.
  std::vector<std::string> TakeUnused();

 private:
  absl::flat_hash_map<std::string, int> users_;  // Key -> running transfers.
  std::vector<std::string> unused_;
};

}  // namespace sieve::fetch_internal

#endif  // SIEVE_FETCH_INTERNAL_CURL_DNS_ENTRIES_H_
