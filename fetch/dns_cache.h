// fetch/dns_cache.h: the crawl's DNS cache. Host names are resolved with
// c-ares on one resolver thread the cache owns, and each answer is kept for
// its record's TTL bounded to [min_ttl, max_ttl]; a failed lookup (no such
// name, no address, no answer in time) is kept negative_ttl, so a dead name
// is asked once per negative_ttl however many URLs it has.
//
// Surprises first:
//   - Thread-safe: Lookup and Resolve may be called from any thread. Lookup
//     never blocks; the Fetcher calls it from the crawl loop and parks the
//     transfer until the answer comes (fetch/fetcher.h). Resolve blocks the
//     calling thread up to its bound: for callers that need the address
//     before they go on (the crawler's politeness key by IP,
//     crawler/policy/politeness_key.h).
//   - One lookup per name at a time: callers asking for a name being resolved
//     get kPending, and all are served by the one answer.
//   - Why not libcurl's cache: libcurl 7.88 keeps every answer a fixed time
//     (CURLOPT_DNS_CACHE_TIMEOUT), reads no TTL, and caches no failure, so a
//     dead name is asked again for each of its URLs. c-ares gives each
//     record's TTL (ares_addrinfo_node::ai_ttl).
//   - Names are looked up as given: no search domains from resolv.conf (a URL
//     names a full host). /etc/hosts is read first, as the system resolver
//     does; its answers carry no TTL and are kept min_ttl.
//   - IP literals ("127.0.0.1", "[::1]") are answered at once, never cached.
//   - Memory: about 250 bytes per name kept (the name, its addresses, a list
//     node and an index slot; docs/architecture.md, "Memory"); past
//     max_entries the least recently used answer is dropped (its name is
//     asked again when next used). Lookups under way are never dropped.
//
// Example:
//   absl::StatusOr<std::unique_ptr<sieve::DnsCache>> dns =
//       sieve::DnsCache::Create({});
//   sieve::DnsAnswer a = (*dns)->Resolve("example.com", absl::Seconds(5));
//   if (a.state == sieve::DnsAnswer::kResolved) Use(a.addresses.front());
#ifndef SIEVE_FETCH_DNS_CACHE_H_
#define SIEVE_FETCH_DNS_CACHE_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sieve {

struct DnsOptions {
  // Shortest time an answer is kept, whatever its TTL (many names have TTLs
  // of seconds, made for load balancing, not for a crawler that comes back
  // every few seconds). REQUIRES: >= 0. Default: 5 minutes.
  absl::Duration min_ttl = absl::Minutes(5);
  // Longest time an answer is kept, whatever its TTL.
  // REQUIRES: >= min_ttl. Default: 1 hour.
  absl::Duration max_ttl = absl::Hours(1);
  // How long a failed lookup is kept: a name that does not exist (NXDOMAIN),
  // has no address, or whose servers did not answer. REQUIRES: >= 0.
  // Default: 1 minute.
  absl::Duration negative_ttl = absl::Minutes(1);
  // Time one server has to answer one try (c-ares ARES_OPT_TIMEOUTMS; c-ares
  // doubles it at each round), and tries per server: a lookup whose servers
  // never answer fails after about timeout x (2^tries - 1).
  // REQUIRES: timeout > 0, tries >= 1. Default: 2 s, 2 tries (about 6 s).
  absl::Duration timeout = absl::Seconds(2);
  int tries = 2;
  // Servers asked instead of /etc/resolv.conf's, each "IP" or "IP:port"
  // ("127.0.0.1:5353", "[::1]:53"). Default: none (resolv.conf).
  std::vector<std::string> servers{};
  // Names kept; past it the least recently used answer is dropped. The
  // crawler sets it from fetch.dns_cache_entries, sized to the frontier's
  // active hosts (a host's name is used again at each of its fetches). Keep
  // it well above the transfers that may wait on names at once: an answer
  // dropped before its waiting transfers took it (Peek) leaves them waiting
  // for the next lookup of the name. REQUIRES: >= 1. Default: 65,536.
  size_t max_entries = size_t{1} << 16;
};

// OK, or InvalidArgument naming the first option that breaks its REQUIRES.
[[nodiscard]] absl::Status ValidateDnsOptions(const DnsOptions& options);

struct DnsAnswer {
  enum State {
    kPending,   // Being looked up; ask again after the listener runs.
    kResolved,  // `addresses` holds at least one address.
    kFailed,    // `error` says why; kept negative_ttl.
  };
  State state = kPending;
  // Text form ("127.0.0.1", "::1"), in the order the resolver gave them.
  std::vector<std::string> addresses{};
  std::string error{};
};

struct DnsStats {
  uint64_t lookups = 0;        // Lookups sent (A and AAAA count as one).
  uint64_t hits = 0;           // Answers served from the cache.
  uint64_t negative_hits = 0;  // Of hits: failures served from the cache.
  uint64_t failures = 0;       // Lookups that failed.
};

class DnsCache {
 public:
  // Validates `options`, sets up c-ares and starts the resolver thread.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<DnsCache>> Create(
      DnsOptions options);
  // Stops the resolver thread; lookups in flight are abandoned.
  ~DnsCache();
  DnsCache(const DnsCache&) = delete;
  DnsCache& operator=(const DnsCache&) = delete;

  // The cached answer for `host` (case and a trailing dot ignored), or
  // kPending after starting its lookup when none is fresh. Never blocks.
  // O(|host|).
  DnsAnswer Lookup(std::string_view host);
  // The answer stored for `host`, fresh or expired, or kPending when none is
  // (or its lookup is under way); starts nothing. O(|host|).
  DnsAnswer Peek(std::string_view host) const;
  // Lookup, then waits up to `max_wait` for the answer; kPending if it did
  // not come in time (the lookup goes on).
  DnsAnswer Resolve(std::string_view host, absl::Duration max_wait);

  // Called on the resolver thread after each answer is stored (e.g. to wake
  // a loop waiting in poll). Replaces the previous one; nullptr removes it,
  // and once this returns the old one is not running and never runs again.
  void SetListener(std::function<void()> listener);

  DnsStats stats() const;
  // Names held now (answers and lookups under way); at most max_entries once
  // a lookup has made room. O(1).
  size_t size() const;

  // True for an IPv4 or IPv6 address literal, with or without brackets.
  static bool IsIpLiteral(std::string_view host);

 private:
  struct Entry {
    std::string name;
    DnsAnswer answer;
    absl::Time expires = absl::InfinitePast();
  };
  using Lru = std::list<Entry>;  // Most recently used first.
  struct Query;

  DnsCache(DnsOptions options, void* channel, int wake_read, int wake_write);
  void Run();  // The resolver thread.
  static void OnAnswer(void* arg, int status, int timeouts, void* result);
  void Store(const std::string& name, DnsAnswer answer, absl::Duration ttl);
  // `name`'s entry, made the most recently used; a new kPending one (after
  // dropping the least recently used answer past max_entries) when it has
  // none. REQUIRES: mu_ held. O(1) amortised.
  Entry& Use(const std::string& name);

  const DnsOptions options_;
  void* const channel_;  // ares_channel; only the resolver thread uses it.
  const int wake_read_;
  const int wake_write_;

  mutable std::mutex mu_;
  std::condition_variable answered_;
  Lru lru_;  // Guarded by mu_.
  // Guarded by mu_; keys view the names in lru_.
  absl::flat_hash_map<std::string_view, Lru::iterator> index_;
  std::vector<std::string> to_start_;  // Guarded by mu_.
  DnsStats stats_;                     // Guarded by mu_.
  bool stopping_ = false;              // Guarded by mu_.

  std::mutex listener_mu_;
  std::function<void()> listener_;  // Guarded by listener_mu_.

  std::thread thread_;  // Last: started once the rest is built.
};

}  // namespace sieve

#endif  // SIEVE_FETCH_DNS_CACHE_H_
