// crawler/loop/sitemap_queue.h: the sitemaps the crawl queues (from
// robots.txt's Sitemap: lines, /sitemap.xml probes and sitemap indexes),
// capped per host (crawl.max_sitemaps_per_host).
//
// Owns: the count of sitemaps queued per host, keyed by the authority's
// Fingerprint64 and bounded: past kMaxHosts hosts it is cleared (a host's
// count then starts again; each sitemap URL still goes through the Sieve
// once), so a crawl of 10^6 hosts holds at most ~8 MB here. Not saved in the
// checkpoint: a resumed run may queue up to max_sitemaps_per_host more per
// host, which the Sieve still dedups.
//
// A sitemap file is a frontier URL like a page (politeness, robots.txt,
// retries, a pages.jsonl record), marked in its metadata (Origin::sitemap);
// only its body goes to ProcessSitemap instead of the HTML parser.
//
// Not thread-safe: the crawl loop's thread only.
#ifndef SIEVE_CRAWLER_LOOP_SITEMAP_QUEUE_H_
#define SIEVE_CRAWLER_LOOP_SITEMAP_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "crawler/policy/link_policy.h"
#include "crawler/policy/robots_cache.h"
#include "crawler/policy/sitemap_mode.h"
#include "spdlog/logger.h"

namespace sieve {

class SitemapQueue {
 public:
  struct Options {
    // crawl.sitemaps. Default: kRobots.
    SitemapSource source = SitemapSource::kRobots;
    // crawl.max_sitemaps_per_host. REQUIRES: >= 0. Default: 100.
    int64_t max_per_host = 100;
  };
  // `policy` (scope, traps, robots.txt, the Sieve) must outlive the queue.
  SitemapQueue(Options options, const LinkPolicy* policy,
               std::shared_ptr<spdlog::logger> log)
      : options_(options), policy_(policy), log_(std::move(log)) {}

  // Queues the sitemap at `url` (its Origin says how it was found) unless
  // sitemaps are off or its host has had max_per_host; true when the
  // frontier queued it. Cost: one SplitUrl and one AddDiscovered.
  bool Queue(std::string_view url, const Origin& origin);

  // The sitemaps robots.txt at `robots_url` names (and, with robots+probe,
  // /sitemap.xml of its host), queued.
  void QueueFromRobots(const std::string& robots_url,
                       const RobotsVerdict& verdict);

  static constexpr size_t kMaxHosts = size_t{1} << 18;

 private:
  Options options_;
  const LinkPolicy* policy_;
  std::shared_ptr<spdlog::logger> log_;
  absl::flat_hash_map<uint64_t, int64_t> per_host_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_SITEMAP_QUEUE_H_
