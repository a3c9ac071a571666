// frontier/frontier_options.h: FrontierOptions, what a Frontier
// (frontier/frontier.h) is made with: the Sieve in front of it, politeness,
// the host queue budget, page caps, parked hosts, revisits and leases. The
// crawler maps keys of config/default.toml's `[crawl]`, `[politeness]` and
// `[sieve]` tables onto it (crawler/config/config_options.cc lists which);
// this library never reads the config itself.
//
// Example:
//   sieve::FrontierOptions options;
//   options.politeness.min_delay = absl::Seconds(1);
//   options.max_urls_per_host = 10000;
//   auto frontier = sieve::Frontier::Create(options);
#ifndef SIEVE_FRONTIER_FRONTIER_OPTIONS_H_
#define SIEVE_FRONTIER_FRONTIER_OPTIONS_H_

#include <cstdint>

#include "absl/time/time.h"
#include "frontier/politeness.h"
#include "frontier/sieve.h"

namespace sieve {

struct FrontierOptions {
  // The Sieve behind the Frontier: filter size and kind, its queue's memory
  // budget and disk spill, lossless mode. Default: SieveOptions's defaults.
  SieveOptions sieve{};
  // Per-host delays, in-flight cap, adaptive delay, 429/503 back-off. Default:
  // see there.
  PolitenessOptions politeness{};
  // Bytes of URL records held in the per-host queues in RAM. Past it, a URL
  // pulled from the Sieve goes to its host's queue on disk (a scratch store
  // under sieve.work_dir) unless its host has nothing in RAM. Default: 64 MiB.
  uint64_t host_queue_memory_bytes = uint64_t{64} << 20;
  // While no host is ready, one Next call pulls at most this many records from
  // the Sieve past the budget, looking for a URL of a host that may be fetched
  // now (the others go to disk). Bounds the time of one Next call; the search
  // goes on at the next call. REQUIRES: > 0. Default: 4096.
  uint64_t max_pulls_past_budget = 4096;
  // Page cap per host: at most this many URLs of one host are handed out by
  // Next (retries and deferrals not counted again); past it the host's queued
  // URLs are discarded (FrontierStats::dropped_urls) and new ones refused. 0:
  // no cap. Default: 0.
  uint64_t max_urls_per_host = 0;
  // Idle hosts kept in RAM for what they must not forget (a page count under
  // max_urls_per_host, a robots.txt Crawl-delay, a drop): about 160 bytes
  // each. Past it, half of them go to the scratch store on disk in one batch
  // and come back in one read when their host is seen again, so RAM stays
  // bounded on a web whose hosts never end. REQUIRES: >= 2. Default: 65,536
  // (about 10 MiB).
  uint64_t max_parked_hosts_in_memory = 65536;
  // Revisits (Revisit) get at most this share of the URLs handed out while
  // new URLs wait (in the Sieve or in host queues); when none waits, every
  // due revisit goes. A due revisit held back waits in its due-time queue,
  // so 0 means "revisits only when nothing new waits", 1 "revisits first".
  // The rule is checked as revisits are released into their hosts' queues,
  // where they go to the head (they are due: their host's politeness still
  // spaces them). REQUIRES: 0 <= revisit_share <= 1. Default: 0.5 (equal
  // shares while both wait).
  double revisit_share = 0.5;
  // A URL handed out by Next and not reported Done within this time is put
  // back at the head of its host's queue, its slot freed (counted in
  // FrontierStats::reclaimed; a later Done of it is NotFound): a caller that
  // forgets Done blocks no host forever. Set it above the longest fetch
  // (Scrapy's DOWNLOAD_TIMEOUT), or the URL may be fetched twice. Zero: no
  // lease, a URL stays in flight until Done (the crawler's own loop always
  // reports one, its transfers bounded by the fetcher's timeouts).
  // REQUIRES: >= 0. Default: 0.
  absl::Duration lease_timeout = absl::ZeroDuration();
  // Seed of the back-off jitter generator; the same seed gives the same
  // schedule. Default: 0x5eed.
  uint64_t seed = 0x5eed;
};

// Most hosts `options` keep active at once (URLs queued or in flight): the
// host queue budget over the bytes each active host is counted at
// (host_queue_memory_bytes / 1 KiB; 65,536 by default). Caches kept per host
// (robots.txt rules, DNS answers) are sized from it. O(1).
uint64_t MaxActiveHosts(const FrontierOptions& options);

}  // namespace sieve

#endif  // SIEVE_FRONTIER_FRONTIER_OPTIONS_H_
