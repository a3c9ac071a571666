// frontier/cluster/crawl_settings.h: the settings every worker of a crawl
// shared through Redis must agree on, stored once in the crawl's meta hash
// (field "settings" of sieve:{ID}:meta).
//
// The library does not read them: they are the caller's text, one "key =
// value" a line (for `sieve crawl`, the URL normalisation and the politeness
// key, which decide a URL's normal form and its host key: a worker keying
// hosts otherwise would put one host in two shards, fetched by two workers at
// once, and let its URLs past the seen-set in two spellings).
//
// Example:
//   absl::Status s = sieve::cluster::CheckCrawlSettings(
//       client, keys, "politeness.key = \"ip\"\n");
//   // FailedPrecondition if the crawl was started with another key.
#ifndef SIEVE_FRONTIER_CLUSTER_CRAWL_SETTINGS_H_
#define SIEVE_FRONTIER_CLUSTER_CRAWL_SETTINGS_H_

#include <string_view>

#include "absl/status/status.h"
#include "frontier/cluster/keys.h"
#include "frontier/cluster/redis_client.h"

namespace sieve::cluster {

// Stores `settings` as the crawl's unless some are stored (the first to ask
// wins), then compares: OK if the stored text equals `settings`,
// FailedPrecondition naming the lines that differ otherwise. Empty `settings`:
// OK, nothing stored or compared. One round trip.
absl::Status CheckCrawlSettings(RedisClient& client, const ClusterKeys& keys,
                                std::string_view settings);

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_CRAWL_SETTINGS_H_
