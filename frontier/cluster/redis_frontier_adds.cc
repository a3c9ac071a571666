// How URLs join a crawl shared through Redis: RedisFrontier's Add and AddMany
// (test-and-set in the shared filter and XADD to the host's shard's stream,
// one script per URL, one pipelined round trip per batch, on a connection of
// their own; transient errors tried again holding no lock) and Lost (a URL
// that could not be queued stops the worker). Taking and letting go of shards
// is ShardOwner's (frontier/cluster/shard_owner.h); reading the shards'
// streams is in frontier/cluster/redis_frontier_refill.cc; handing URLs out
// and finishing them in frontier/cluster/redis_frontier.cc.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "frontier/cluster/redis_errors.h"
#include "frontier/cluster/redis_frontier.h"

namespace sieve::cluster {
namespace {

// How long Add keeps trying to queue a URL through transient errors.
constexpr absl::Duration kAddRetryFor = absl::Seconds(20);

}  // namespace

bool RedisFrontier::Add(std::string_view url, std::string_view host,
                        uint32_t depth, std::string_view metadata) {
  const FrontierAdd add{
      .url = url, .host = host, .depth = depth, .metadata = metadata};
  bool queued = false;
  AddMany(std::span<const FrontierAdd>(&add, 1), std::span<bool>(&queued, 1));
  return queued;
}

void RedisFrontier::AddMany(std::span<const FrontierAdd> urls,
                            std::span<bool> queued) {
  std::fill(queued.begin(), queued.end(), false);
  if (urls.empty()) return;
  // A URL of a host of this worker's past its page cap: refused without a
  // call (a host of another worker's shard goes to Redis; that worker
  // discards it when it reads it).
  std::vector<bool> refused(urls.size(), false);
  size_t kept = urls.size();
  if (options_.max_urls_per_host > 0) {
    std::lock_guard<std::mutex> lock(mu_);
    std::map<uint32_t, OwnedShard>& shards = owner_->shards();
    for (size_t i = 0; i < urls.size(); ++i) {
      auto it = shards.find(ShardOf(urls[i].host, leases_->shards()));
      if (it != shards.end() && it->second.local->IsDropped(urls[i].host)) {
        it->second.local->NoteRefused(urls[i]);  // Its skipped record.
        refused[i] = true;
        --kept;
        ++counters_.refused_urls;
      }
    }
  }
  if (kept == 0) return;
  // Test-and-set and XADD in one script per URL, all of them in one round
  // trip: a worker killed between the two would otherwise leave the URL seen
  // and never queued. Every key a script touches is its URL's shard's (one
  // Redis Cluster slot).
  std::vector<std::string> u, h;
  std::vector<std::vector<std::string>> fields;
  std::vector<size_t> at;  // Position in `urls` of each URL sent.
  for (size_t i = 0; i < urls.size(); ++i) {
    if (refused[i]) continue;
    const FrontierAdd& add = urls[i];
    at.push_back(i);
    // The seen-set tests the dedup key when there is one (Scrapy's request
    // fingerprint), else the URL; the entry carries the URL.
    u.emplace_back(add.dedup_key.empty() ? add.url : add.dedup_key);
    h.emplace_back(add.host);
    fields.push_back(
        ShardQueue::EntryFields({std::string(add.url), h.back(), add.depth,
                                 std::string(add.metadata)}));
  }
  // A transient error (connection lost, Redis loading its AOF) is tried
  // again for up to kAddRetryFor, 100 ms apart, holding no lock while it
  // waits: Next and Done go on (they answer kWait while Redis is away).
  // Sending the batch again is safe: a URL the lost one queued now answers
  // "seen".
  const absl::Time give_up = absl::Now() + kAddRetryFor;
  absl::StatusOr<std::vector<bool>> fresh;
  for (;;) {
    {
      std::lock_guard<std::mutex> add_lock(add_mu_);
      fresh = add_filter_->AddAndQueueMany(u, h, fields);
    }
    if (fresh.ok() || !IsTransientRedisError(fresh.status()) ||
        absl::Now() >= give_up)
      break;
    {
      std::lock_guard<std::mutex> lock(mu_);
      Note(fresh.status());
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!fresh.ok()) {
    for (size_t i = 0; i < u.size(); ++i)
      Lost(fresh.status(), std::string(urls[at[i]].url));
    return;
  }
  for (size_t i = 0; i < u.size(); ++i) {
    queued[at[i]] = (*fresh)[i];
    if (!(*fresh)[i]) {
      ++counters_.duplicates;
      continue;
    }
    ++counters_.added;
    // A link to a shard of this worker's (most links stay on their page's
    // host): its stream is read at the next Next, not after refill_poll.
    if (auto it = owner_->shards().find(ShardOf(h[i], leases_->shards()));
        it != owner_->shards().end()) {
      it->second.next_read = absl::InfinitePast();
      it->second.empty_reads = 0;
    }
  }
}

bool RedisFrontier::Lost(const absl::Status& s, const std::string& url) {
  // The link is not queued. Its page is not acknowledged from now on
  // (RecordWritten keeps it), so another worker fetches the page again after
  // this one stops, and finds the link again.
  Note(s);
  if (fatal_error_.ok())
    fatal_error_ = absl::UnavailableError(
        absl::StrCat("cluster: could not queue ", url, " (", s.message(),
                     "); stopping this worker, its unfinished pages go to "
                     "another"));
  return false;
}

}  // namespace sieve::cluster
