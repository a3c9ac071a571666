#include "frontier/cluster/redis_frontier.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "frontier/cluster/crawl_settings.h"
#include "frontier/cluster/redis_errors.h"
#include "frontier/cluster/worker_stats.h"

namespace sieve::cluster {

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
  // Each call tries a broken connection once: waiting for Redis to come
  // back is Next's (it answers kWait) and AddMany's (outside any lock), never
  // a sleep under the mutex.
  RedisClientOptions once = options_.client;
  once.reconnect_deadline = absl::ZeroDuration();
  absl::StatusOr<std::unique_ptr<RedisClient>> client =
      RedisClient::Connect(options_.endpoint, once);
  if (!client.ok()) return client.status();
  client_ = *std::move(client);
  absl::StatusOr<std::unique_ptr<RedisClient>> add_client =
      RedisClient::Connect(options_.endpoint, once);
  if (!add_client.ok()) return add_client.status();
  add_client_ = *std::move(add_client);
  absl::StatusOr<uint32_t> shards =
      OpenShardCount(*client_, *keys_, options_.shards);
  if (!shards.ok()) return shards.status();
  if (absl::Status s =
          CheckCrawlSettings(*client_, *keys_, options_.shared_settings);
      !s.ok())
    return s;
  absl::StatusOr<RedisBloomFilter> filter =
      RedisBloomFilter::Open(*client_, *keys_, options_.filter, *shards);
  if (!filter.ok()) return filter.status();
  filter_ = std::make_unique<RedisBloomFilter>(*std::move(filter));
  add_filter_ = std::make_unique<RedisBloomFilter>(*filter_);
  if (absl::Status s = add_filter_->UseClient(*add_client_); !s.ok()) return s;
  leases_ = std::make_unique<ShardLeases>(*client_, *keys_, options_.worker_id,
                                          *shards, options_.lease_ttl);
  queue_ = std::make_unique<ShardQueue>(*client_, *keys_);
  if (options_.max_requests_per_second > 0) {
    absl::StatusOr<CrawlRate> rate =
        CrawlRate::Open(*client_, *keys_, options_.max_requests_per_second);
    if (!rate.ok()) return rate.status();
    rate_ = *std::move(rate);
  }
  acks_ = std::make_unique<AckLedger>(*queue_, *leases_);
  owner_ = std::make_unique<ShardOwner>(
      *client_, *keys_, *leases_, *queue_, *acks_,
      ShardOwnerOptions{.politeness = options_.politeness,
                        .max_urls_per_host = options_.max_urls_per_host,
                        .fetch_slots = options_.fetch_slots,
                        .work_dir = options_.work_dir});
  if (absl::Status s = leases_->Init(); !s.ok()) return s;
  if (absl::Status s = queue_->Init(); !s.ok()) return s;
  return leases_->Heartbeat(absl::Now());
}

RedisFrontier::~RedisFrontier() { (void)Shutdown(); }

absl::Status RedisFrontier::Shutdown() {
  std::lock_guard<std::mutex> lock(mu_);
  if (leases_ == nullptr || stopped_) return absl::OkStatus();
  stopped_ = true;
  absl::Status s = owner_->ReleaseAll();
  s.Update(Publish(absl::Now()));
  s.Update(owner_->Leave());
  return s;
}

void RedisFrontier::Note(const absl::Status& s) {
  if (s.ok()) return;
  last_error_ = s;
  if (!IsTransientRedisError(s) && fatal_error_.ok()) fatal_error_ = s;
}

std::vector<FrontierUrl> RedisFrontier::TakeDiscarded() {
  std::lock_guard<std::mutex> lock(mu_);
  return owner_->TakeDiscarded();
}

absl::StatusOr<bool> RedisFrontier::CrawlFinished() {
  if (!acks_->empty() || !in_flight_.empty()) return false;
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
    absl::Status s = owner_->Balance(now);
    Note(s);
    next_balance_ = now + options_.idle_poll;
    if (!s.ok()) return wait_for_redis;
    // Least loaded with slots to spare: look for a shard let go at once.
    // Handed a shard: take it now, not at the next upkeep (a third of the
    // lease later), while its hosts wait unowned.
    if (owner_->WantsShard(now)) next_upkeep_ = now;
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
  if (acks_->has_kept()) {
    Note(acks_->Retry());
    if (acks_->has_kept()) return wait_for_redis;
  }
  if (absl::Status s = owner_->ReleaseIdle(); !s.ok()) {
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
  // The URL handed out is the one queued first, crawl-wide, of those this
  // worker's shards may fetch now: the stream ids of one Redis order them by
  // when they were queued. This keeps a worker breadth-first across all its
  // hosts, as one process's Frontier is; taking shards in turn instead let
  // hosts of some shards run ahead and the crawl end on the others', one
  // request at a time (docs/cluster.md, "The tail").
  std::optional<absl::Duration> wait;
  bool busy = false;
  OwnedShard* oldest = nullptr;
  uint32_t oldest_shard = 0;
  StreamOrder oldest_order;
  for (auto& [s, shard] : owner_->shards()) {
    if (!shard.handing_out()) continue;
    if (now < shard.not_before) {
      wait = std::min(wait.value_or(absl::InfiniteDuration()),
                      shard.not_before - now);
      continue;
    }
    NextUrl peek = shard.local->PeekNext(now);
    if (peek.state == NextUrl::kReady) {
      auto fed = shard.ids.find(peek.url.url);
      const StreamOrder order =
          fed == shard.ids.end() ? ParseStreamOrder("") : fed->second.order;
      if (oldest == nullptr || order < oldest_order) {
        oldest = &shard;
        oldest_shard = s;
        oldest_order = order;
      }
    } else if (peek.state == NextUrl::kWait) {
      wait = std::min(wait.value_or(absl::InfiniteDuration()), peek.wait);
    }
    busy = busy || peek.state == NextUrl::kWaitForDone;
  }
  if (oldest != nullptr && rate_.has_value()) {
    // The crawl-wide cap: the slot is the crawl's, whichever worker takes it.
    absl::StatusOr<absl::Duration> until = rate_->TryTake();
    if (!until.ok()) {
      Note(until.status());
      return wait_for_redis;
    }
    if (*until > absl::ZeroDuration()) {
      return {.state = NextUrl::kWait, .wait = *until};
    }
  }
  if (oldest != nullptr) {
    NextUrl next = oldest->local->Next(now);  // The URL peeked.
    if (next.state == NextUrl::kReady) {
      ++oldest->in_flight;
      in_flight_[next.url.url] = oldest_shard;
      ++counters_.dispatched;
      // Its host's last page: the rest of its URLs here were discarded.
      if (options_.max_urls_per_host > 0 &&
          oldest->local->IsDropped(next.url.host))
        FinishDroppedHost(oldest_shard, next.url.host);
      return next;
    }
    busy = true;
  }
  if (wait.has_value()) return {.state = NextUrl::kWait, .wait = *wait};
  if (busy || !in_flight_.empty()) return {.state = NextUrl::kWaitForDone};
  // Nothing here: finished only if no shard has an entry anywhere. Until the
  // next look, wait for the soonest read of a shard's stream.
  NextUrl idle{.state = NextUrl::kWait, .wait = options_.idle_poll};
  for (const auto& [s, shard] : owner_->shards()) {
    if (shard.handing_out() && shard.next_read > now)
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

void RedisFrontier::FinishDroppedHost(uint32_t s, const std::string& host) {
  OwnedShard& shard = owner_->shards().at(s);
  std::vector<AckLedger::Entry> dropped;
  for (auto it = shard.ids.begin(); it != shard.ids.end();) {
    if (it->second.host == host && !in_flight_.contains(it->first)) {
      dropped.push_back({.shard = s, .id = std::move(it->second.id)});
      shard.ids.erase(it++);
    } else {
      ++it;
    }
  }
  if (auto h = shard.hosts.find(host); h != shard.hosts.end()) {
    h->second -= std::min<uint32_t>(h->second, dropped.size());
    if (h->second == 0) shard.hosts.erase(h);
  }
  // Not fetched: no record comes for them.
  for (AckLedger::Entry& entry : dropped)
    Note(acks_->AckOrKeep(std::move(entry)));
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
  auto it = owner_->shards().find(s);
  if (it == owner_->shards().end())
    return UrlFate::kFinished;  // Lease lost meanwhile.
  OwnedShard& shard = it->second;
  --shard.in_flight;
  absl::StatusOr<UrlFate> fate = shard.local->Done(url, outcome, now);
  if (!fate.ok() || *fate == UrlFate::kRetryLater) return fate;
  auto id = shard.ids.find(key);
  if (id == shard.ids.end()) return fate;
  AckLedger::Entry entry{.shard = s, .id = std::move(id->second.id)};
  if (auto h = shard.hosts.find(id->second.host);
      h != shard.hosts.end() && --h->second == 0)
    shard.hosts.erase(h);
  shard.ids.erase(id);
  if (options_.ack_after_record && outcome.kind != FetchOutcome::kNotFetched) {
    acks_->AwaitRecord(key, std::move(entry));
  } else {
    // No record comes for a URL not fetched.
    if (outcome.kind != FetchOutcome::kNotFetched) ++pages_;
    Note(acks_->AckOrKeep(std::move(entry)));
  }
  return fate;
}

absl::Status RedisFrontier::RecordWritten(std::string_view url) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!acks_->AwaitsRecord(url))
    return absl::NotFoundError(
        absl::StrCat("no record awaited: ", std::string(url)));
  // After a lost link (Lost), nothing more is acknowledged: this worker's
  // unfinished pages go to another with their links.
  if (!fatal_error_.ok()) return fatal_error_;
  std::optional<AckLedger::Entry> entry = acks_->TakeAwaiting(url);
  ++pages_;
  if (!leases_->Holds(entry->shard)) return absl::OkStatus();
  Note(acks_->AckOrKeep(*std::move(entry)));
  return absl::OkStatus();
}

void RedisFrontier::SetCrawlDelay(std::string_view host, absl::Duration delay) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = owner_->shards().find(ShardOf(host, leases_->shards()));
  if (it != owner_->shards().end())
    it->second.local->SetCrawlDelay(host, delay);
}

absl::Status RedisFrontier::Checkpoint(SnapshotWriter& /*snapshot*/) {
  return absl::OkStatus();  // The crawl's state lives in Redis.
}

FrontierStats RedisFrontier::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  FrontierStats out = owner_->LocalStats();
  // A shard's frontier sees these too, but only while the shard is here.
  out.added = counters_.added;
  out.duplicates = counters_.duplicates;
  out.dispatched = counters_.dispatched;
  out.done = counters_.done;
  out.reclaimed = owner_->reclaimed();
  // Adds refused here, before Redis was asked.
  out.refused_urls += counters_.refused_urls;
  out.dropped_urls += counters_.refused_urls;
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
  return owner_->reclaimed();
}

uint64_t RedisFrontier::redis_commands() const {
  std::lock_guard<std::mutex> lock(mu_);
  return client_->commands_sent();
}

absl::Status RedisFrontier::Upkeep(absl::Time now) {
  if (absl::Status s = owner_->Upkeep(
          now,
          [this](uint32_t shard, std::vector<StreamEntry> claimed) {
            return Feed(shard, std::move(claimed));
          });
      !s.ok())
    return s;
  absl::StatusOr<FrontierFilterStats> fs = filter_->Stats();
  if (!fs.ok()) return fs.status();
  filter_stats_ = *fs;
  return Publish(now);
}

absl::Status RedisFrontier::Publish(absl::Time now) {
  WorkerStats w{.worker_id = leases_->worker_id(),
                .started_ms = absl::ToUnixMillis(started_),
                .updated_ms = absl::ToUnixMillis(now),
                .pages = pages_,
                .dispatched = counters_.dispatched,
                .added = counters_.added,
                .duplicates = counters_.duplicates,
                .reclaimed = owner_->reclaimed(),
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

}  // namespace sieve::cluster
