// frontier/cluster/crawl_rate.h: CrawlRate, the crawl-wide request rate of a
// crawl shared through Redis (politeness.max_requests_per_second across every
// `sieve crawl --cluster` worker).
//
// The data structure: one Redis string per crawl, sieve:{ID}:rate, holding
// the theoretical arrival time (TAT) of the next request in microseconds of
// Redis's clock (TIME): the generic cell rate algorithm (GCRA; ATM Forum
// Traffic Management 4.0, the "virtual scheduling" form) with no burst. A
// worker takes a slot with one script: if TAT <= now, the slot is taken and
// TAT becomes now + 1/rate; otherwise nothing changes and the script answers
// how long until TAT. So two slots of the crawl are at least 1/rate apart,
// whichever workers take them, and no second of the crawl (any sliding
// second) holds more than `rate` of them (rounded up). A fixed window counted
// by INCR per clock second would let 2x the rate into a second that straddles
// two windows.
//
// Surprises first:
//   - The clock is Redis's, so the workers' clocks need not agree; a request
//     starts a little after its slot (the reply's way back, the loop), so a
//     server may see two starts a few milliseconds closer than 1/rate.
//   - A slot taken and then not used (the URL's robots.txt forbids it) is
//     lost: the cap errs on the slow side.
//   - The key expires a second after its TAT: a crawl that stops leaves
//     nothing behind.
//   - Not thread-safe: one per worker, used under the frontier's mutex.
//
// Example:
//   absl::StatusOr<sieve::cluster::CrawlRate> rate =
//       sieve::cluster::CrawlRate::Open(client, keys, /*per_second=*/5);
//   absl::StatusOr<absl::Duration> wait = rate->TryTake();
//   if (wait.ok() && *wait == absl::ZeroDuration()) { ... hand out a URL ... }
#ifndef SIEVE_FRONTIER_CLUSTER_CRAWL_RATE_H_
#define SIEVE_FRONTIER_CLUSTER_CRAWL_RATE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "frontier/cluster/keys.h"
#include "frontier/cluster/redis_client.h"

namespace sieve::cluster {

class CrawlRate {
 public:
  // Loads the script on `client` (which must outlive the CrawlRate).
  // InvalidArgument unless 0 < per_second <= 10^6; Redis errors as their
  // status.
  static absl::StatusOr<CrawlRate> Open(RedisClient& client,
                                        const ClusterKeys& keys,
                                        double per_second);

  // Takes the crawl's next request slot if it has come (returns zero), or
  // returns how long until it comes (> 0; nothing taken). One round trip.
  absl::StatusOr<absl::Duration> TryTake();

 private:
  CrawlRate() = default;
  RedisClient* client_ = nullptr;
  std::string key_;
  std::string sha_;
  int64_t interval_us_ = 0;
};

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_CRAWL_RATE_H_
