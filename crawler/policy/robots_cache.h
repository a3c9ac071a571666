// crawler/policy/robots_cache.h: robots.txt rules per origin, as the crawl
// learns them, for at most 24 hours and at most max_entries origins.
//
// Surprises first:
//   - Thread-safe: the crawl loop stores rules (Store) while parser threads
//     ask (Allowed) to drop disallowed links before they reach the Sieve; an
//     origin not known yet, or whose entry has expired, answers nullopt and
//     the loop fetches its robots.txt again before the fetch.
//   - Keyed by origin, scheme + host + port (RFC 9309 2.3: the rules apply to
//     "the protocol, host, and port" they were fetched from): http://h/ and
//     https://h/ are two entries. Build keys with RobotsCache::Key.
//   - Entries expire lifetime (24 h) after they were stored (RFC 9309 2.4:
//     "crawlers SHOULD NOT use a cached version for more than 24 hours").
//     Expiry is counted on the injected clock, so tests can move time.
//   - Bounded: past max_entries the least recently used origin is dropped
//     (and, if crawled again, its robots.txt fetched again).
//   - The RFC 9309 fetch-status rules (2.3.1) decide what is stored: 2xx ->
//     the parsed file, compiled for the crawler (parse/robots_matcher.h:
//     bounded work per URL); 4xx (and a redirect chain past 5 hops) -> allow
//     all; 5xx, 429 or unreachable -> nothing is stored ("complete disallow"
//     until a later retry: the loop sends the origin's URLs back to the
//     Frontier, which backs the host off and retries).
//
// Example:
//   sieve::RobotsCache cache({.max_entries = 20000});
//   const std::string key = sieve::RobotsCache::Key("https", "a.com", 443);
//   cache.Store(key, sieve::InterpretRobotsResponse(response, "SieveBot"));
//   std::optional<bool> ok = cache.Allowed(key, "/private/x");  // false
#ifndef SIEVE_CRAWLER_POLICY_ROBOTS_CACHE_H_
#define SIEVE_CRAWLER_POLICY_ROBOTS_CACHE_H_

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "fetch/fetch_types.h"
#include "parse/robots_matcher.h"

namespace sieve {

// What a robots.txt response means for its origin.
struct RobotsVerdict {
  enum Kind {
    kRules,        // Obey `rules`.
    kAllowAll,     // 4xx, or redirects past the limit: no restriction.
    kUnavailable,  // 5xx, 429 or unreachable: disallow all for now, retry
                   // later.
  };
  Kind kind = kAllowAll;
  // kRules only: the file compiled for the product token.
  std::shared_ptr<const RobotsMatcher> rules;
  // From the rules, for the product token.
  std::optional<absl::Duration> crawl_delay;
  // kRules only: every Sitemap: line's value, in file order (RFC 9309 2.2.4;
  // global, not per group). Not checked: they may name other hosts.
  std::vector<std::string> sitemaps;
};

// Applies RFC 9309's status rules (and 429 as 5xx) to a robots.txt response
// fetched for `user_agent`, and compiles the file. Cost: O(body).
RobotsVerdict InterpretRobotsResponse(const FetchResponse& response,
                                      std::string_view user_agent);

struct RobotsCacheOptions {
  // Origins kept; past it the least recently used is dropped. A crawl
  // cycling through more hosts than this at once refetches robots.txt.
  // REQUIRES: >= 1. Default: 20,000.
  size_t max_entries = 20000;
  // Bytes of compiled rules kept (RobotsMatcher::approximate_bytes); past it
  // the least recently used origins are dropped (the newest is always kept).
  // A compiled file is a few KB for a typical robots.txt and up to ~10 MB for
  // a hostile 500 KiB one, so this, not max_entries, bounds RAM against
  // hostile hosts. REQUIRES: > 0. Default: 256 MiB.
  size_t max_bytes = size_t{256} << 20;
  // How long an entry answers (RFC 9309 2.4). REQUIRES: > 0. Default: 24 h.
  absl::Duration lifetime = absl::Hours(24);
  // Time source; tests inject a fake. Default: absl::Now.
  std::function<absl::Time()> clock = [] { return absl::Now(); };
};

class RobotsCache {
 public:
  explicit RobotsCache(RobotsCacheOptions options = {});
  // Kept while the crawl loop still names its product token here; the token
  // is now compiled into each verdict (InterpretRobotsResponse). Default
  // options.
  explicit RobotsCache(std::string_view /*user_agent*/)
      : RobotsCache(RobotsCacheOptions{}) {}

  // The origin key: "scheme://host:port", scheme and host lower-cased, IPv6
  // hosts in brackets as given. Pass the effective port (80/443 when the URL
  // names none, as UrlParts::port does). Example: Key("HTTPS", "A.com", 443)
  // == "https://a.com:443".
  static std::string Key(std::string_view scheme, std::string_view host,
                         int port);

  // Records the rules for `origin` (kRules or kAllowAll; kUnavailable is not
  // stored), valid for `lifetime` from now; evicts the least recently used
  // origin past max_entries. O(1) amortised.
  void Store(std::string_view origin, const RobotsVerdict& verdict);
  // Forgets `origin`'s rules, so they are fetched again.
  void Forget(std::string_view origin);
  // Whether `path_and_query` may be fetched on `origin`; nullopt when its
  // robots.txt is not known or has expired (then the entry is dropped). Marks
  // the origin recently used. Cost: a hash lookup and RobotsMatcher's match.
  std::optional<bool> Allowed(std::string_view origin,
                              std::string_view path_and_query) const;
  // Known and not expired. Does not mark the origin used.
  bool Known(std::string_view origin) const;
  // Entries held (expired ones not yet dropped included).
  size_t size() const;
  // Their approximate bytes (see max_bytes).
  size_t bytes() const;

 private:
  struct Entry {
    std::string origin;
    std::shared_ptr<const RobotsMatcher> rules;  // nullptr = allow all.
    absl::Time expires;
    size_t bytes = 0;  // The rules' approximate_bytes plus the key.
  };
  using Lru = std::list<Entry>;  // Most recently used first.

  const RobotsCacheOptions options_;
  // std::mutex, not absl::Mutex: the installed Abseil has no TSan annotations.
  mutable std::mutex mu_;
  mutable Lru lru_;  // Guarded by mu_.
  // Guarded by mu_; points into lru_.
  mutable absl::flat_hash_map<std::string, Lru::iterator> index_;
  mutable size_t bytes_ = 0;  // Guarded by mu_; sum of Entry::bytes.

  // Drops `it` from both structures. REQUIRES: mu_ held.
  void EraseLocked(Lru::iterator it) const;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_ROBOTS_CACHE_H_
