#include "frontier/cluster/shard_owner.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "filter/key_hash.h"
#include "frontier/cluster/shard_handover.h"

namespace sieve::cluster {

ShardOwner::ShardOwner(RedisClient& client, ClusterKeys keys,
                       ShardLeases& leases, ShardQueue& queue,
                       const AckLedger& acks, ShardOwnerOptions options)
    : client_(&client),
      keys_(std::move(keys)),
      leases_(&leases),
      queue_(&queue),
      acks_(&acks),
      options_(std::move(options)) {}

absl::Status ShardOwner::Take(uint32_t shard, absl::Time now,
                              FeedClaimed feed) {
  FrontierOptions local;
  local.sieve.expected_urls = 1 << 16;
  local.sieve.memory_budget_bytes = size_t{1} << 20;
  // Entries arrive already deduplicated by the shared filter; the local Sieve
  // must not drop any on a false positive of its own.
  local.sieve.verify_positives = true;
  local.sieve.work_dir = options_.work_dir;
  local.politeness = options_.politeness;
  local.max_urls_per_host = options_.max_urls_per_host;
  local.host_queue_memory_bytes = size_t{4} << 20;
  absl::StatusOr<std::unique_ptr<Frontier>> frontier = Frontier::Create(local);
  if (!frontier.ok()) return frontier.status();
  shards_[shard].local = *std::move(frontier);
  shards_[shard].not_before = now + options_.politeness.min_delay;
  absl::StatusOr<std::vector<StreamEntry>> claimed =
      queue_->Claim(shard, leases_->LeaseValue(shard), leases_->worker_id());
  if (!claimed.ok()) return claimed.status();
  // Let go with nothing in flight: none of its entries was fetched.
  absl::StatusOr<RedisReply> clean =
      client_->Command({"GETDEL", keys_.Clean(shard)});
  if (!clean.ok()) return clean.status();
  if (clean->is_nil()) reclaimed_ += claimed->size();
  return feed(shard, *std::move(claimed));
}

void ShardOwner::Drop(uint32_t shard) {
  auto it = shards_.find(shard);
  if (it == shards_.end()) return;
  AddFrontierStats(it->second.local->stats(), retired_, /*totals_only=*/true);
  for (FrontierUrl& url : it->second.local->TakeDiscarded())
    retired_discarded_.push_back(std::move(url));
  shards_.erase(it);
}

absl::Status ShardOwner::Upkeep(absl::Time now, FeedClaimed feed) {
  // Renewed first, heartbeat or not: while one Redis Cluster master is down
  // (the crawl-wide keys' perhaps), the leases on the others are kept.
  // A lease Renew reports lost is forgotten there: its shard goes here too,
  // whatever the heartbeat does.
  absl::StatusOr<std::vector<uint32_t>> lost = leases_->Renew();
  if (lost.ok()) {
    for (uint32_t shard : *lost) Drop(shard);
  }
  if (absl::Status s = leases_->Heartbeat(now); !s.ok()) return s;
  if (!lost.ok()) return lost.status();
  absl::StatusOr<uint32_t> target = leases_->Target(now);
  if (!target.ok()) return target.status();
  // The least loaded, or one a busier worker handed a shard: one shard more
  // than the count target.
  const size_t held = shards_.size();
  if (least_loaded_ || now < handed_until_)
    *target =
        std::max<uint32_t>(*target, static_cast<uint32_t>(shards_.size()) + 1);
  const uint32_t n = leases_->shards();
  if (shards_.size() < *target) {
    // Which leases are free now (one round trip), then try those, starting
    // at a place of this worker's own so workers do not race for one shard.
    std::vector<std::vector<std::string>> exists;
    for (uint32_t s = 0; s < n; ++s)
      exists.push_back({"EXISTS", keys_.Lease(s)});
    absl::StatusOr<std::vector<RedisReply>> taken = client_->Pipeline(exists);
    if (!taken.ok()) return taken.status();
    const uint32_t start = static_cast<uint32_t>(
        ReduceToRange(Fingerprint64(leases_->worker_id()), n));
    for (uint32_t i = 0; i < n && shards_.size() < *target; ++i) {
      const uint32_t s = (start + i) % n;
      if ((*taken)[s].integer != 0 || leases_->Holds(s)) continue;
      // Handed to a less loaded worker a moment ago: that one takes it.
      if (auto g = given_.find(s); g != given_.end()) {
        if (now < g->second) continue;
        given_.erase(g);
      }
      absl::StatusOr<bool> got = leases_->Acquire(s);
      if (!got.ok()) return got.status();
      if (*got) {
        if (absl::Status st = Take(s, now, feed); !st.ok()) return st;
      }
    }
  }
  target_ = *target;
  if (shards_.size() > held) handed_until_ = absl::InfinitePast();
  return Rebalance(*target);
}

absl::Status ShardOwner::Rebalance(uint32_t target) {
  // Above the target: shards stop handing URLs out and are let go once
  // nothing of theirs is in flight or awaits its record; first those whose
  // hosts have no work, then those with least in flight. With fetch_slots
  // (load balance on), one shard with hosts above the target is kept: it may
  // have been handed over by a busier worker (Balance).
  struct Load {
    bool has_hosts;
    uint64_t busy;
    uint32_t shard;
    bool operator<(const Load& o) const {
      return std::tie(has_hosts, busy, shard) <
             std::tie(o.has_hosts, o.busy, o.shard);
    }
  };
  std::vector<Load> load;
  for (auto& [s, shard] : shards_) {
    shard.draining = false;
    load.push_back({shard.hosts.size() > 0,
                    shard.in_flight + (acks_->AwaitsRecordOf(s) ? 1 : 0), s});
  }
  if (shards_.size() <= target) return absl::OkStatus();
  std::sort(load.begin(), load.end());
  size_t surplus = shards_.size() - target;
  if (options_.fetch_slots > 0 && load[surplus - 1].has_hosts) --surplus;
  for (const Load& l : load) {
    if (surplus == 0) break;
    --surplus;
    if (l.busy == 0) {
      if (absl::Status st = ReleaseShard(l.shard); !st.ok()) return st;
    } else {
      shards_[l.shard].draining = true;
    }
  }
  return absl::OkStatus();
}

absl::Status ShardOwner::Balance(absl::Time now) {
  std::vector<ShardLoad> load;
  bool known = true;
  bool giving = false;
  for (const auto& [s, shard] : shards_) {
    giving = giving || shard.giving;
    if (!shard.handing_out()) continue;
    // A shard never read yet says nothing about its hosts.
    known = known && shard.read;
    load.push_back({.shard = s, .hosts = shard.hosts.size()});
  }
  least_loaded_ = false;
  const uint32_t per_host = static_cast<uint32_t>(
      std::max(1, options_.politeness.max_in_flight_per_host));
  hungry_ = known && IsHungry(load, options_.fetch_slots, per_host);
  if (options_.fetch_slots == 0) return absl::OkStatus();
  const uint64_t hosts = HostsWithWork(load);
  const std::string& me = leases_->worker_id();
  // Publish this worker's load; read every worker's and the live set. The
  // score before this ZADD is above what it last published if a busier
  // worker handed it a shard since (it added the shard's hosts).
  absl::StatusOr<std::vector<RedisReply>> replies = client_->Pipeline(
      {{"ZSCORE", keys_.Load(), me},
       {"ZADD", keys_.Load(), std::to_string(hosts), me},
       {"ZRANGE", keys_.Load(), "0", "-1", "WITHSCORES"},
       {"ZRANGEBYSCORE", keys_.Workers(),
        std::to_string(absl::ToUnixMillis(now - leases_->ttl())), "+inf"}});
  if (!replies.ok()) return replies.status();
  for (const RedisReply& r : *replies) {
    if (r.is_error())
      return absl::FailedPreconditionError(absl::StrCat("redis: ", r.str));
  }
  const RedisReply& before = (*replies)[0];
  if (!before.is_nil() &&
      static_cast<uint64_t>(std::atoll(before.str.c_str())) > published_)
    handed_until_ = now + leases_->ttl() / 3;
  published_ = hosts;
  absl::flat_hash_set<std::string> live;
  for (const RedisReply& w : (*replies)[3].elements) live.insert(w.str);
  // The least loaded live worker (ascending scores: the first live one).
  const std::vector<RedisReply>& all = (*replies)[2].elements;
  std::string least;
  uint64_t least_hosts = 0;
  std::vector<std::string> gone = {"ZREM", keys_.Load()};
  for (size_t i = 0; i + 1 < all.size(); i += 2) {
    if (!live.contains(all[i].str)) {
      gone.push_back(all[i].str);  // Stopped dead: its load is stale.
    } else if (least.empty()) {
      least = all[i].str;
      least_hosts = static_cast<uint64_t>(std::atoll(all[i + 1].str.c_str()));
    }
  }
  if (gone.size() > 2) {
    absl::StatusOr<RedisReply> r = client_->Command(gone);
    if (!r.ok()) return r.status();
  }
  least_loaded_ = least.empty() || least_hosts >= hosts;
  if (least_loaded_ || giving || !known) return absl::OkStatus();
  // Above the shard target (Rebalance kept a shard with hosts for this), any
  // host counts as waiting: the shard goes to the worker short of one.
  const uint64_t hosts_at_once =
      shards_.size() > target_ ? 0 : options_.fetch_slots / per_host;
  std::optional<uint32_t> give = ShardToGive(load, least_hosts, hosts_at_once);
  if (!give.has_value()) return absl::OkStatus();
  uint64_t given_hosts = 0;
  for (const ShardLoad& l : load) {
    if (l.shard == *give) given_hosts = l.hosts;
  }
  // Counted as the other's until it publishes again, so that no second
  // worker hands it a shard for the same gap.
  absl::StatusOr<RedisReply> r = client_->Command(
      {"ZINCRBY", keys_.Load(), std::to_string(given_hosts), least});
  if (!r.ok()) return r.status();
  shards_[*give].giving = true;
  // Not taken back by this worker before the others' next upkeeps.
  given_[*give] = now + leases_->ttl() / 3 * 2;
  return absl::OkStatus();
}

absl::Status ShardOwner::ReleaseIdle() {
  std::vector<uint32_t> idle;
  for (const auto& [s, shard] : shards_) {
    if (!shard.handing_out() && shard.in_flight == 0 &&
        !acks_->AwaitsRecordOf(s))
      idle.push_back(s);
  }
  for (uint32_t s : idle) {
    if (absl::Status st = ReleaseShard(s); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status ShardOwner::ReleaseShard(uint32_t shard) {
  if (absl::Status st = MarkClean(shard); !st.ok()) return st;
  Drop(shard);
  return leases_->Release(shard);
}

absl::Status ShardOwner::MarkClean(uint32_t shard) {
  return client_
      ->Command(
          {"SET", keys_.Clean(shard), "1", "PX",
           std::to_string(absl::ToInt64Milliseconds(leases_->ttl() * 10))})
      .status();
}

absl::Status ShardOwner::ReleaseAll() {
  absl::Status s;
  // Shards with nothing fetched and unacknowledged: their next owner counts
  // no take-over.
  for (const auto& [shard, state] : shards_) {
    if (state.in_flight == 0 && !acks_->AwaitsRecordOf(shard))
      s.Update(MarkClean(shard));
  }
  s.Update(leases_->ReleaseAll());
  shards_.clear();
  return s;
}

absl::Status ShardOwner::Leave() {
  absl::Status s = leases_->Leave();
  s.Update(
      client_->Command({"ZREM", keys_.Load(), leases_->worker_id()}).status());
  return s;
}

FrontierStats ShardOwner::LocalStats() const {
  FrontierStats out = retired_;
  for (const auto& [s, shard] : shards_) {
    AddFrontierStats(shard.local->stats(), out);
  }
  return out;
}

std::vector<FrontierUrl> ShardOwner::TakeDiscarded() {
  std::vector<FrontierUrl> out = std::exchange(retired_discarded_, {});
  for (auto& [s, shard] : shards_) {
    std::vector<FrontierUrl> more = shard.local->TakeDiscarded();
    out.insert(out.end(), std::make_move_iterator(more.begin()),
               std::make_move_iterator(more.end()));
  }
  return out;
}

}  // namespace sieve::cluster
