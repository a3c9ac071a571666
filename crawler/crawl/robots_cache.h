// crawler/crawl/robots_cache.h: robots.txt rules per host, as the crawl learns
// them.
//
// Surprises first:
//   - Thread-safe: the crawl loop stores rules (Store) while parser threads ask
//     (Allowed) to drop disallowed links before they reach the Sieve; a host
//     not known yet answers nullopt and the loop checks again before the fetch.
//   - The RFC 9309 fetch-status rules (section 2.3.1) decide what is stored:
//     2xx -> the parsed file; 4xx (and a redirect chain past 5 hops) -> allow
//     all; 5xx or unreachable -> nothing is stored ("complete disallow" until a
//     later retry: the loop sends the host's URLs back to the Frontier, which
//     backs the host off and retries).
//
// Example:
//   cache.Store("a.com", sieve::RobotsRules::Parse(body));
//   std::optional<bool> ok = cache.Allowed("a.com", "/private/x");  // false
#ifndef SIEVE_CRAWLER_CRAWL_ROBOTS_CACHE_H_
#define SIEVE_CRAWLER_CRAWL_ROBOTS_CACHE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "fetch/fetch_types.h"
#include "parse/robots.h"

namespace sieve {

// What a robots.txt response means for its host.
struct RobotsVerdict {
  enum Kind {
    kRules,        // Obey `rules`.
    kAllowAll,     // 4xx, or redirects past the limit: no restriction.
    kUnavailable,  // 5xx or unreachable: disallow all for now, retry later.
  };
  Kind kind = kAllowAll;
  std::shared_ptr<const RobotsTxt> rules;  // kRules only.
  std::optional<absl::Duration>
      crawl_delay;  // From the rules, for the product token.
};

// Applies RFC 9309's status rules to a robots.txt response fetched for
// `user_agent`.
RobotsVerdict InterpretRobotsResponse(const FetchResponse& response,
                                      std::string_view user_agent);

class RobotsCache {
 public:
  explicit RobotsCache(std::string user_agent)
      : user_agent_(std::move(user_agent)) {}

  // Records the rules for `host` (kRules or kAllowAll; kUnavailable is not
  // stored).
  void Store(std::string_view host, const RobotsVerdict& verdict);
  // Forgets `host`'s rules, so they are fetched again.
  void Forget(std::string_view host);
  // Whether `path_and_query` may be fetched on `host`; nullopt when the host's
  // robots.txt is not known yet. Cost: a hash lookup and the rules' match.
  std::optional<bool> Allowed(std::string_view host,
                              std::string_view path_and_query) const;
  bool Known(std::string_view host) const;

 private:
  const std::string user_agent_;
  mutable absl::Mutex mu_;
  // nullptr = allow all.
  absl::flat_hash_map<std::string, std::shared_ptr<const RobotsTxt>> hosts_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CRAWL_ROBOTS_CACHE_H_
