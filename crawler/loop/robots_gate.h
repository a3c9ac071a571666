// crawler/loop/robots_gate.h: robots.txt (RFC 9309) between the frontier and
// the fetch: each URL the frontier hands out passes the gate, which answers
// from the rules it holds, or holds the URL while its origin's robots.txt is
// fetched in the URL's slot.
//
// Owns: the robots.txt rules of the origins seen lately (RobotsCache, bounded
// by robots.cache_entries and robots.cache_mb), the product token they are
// matched for, the origins whose robots.txt is in flight with the URLs held
// for each (one entry per origin, so at most fetch.concurrency entries), and
// the counts robots_fetches and robots_unavailable.
//
// A URL's way through the gate:
//   Allowed(parts)  rules known   -> true (fetch it) or false (disallowed)
//                   rules unknown -> nullopt: Hold(parts, url); the first URL
//                                    held for an origin says "fetch
//                                    robots.txt" (RobotsUrl) in its slot
//                   a render's request (no frontier URL) -> Fetching(parts)
//                                    or StartFetch(parts): fetched in the
//                                    host's lane, the request waits outside
//   Take(origin, response)        -> the held URLs come back with the rules
//                                    (stored), or with the cause when
//                                    robots.txt is unavailable (5xx, 429, no
//                                    answer: RFC 9309 2.3.1.4, nothing stored)
//
// Surprises first:
//   - Not thread-safe, except cache(): the link policy's parser threads read
//     the rules (RobotsCache is thread-safe).
//   - A robots.txt on a blocked (private) address counts as unavailable in
//     the 4xx sense (RFC 9309 2.3.1.3): no rules apply (kAllowAll).
//
// Example:
//   RobotsGate gate({.token = "SieveBot"}, counters, log);
//   if (std::optional<bool> allowed = gate.Allowed(parts); !allowed) {
//     if (gate.Hold(parts, std::move(url))) Fetch(RobotsGate::RobotsUrl(parts));
//   }
#ifndef SIEVE_CRAWLER_LOOP_ROBOTS_GATE_H_
#define SIEVE_CRAWLER_LOOP_ROBOTS_GATE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "crawler/loop/crawl_state.h"
#include "crawler/policy/robots_cache.h"
#include "fetch/fetch_failure.h"
#include "fetch/fetch_types.h"
#include "frontier/crawl_frontier.h"
#include "parse/url.h"
#include "spdlog/logger.h"

namespace sieve {

class RobotsGate {
 public:
  struct Options {
    // robots.cache_entries, robots.cache_mb. Default: RobotsCacheOptions{}.
    RobotsCacheOptions cache = {};
    // The product token robots.txt groups are matched against
    // (RobotsToken). REQUIRES: not empty. Default: "SieveBot".
    std::string token = "SieveBot";
  };

  // `counters` must outlive the gate.
  RobotsGate(Options options, CrawlCounters& counters,
             std::shared_ptr<spdlog::logger> log);

  // The origin key of `parts` (scheme, host, port: RFC 9309 2.3; http and
  // https of one host have their own robots.txt).
  static std::string OriginOf(const UrlParts& parts);
  // "scheme://authority/robots.txt" of `parts`.
  static std::string RobotsUrl(const UrlParts& parts);

  // Whether the rules held for `parts`' origin allow its path and query;
  // nullopt when they are not known (Hold the URL). Cost: one cache lookup.
  std::optional<bool> Allowed(const UrlParts& parts) const;

  // Holds `url` (whose parts are `parts`) until its origin's robots.txt is
  // answered; true when it is the first held for the origin: the caller
  // fetches RobotsUrl(parts) now (counted in robots_fetches).
  bool Hold(const UrlParts& parts, FrontierUrl url);

  // Whether robots.txt of `parts`' origin is in flight (Hold or StartFetch
  // was called, Take not yet). Cost: one hash lookup.
  bool Fetching(const UrlParts& parts) const {
    return held_.contains(OriginOf(parts));
  }
  // robots.txt of `parts`' origin is fetched now for a request that is no
  // frontier URL (a render's subresource, crawler/loop/crawler_render.cc),
  // in its host's lane: marked in flight (counted in robots_fetches); Take
  // hands back only the URLs held meanwhile. REQUIRES: !Fetching(parts).
  void StartFetch(const UrlParts& parts);

  // What robots.txt of an origin said, and the URLs that waited for it.
  struct Answer {
    RobotsVerdict verdict;  // Stored unless `cause` is set.
    // Set when robots.txt is unavailable: why the held URLs go back (a
    // 429/5xx answer is kRobotsUnavailable; no answer is its own failure);
    // its detail starts with "robots.txt: ".
    std::optional<Failure> cause;
    bool blocked = false;  // robots.txt lay on a blocked private address.
    std::vector<FrontierUrl> waiting;  // In the order they were held.
  };
  // robots.txt of `origin` answered `response`: the rules are stored (or the
  // cause is given) and the URLs held are handed back; nullopt when none
  // were held for `origin`.
  std::optional<Answer> Take(const std::string& origin,
                             const FetchResponse& response);

  // The rules, for the link policy (thread-safe).
  const RobotsCache& cache() const { return cache_; }
  // The product token the rules are matched for.
  const std::string& token() const { return token_; }
  // Origins whose robots.txt is in flight.
  size_t holding() const { return held_.size(); }

 private:
  RobotsCache cache_;
  const std::string token_;
  absl::flat_hash_map<std::string, std::vector<FrontierUrl>> held_;
  CrawlCounters& counters_;
  std::shared_ptr<spdlog::logger> log_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_ROBOTS_GATE_H_
