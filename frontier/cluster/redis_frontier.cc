#include "frontier/cluster/redis_frontier.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "filter/key_hash.h"
#include "frontier/cluster/shard_handover.h"
#include "frontier/cluster/worker_stats.h"

namespace sieve::cluster {
namespace {

// How long Add keeps trying to queue a URL through transient errors.
constexpr absl::Duration kAddRetryFor = absl::Seconds(20);

// Errors that pass: the connection (re-opened by the next call), a timeout, a
// lease lost (the shard is dropped at the next renewal), a Redis still
// loading its AOF after a restart.
bool IsTransient(const absl::Status& s) {
  if (absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s)) return true;
  for (const char* word : {"FENCED", "LOADING", "NOSCRIPT", "BUSY"}) {
    if (absl::StrContains(s.message(), word)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::unique_ptr<RedisFrontier>> RedisFrontier::Create(
    RedisFrontierOptions options) {
  if (options.worker_id.empty() ||
      options.worker_id.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(
        "cluster: the worker id must be non-empty and contain no '/'");
  }
  if (options.lease_ttl < absl::Milliseconds(30) || options.refill_count == 0) {
    return absl::InvalidArgumentError(
        "cluster: lease_ttl must be >= 30 ms and refill_count > 0");
  }
  std::unique_ptr<RedisFrontier> f(new RedisFrontier(std::move(options)));
  if (absl::Status s = f->Open(); !s.ok()) return s;
  return f;
}

absl::Status RedisFrontier::Open() {
  absl::StatusOr<ClusterKeys> keys = ClusterKeys::ForCrawl(options_.crawl_id);
  if (!keys.ok()) return keys.status();
  keys_ = std::make_unique<ClusterKeys>(*keys);
  absl::StatusOr<std::unique_ptr<RedisClient>> client =
      RedisClient::Connect(options_.endpoint, options_.client);
  if (!client.ok()) return client.status();
  client_ = *std::move(client);
  absl::StatusOr<uint32_t> shards =
      OpenShardCount(*client_, *keys_, options_.shards);
  if (!shards.ok()) return shards.status();
  absl::StatusOr<RedisBloomFilter> filter =
      RedisBloomFilter::Open(*client_, *keys_, options_.filter, *shards);
  if (!filter.ok()) return filter.status();
  filter_ = std::make_unique<RedisBloomFilter>(*std::move(filter));
  leases_ = std::make_unique<ShardLeases>(*client_, *keys_, options_.worker_id,
                                          *shards, options_.lease_ttl);
  if (absl::Status s = leases_->Init(); !s.ok()) return s;
  queue_ = std::make_unique<ShardQueue>(*client_, *keys_);
  if (absl::Status s = queue_->Init(); !s.ok()) return s;
  return leases_->Heartbeat(absl::Now());
}

RedisFrontier::~RedisFrontier() { (void)Shutdown(); }

absl::Status RedisFrontier::Shutdown() {
  std::lock_guard<std::mutex> lock(mu_);
  if (leases_ == nullptr || stopped_) return absl::OkStatus();
  stopped_ = true;
  absl::Status s;
  // Shards with nothing fetched and unacknowledged: their next owner counts
  // no take-over.
  for (const auto& [shard, state] : shards_) {
    if (state.in_flight == 0 && !AwaitsRecord(shard))
      s.Update(client_
                   ->Command({"SET", keys_->Clean(shard), "1", "PX",
                              std::to_string(absl::ToInt64Milliseconds(
                                  options_.lease_ttl * 10))})
                   .status());
  }
  s.Update(leases_->ReleaseAll());
  s.Update(Publish(absl::Now()));
  s.Update(leases_->Leave());
  s.Update(
      client_->Command({"ZREM", keys_->Load(), leases_->worker_id()}).status());
  shards_.clear();
  return s;
}

void RedisFrontier::Note(const absl::Status& s) {
  if (s.ok()) return;
  last_error_ = s;
  if (!IsTransient(s) && fatal_error_.ok()) fatal_error_ = s;
}

bool RedisFrontier::Add(std::string_view url, std::string_view host,
                        uint32_t depth, std::string_view metadata) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string u(url);
  // Test-and-set and XADD in one script: a worker killed between the two
  // would otherwise leave the URL seen and never queued. Every key it
  // touches is the shard's (one Redis Cluster slot).
  const std::string h(host);
  const std::vector<std::string> fields =
      ShardQueue::EntryFields({u, h, depth, std::string(metadata)});
  // A transient error (connection lost, Redis loading its AOF) is tried
  // again for up to kAddRetryFor; the client reconnects with its back-off.
  // Sending it again is safe: if the lost one ran, the URL is queued and
  // now answers "seen".
  const absl::Time give_up = absl::Now() + kAddRetryFor;
  absl::StatusOr<bool> fresh = filter_->AddAndQueue(u, h, fields);
  while (!fresh.ok() && IsTransient(fresh.status()) && absl::Now() < give_up) {
    Note(fresh.status());
    absl::SleepFor(absl::Milliseconds(100));
    fresh = filter_->AddAndQueue(u, h, fields);
  }
  if (!fresh.ok()) return Lost(fresh.status(), u);
  if (!*fresh) {
    ++counters_.duplicates;
    return false;
  }
  ++counters_.added;
  // A link to a shard of this worker's (most links stay on their page's
  // host): its stream is read at the next Next, not after refill_poll.
  if (auto it = shards_.find(ShardOf(host, leases_->shards()));
      it != shards_.end()) {
    it->second.next_read = absl::InfinitePast();
    it->second.empty_reads = 0;
  }
  return true;
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

absl::Status RedisFrontier::Take(uint32_t shard, absl::Time now) {
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
      client_->Command({"GETDEL", keys_->Clean(shard)});
  if (!clean.ok()) return clean.status();
  if (clean->is_nil()) reclaimed_ += claimed->size();
  return Feed(shard, *std::move(claimed));
}

void RedisFrontier::Drop(uint32_t shard) {
  auto it = shards_.find(shard);
  if (it == shards_.end()) return;
  FrontierStats s = it->second.local->stats();
  counters_.succeeded += s.succeeded;
  counters_.throttled += s.throttled;
  counters_.failed += s.failed;
  counters_.retried += s.retried;
  counters_.given_up += s.given_up;
  shards_.erase(it);
}

absl::Status RedisFrontier::Feed(uint32_t shard,
                                 std::vector<StreamEntry> entries) {
  Shard& s = shards_[shard];
  for (StreamEntry& e : entries) {
    // Already queued or in flight here, or awaiting its record.
    if (s.ids.contains(e.url.url) || unacked_.contains(e.url.url)) continue;
    if (!s.local->Add(e.url.url, e.url.host, e.url.depth, e.url.metadata)) {
      // Finished here before (its acknowledgement failed) or its host is past
      // its page cap: nothing left to do for it.
      if (absl::Status st = Ack(shard, e.id); !st.ok()) return st;
      continue;
    }
    ++s.hosts[e.url.host];
    s.ids.emplace(std::move(e.url.url),
                  Fed{.id = std::move(e.id), .host = std::move(e.url.host)});
  }
  return absl::OkStatus();
}

absl::Status RedisFrontier::Ack(uint32_t shard, const std::string& id) {
  absl::StatusOr<uint64_t> n =
      queue_->Ack(shard, leases_->LeaseValue(shard), {id});
  return n.status();
}

absl::Status RedisFrontier::Upkeep(absl::Time now) {
  if (absl::Status s = leases_->Heartbeat(now); !s.ok()) return s;
  absl::StatusOr<std::vector<uint32_t>> lost = leases_->Renew();
  if (!lost.ok()) return lost.status();
  for (uint32_t shard : *lost) Drop(shard);
  absl::StatusOr<uint32_t> target = leases_->Target(now);
  if (!target.ok()) return target.status();
  // The least loaded: one shard more than the count target (one handed
  // over by a busier worker).
  if (least_loaded_)
    *target =
        std::max<uint32_t>(*target, static_cast<uint32_t>(shards_.size()) + 1);
  const uint32_t n = leases_->shards();
  if (shards_.size() < *target) {
    // Which leases are free now (one round trip), then try those, starting
    // at a place of this worker's own so workers do not race for one shard.
    std::vector<std::vector<std::string>> exists;
    for (uint32_t s = 0; s < n; ++s)
      exists.push_back({"EXISTS", keys_->Lease(s)});
    absl::StatusOr<std::vector<RedisReply>> taken = client_->Pipeline(exists);
    if (!taken.ok()) return taken.status();
    const uint32_t start = static_cast<uint32_t>(
        ReduceToRange(Fingerprint64(options_.worker_id), n));
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
        if (absl::Status st = Take(s, now); !st.ok()) return st;
      }
    }
  }
  if (absl::Status st = Rebalance(*target); !st.ok()) return st;
  absl::StatusOr<FrontierFilterStats> fs = filter_->Stats();
  if (!fs.ok()) return fs.status();
  filter_stats_ = *fs;
  return Publish(now);
}

bool RedisFrontier::AwaitsRecord(uint32_t shard) const {
  for (const auto& [url, u] : unacked_) {
    if (u.shard == shard) return true;
  }
  return false;
}

absl::Status RedisFrontier::Rebalance(uint32_t target) {
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
                    shard.in_flight + (AwaitsRecord(s) ? 1 : 0), s});
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

absl::Status RedisFrontier::Balance(absl::Time now) {
  std::vector<ShardLoad> load;
  bool known = true;
  bool giving = false;
  for (const auto& [s, shard] : shards_) {
    giving = giving || shard.giving;
    if (shard.draining || shard.giving) continue;
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
  // Publish this worker's load; read every worker's and the live set.
  absl::StatusOr<std::vector<RedisReply>> replies = client_->Pipeline(
      {{"ZADD", keys_->Load(), std::to_string(hosts), me},
       {"ZRANGE", keys_->Load(), "0", "-1", "WITHSCORES"},
       {"ZRANGEBYSCORE", keys_->Workers(),
        std::to_string(absl::ToUnixMillis(now - options_.lease_ttl)), "+inf"}});
  if (!replies.ok()) return replies.status();
  for (const RedisReply& r : *replies) {
    if (r.is_error())
      return absl::FailedPreconditionError(absl::StrCat("redis: ", r.str));
  }
  absl::flat_hash_set<std::string> live;
  for (const RedisReply& w : (*replies)[2].elements) live.insert(w.str);
  // The least loaded live worker (ascending scores: the first live one).
  const std::vector<RedisReply>& all = (*replies)[1].elements;
  std::string least;
  uint64_t least_hosts = 0;
  for (size_t i = 0; i + 1 < all.size(); i += 2) {
    if (!live.contains(all[i].str)) continue;
    least = all[i].str;
    least_hosts = static_cast<uint64_t>(std::atoll(all[i + 1].str.c_str()));
    break;
  }
  least_loaded_ = least.empty() || least_hosts >= hosts;
  if (least_loaded_ || giving || !known) return absl::OkStatus();
  std::optional<uint32_t> give = ShardToGive(load, least_hosts);
  if (!give.has_value()) return absl::OkStatus();
  uint64_t given_hosts = 0;
  for (const ShardLoad& l : load) {
    if (l.shard == *give) given_hosts = l.hosts;
  }
  // Counted as the other's until it publishes again, so that no second
  // worker hands it a shard for the same gap.
  absl::StatusOr<RedisReply> r = client_->Command(
      {"ZINCRBY", keys_->Load(), std::to_string(given_hosts), least});
  if (!r.ok()) return r.status();
  shards_[*give].giving = true;
  // Not taken back by this worker before the others' next upkeeps.
  given_[*give] = now + options_.lease_ttl / 3 * 2;
  return absl::OkStatus();
}

absl::Status RedisFrontier::ReleaseIdle() {
  std::vector<uint32_t> idle;
  for (const auto& [s, shard] : shards_) {
    if ((shard.draining || shard.giving) && shard.in_flight == 0 &&
        !AwaitsRecord(s))
      idle.push_back(s);
  }
  for (uint32_t s : idle) {
    if (absl::Status st = ReleaseShard(s); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status RedisFrontier::ReleaseShard(uint32_t shard) {
  // Marked clean while still ours: the next owner counts no take-over (the
  // mark outlives a lease or two, in case no one takes the shard at once).
  absl::StatusOr<RedisReply> marked = client_->Command(
      {"SET", keys_->Clean(shard), "1", "PX",
       std::to_string(absl::ToInt64Milliseconds(options_.lease_ttl * 10))});
  if (!marked.ok()) return marked.status();
  Drop(shard);
  return leases_->Release(shard);
}

absl::Status RedisFrontier::Publish(absl::Time now) {
  WorkerStats w{.worker_id = leases_->worker_id(),
                .started_ms = absl::ToUnixMillis(started_),
                .updated_ms = absl::ToUnixMillis(now),
                .pages = pages_,
                .dispatched = counters_.dispatched,
                .added = counters_.added,
                .duplicates = counters_.duplicates,
                .reclaimed = reclaimed_,
                .shards = static_cast<uint32_t>(leases_->held().size()),
                .commands = client_->commands_sent(),
                .lease_ms = absl::ToInt64Milliseconds(options_.lease_ttl)};
  if (last_publish_ != absl::InfinitePast() && now > last_publish_) {
    w.recent_rate = static_cast<double>(pages_ - last_publish_pages_) /
                    absl::ToDoubleSeconds(now - last_publish_);
  }
  last_publish_ = now;
  last_publish_pages_ = pages_;
  return client_
      ->Command({"HSET", keys_->Stats(), w.worker_id, EncodeWorkerStats(w)})
      .status();
}

void RedisFrontier::AckOrKeep(Unacked entry) {
  absl::Status s = Ack(entry.shard, entry.id);
  Note(s);
  // Fenced: the shard is another's now, who fetches the URL again.
  if (!s.ok() && IsTransient(s) && !absl::StrContains(s.message(), "FENCED"))
    failed_acks_.push_back(std::move(entry));
}

absl::Status RedisFrontier::RetryAcks() {
  std::vector<Unacked> acks = std::move(failed_acks_);
  failed_acks_.clear();
  for (Unacked& entry : acks) {
    if (!leases_->Holds(entry.shard)) continue;
    AckOrKeep(std::move(entry));
  }
  return failed_acks_.empty() ? absl::OkStatus() : last_error_;
}

absl::Status RedisFrontier::Resync() {
  for (auto& [s, shard] : shards_) {
    absl::StatusOr<std::vector<StreamEntry>> mine =
        queue_->Claim(s, leases_->LeaseValue(s), leases_->worker_id());
    if (!mine.ok()) return mine.status();
    if (absl::Status st = Feed(s, *std::move(mine)); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status RedisFrontier::Refill(absl::Time now) {
  // A stream is FIFO: the URLs of a shard's other hosts may wait behind the
  // ones read. While this worker's hosts with work cannot fill its fetch
  // slots, its shards are read further (up to refill_hungry_below each).
  std::vector<ShardLoad> load;
  for (const auto& [s, shard] : shards_) {
    if (!shard.draining && !shard.giving)
      load.push_back({.shard = s, .hosts = shard.hosts.size()});
  }
  const uint32_t per_host = static_cast<uint32_t>(
      std::max(1, options_.politeness.max_in_flight_per_host));
  const uint64_t below = IsHungry(load, options_.fetch_slots, per_host)
                             ? options_.refill_hungry_below
                             : options_.refill_below;
  // Every shard due is read in one round trip: with many shards held, one
  // round trip each would keep the crawl loop waiting in Next.
  std::vector<uint32_t> due;
  std::vector<std::string> leases;
  for (auto& [s, shard] : shards_) {
    if (shard.draining || shard.giving || now < shard.next_read ||
        shard.local->stats().queued >= below)
      continue;
    shard.read = true;
    due.push_back(s);
    leases.push_back(leases_->LeaseValue(s));
  }
  absl::StatusOr<std::vector<absl::StatusOr<std::vector<StreamEntry>>>> got =
      queue_->ReadMany(due, leases, leases_->worker_id(),
                       options_.refill_count);
  if (!got.ok()) return got.status();
  absl::Status first;
  for (size_t i = 0; i < due.size(); ++i) {
    absl::StatusOr<std::vector<StreamEntry>>& entries = (*got)[i];
    if (!entries.ok()) {
      first.Update(entries.status());
      continue;
    }
    // The stream is drained for now: not read again before refill_poll,
    // doubled after each read that found nothing, up to 16 times (a crawl
    // of many shards and few hosts reads its empty ones less).
    Shard& shard = shards_[due[i]];
    if (entries->empty()) {
      shard.empty_reads = std::min(shard.empty_reads + 1, 5);
    } else {
      shard.empty_reads = 0;
    }
    if (entries->size() < options_.refill_count)
      shard.next_read = now + options_.refill_poll *
                                  (1 << std::max(0, shard.empty_reads - 1));
    first.Update(Feed(due[i], *std::move(entries)));
  }
  return first;
}

absl::StatusOr<bool> RedisFrontier::CrawlFinished() {
  if (!unacked_.empty() || !in_flight_.empty() || !failed_acks_.empty())
    return false;
  absl::StatusOr<std::vector<ShardCounts>> counts =
      queue_->Counts(leases_->shards());
  if (!counts.ok()) return counts.status();
  for (const ShardCounts& c : *counts) {
    if (c.entries != 0) return false;
  }
  return true;
}

NextUrl RedisFrontier::Next(absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  NextUrl wait_for_redis{.state = NextUrl::kWait, .wait = options_.idle_poll};
  // The load balance every idle_poll, not every upkeep: a shard handed over
  // reaches its new owner within about two of them.
  if (options_.fetch_slots > 0 && now >= next_balance_) {
    absl::Status s = Balance(now);
    Note(s);
    next_balance_ = now + options_.idle_poll;
    if (!s.ok()) return wait_for_redis;
    // Least loaded with slots to spare: look for a shard let go at once.
    if (least_loaded_ && hungry_) next_upkeep_ = now;
  }
  if (now >= next_upkeep_) {
    absl::Status s = Upkeep(now);
    Note(s);
    next_upkeep_ = now + (s.ok() ? options_.lease_ttl / 3 : options_.idle_poll);
    if (!s.ok()) {
      resync_ = true;  // A claim or read whose reply was lost.
      return wait_for_redis;
    }
  }
  if (!failed_acks_.empty()) {
    if (absl::Status s = RetryAcks(); !s.ok()) return wait_for_redis;
  }
  if (absl::Status s = ReleaseIdle(); !s.ok()) {
    Note(s);
    return wait_for_redis;
  }
  if (resync_) {
    absl::Status s = Resync();
    Note(s);
    if (!s.ok()) return wait_for_redis;
    resync_ = false;
  }
  if (absl::Status s = Refill(now); !s.ok()) {
    Note(s);
    resync_ = true;
    return wait_for_redis;
  }
  std::optional<absl::Duration> wait;
  bool busy = false;
  const size_t count = shards_.size();
  auto it = shards_.lower_bound(cursor_);
  for (size_t i = 0; i < count; ++i, ++it) {
    if (it == shards_.end()) it = shards_.begin();
    if (it->second.draining || it->second.giving) continue;
    if (now < it->second.not_before) {
      wait = std::min(wait.value_or(absl::InfiniteDuration()),
                      it->second.not_before - now);
      continue;
    }
    NextUrl next = it->second.local->Next(now);
    if (next.state == NextUrl::kReady) {
      cursor_ = it->first + 1;
      ++it->second.in_flight;
      in_flight_[next.url.url] = it->first;
      ++counters_.dispatched;
      return next;
    }
    if (next.state == NextUrl::kWait)
      wait = std::min(wait.value_or(absl::InfiniteDuration()), next.wait);
    busy = busy || next.state == NextUrl::kWaitForDone;
  }
  if (wait.has_value()) return {.state = NextUrl::kWait, .wait = *wait};
  if (busy || !in_flight_.empty()) return {.state = NextUrl::kWaitForDone};
  // Nothing here: finished only if no shard has an entry anywhere. Until the
  // next look, wait for the soonest read of a shard's stream.
  NextUrl idle{.state = NextUrl::kWait, .wait = options_.idle_poll};
  for (const auto& [s, shard] : shards_) {
    if (!shard.draining && !shard.giving && shard.next_read > now)
      idle.wait = std::min(idle.wait, shard.next_read - now);
  }
  if (now < next_finish_check_) return idle;
  next_finish_check_ = now + options_.idle_poll;
  absl::StatusOr<bool> finished = CrawlFinished();
  if (!finished.ok()) {
    Note(finished.status());
    return wait_for_redis;
  }
  if (*finished) return {.state = NextUrl::kEmpty};
  // Work is elsewhere (another worker's, or an unowned shard's): look for
  // shards to take soon.
  next_upkeep_ = std::min(next_upkeep_, now + options_.idle_poll);
  return idle;
}

absl::StatusOr<UrlFate> RedisFrontier::Done(std::string_view url,
                                            const FetchOutcome& outcome,
                                            absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string key(url);
  auto flying = in_flight_.find(key);
  if (flying == in_flight_.end())
    return absl::NotFoundError(absl::StrCat("not in flight: ", key));
  const uint32_t s = flying->second;
  in_flight_.erase(flying);
  ++counters_.done;
  auto it = shards_.find(s);
  if (it == shards_.end()) return UrlFate::kFinished;  // Lease lost meanwhile.
  Shard& shard = it->second;
  --shard.in_flight;
  absl::StatusOr<UrlFate> fate = shard.local->Done(url, outcome, now);
  if (!fate.ok() || *fate == UrlFate::kRetryLater) return fate;
  auto id = shard.ids.find(key);
  if (id == shard.ids.end()) return fate;
  Unacked entry{.shard = s, .id = std::move(id->second.id)};
  if (auto h = shard.hosts.find(id->second.host);
      h != shard.hosts.end() && --h->second == 0)
    shard.hosts.erase(h);
  shard.ids.erase(id);
  if (options_.ack_after_record && outcome.kind != FetchOutcome::kNotFetched) {
    unacked_[key] = std::move(entry);
  } else {
    // No record comes for a URL not fetched.
    if (outcome.kind != FetchOutcome::kNotFetched) ++pages_;
    AckOrKeep(std::move(entry));
  }
  return fate;
}

absl::Status RedisFrontier::RecordWritten(std::string_view url) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string key(url);
  auto it = unacked_.find(key);
  if (it == unacked_.end())
    return absl::NotFoundError(absl::StrCat("no record awaited: ", key));
  // After a lost link (Lost), nothing more is acknowledged: this worker's
  // unfinished pages go to another with their links.
  if (!fatal_error_.ok()) return fatal_error_;
  Unacked entry = std::move(it->second);
  unacked_.erase(it);
  ++pages_;
  if (!leases_->Holds(entry.shard)) return absl::OkStatus();
  AckOrKeep(std::move(entry));
  return absl::OkStatus();
}

void RedisFrontier::SetCrawlDelay(std::string_view host, absl::Duration delay) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = shards_.find(ShardOf(host, leases_->shards()));
  if (it != shards_.end()) it->second.local->SetCrawlDelay(host, delay);
}

absl::Status RedisFrontier::Checkpoint(SnapshotWriter& /*snapshot*/) {
  return absl::OkStatus();  // The crawl's state lives in Redis.
}

FrontierStats RedisFrontier::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  FrontierStats out = counters_;
  out.reclaimed = reclaimed_;
  for (const auto& [s, shard] : shards_) {
    FrontierStats l = shard.local->stats();
    out.queued += l.queued;
    out.queued_in_hosts += l.queued_in_hosts + l.queued_in_sieve;
    out.queued_on_disk_hosts += l.queued_on_disk_hosts;
    out.host_queue_bytes += l.host_queue_bytes;
    out.in_flight += l.in_flight;
    out.hosts_active += l.hosts_active;
    out.hosts_known += l.hosts_known;
    out.succeeded += l.succeeded;
    out.throttled += l.throttled;
    out.failed += l.failed;
    out.retried += l.retried;
    out.given_up += l.given_up;
    out.dropped_urls += l.dropped_urls;
    out.crawl_delays_capped += l.crawl_delays_capped;
  }
  return out;
}

FrontierFilterStats RedisFrontier::filter_stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return filter_stats_;
}

absl::Status RedisFrontier::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fatal_error_;
}

absl::Status RedisFrontier::last_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_error_;
}

std::vector<uint32_t> RedisFrontier::held_shards() const {
  std::lock_guard<std::mutex> lock(mu_);
  return leases_->held();
}

uint64_t RedisFrontier::reclaimed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reclaimed_;
}

uint64_t RedisFrontier::redis_commands() const {
  std::lock_guard<std::mutex> lock(mu_);
  return client_->commands_sent();
}

}  // namespace sieve::cluster
