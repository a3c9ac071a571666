// frontier/cluster/redis_errors.h: which Redis errors a worker waits out and
// which stop it. One list, used by RedisFrontier (redis_frontier.h) and its
// acknowledgement ledger (ack_ledger.h).
//
// Example:
//   if (!s.ok() && sieve::cluster::IsTransientRedisError(s)) retry_later();
#ifndef SIEVE_FRONTIER_CLUSTER_REDIS_ERRORS_H_
#define SIEVE_FRONTIER_CLUSTER_REDIS_ERRORS_H_

#include "absl/status/status.h"

namespace sieve::cluster {

// True for errors that pass: the connection (re-opened by the next call), a
// timeout, a lease lost (FENCED: the shard is dropped at the next renewal),
// a Redis still loading its AOF after a restart, a script not loaded yet, a
// Redis Cluster failing over or moving a slot (MOVED, ASK, TRYAGAIN,
// CLUSTERDOWN, MASTERDOWN). Anything else (e.g. out of memory) is fatal.
bool IsTransientRedisError(const absl::Status& s);

// True for a fenced write: the shard's lease is another worker's now.
bool IsFenced(const absl::Status& s);

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_REDIS_ERRORS_H_
