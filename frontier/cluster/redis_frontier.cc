#include "frontier/cluster/redis_frontier.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "filter/key_hash.h"

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
  absl::StatusOr<std::unique_ptr<RedisClient>> client =
      RedisClient::Connect(options_.endpoint, options_.client);
  if (!client.ok()) return client.status();
  client_ = *std::move(client);
  absl::StatusOr<uint32_t> shards =
      OpenShardCount(*client_, *keys_, options_.shards);
  if (!shards.ok()) return shards.status();
  absl::StatusOr<RedisBloomFilter> filter =
      RedisBloomFilter::Open(*client_, *keys_, options_.filter);
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
  if (leases_ == nullptr) return absl::OkStatus();
  absl::Status s = leases_->ReleaseAll();
  s.Update(leases_->Leave());
  shards_.clear();
  return s;
}

void RedisFrontier::Note(const absl::Status& s) {
  if (!s.ok()) last_error_ = s;
}

bool RedisFrontier::Add(std::string_view url, std::string_view host,
                        uint32_t depth, std::string_view metadata) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string u(url);
  absl::StatusOr<std::vector<bool>> fresh =
      filter_->AddMany(std::span<const std::string>(&u, 1));
  if (!fresh.ok()) {
    Note(fresh.status());
    return false;
  }
  if (!(*fresh)[0]) {
    ++counters_.duplicates;
    return false;
  }
  QueuedUrl q{.shard = ShardOf(host, leases_->shards()),
              .url = {u, std::string(host), depth, std::string(metadata)}};
  if (absl::Status s = queue_->Push({q}); !s.ok()) {
    Note(s);
    return false;
  }
  ++counters_.added;
  return true;
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
  reclaimed_ += claimed->size();
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
    if (s.ids.contains(e.url.url)) continue;  // Already queued here.
    if (!s.local->Add(e.url.url, e.url.host, e.url.depth, e.url.metadata)) {
      // Finished here before (its acknowledgement failed) or its host is past
      // its page cap: nothing left to do for it.
      if (absl::Status st = Ack(shard, e.id); !st.ok()) return st;
      continue;
    }
    s.ids.emplace(std::move(e.url.url), std::move(e.id));
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
      absl::StatusOr<bool> got = leases_->Acquire(s);
      if (!got.ok()) return got.status();
      if (*got) {
        if (absl::Status st = Take(s, now); !st.ok()) return st;
      }
    }
  } else if (shards_.size() > *target) {
    // Give up idle shards above the target (their queued URLs stay in Redis).
    std::vector<uint32_t> idle;
    for (const auto& [s, shard] : shards_) {
      if (shard.in_flight == 0) idle.push_back(s);
    }
    for (uint32_t s : idle) {
      if (shards_.size() <= *target) break;
      bool waiting = false;
      for (const auto& [url, u] : unacked_) waiting = waiting || u.shard == s;
      if (waiting) continue;
      Drop(s);
      if (absl::Status st = leases_->Release(s); !st.ok()) return st;
    }
  }
  absl::StatusOr<FrontierFilterStats> fs = filter_->Stats();
  if (!fs.ok()) return fs.status();
  filter_stats_ = *fs;
  return absl::OkStatus();
}

absl::Status RedisFrontier::Refill() {
  for (auto& [s, shard] : shards_) {
    if (shard.local->stats().queued >= options_.refill_below) continue;
    absl::StatusOr<std::vector<StreamEntry>> got = queue_->Read(
        s, leases_->LeaseValue(s), leases_->worker_id(), options_.refill_count);
    if (!got.ok()) return got.status();
    if (absl::Status st = Feed(s, *std::move(got)); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> RedisFrontier::CrawlFinished() {
  if (!unacked_.empty() || !in_flight_.empty()) return false;
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
  if (now >= next_upkeep_) {
    absl::Status s = Upkeep(now);
    Note(s);
    next_upkeep_ = now + (s.ok() ? options_.lease_ttl / 3 : options_.idle_poll);
    if (!s.ok()) return wait_for_redis;
  }
  if (absl::Status s = Refill(); !s.ok()) {
    Note(s);
    return wait_for_redis;
  }
  std::optional<absl::Duration> wait;
  bool busy = false;
  const size_t count = shards_.size();
  auto it = shards_.lower_bound(cursor_);
  for (size_t i = 0; i < count; ++i, ++it) {
    if (it == shards_.end()) it = shards_.begin();
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
  // Nothing here: finished only if no shard has an entry anywhere.
  if (now < next_finish_check_) return wait_for_redis;
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
  return wait_for_redis;
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
  Unacked entry{.shard = s, .id = std::move(id->second)};
  shard.ids.erase(id);
  if (options_.ack_after_record) {
    unacked_[key] = std::move(entry);
  } else {
    Note(Ack(entry.shard, entry.id));
  }
  return fate;
}

absl::Status RedisFrontier::RecordWritten(std::string_view url) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string key(url);
  auto it = unacked_.find(key);
  if (it == unacked_.end())
    return absl::NotFoundError(absl::StrCat("no record awaited: ", key));
  Unacked entry = std::move(it->second);
  unacked_.erase(it);
  if (!leases_->Holds(entry.shard)) return absl::OkStatus();
  return Ack(entry.shard, entry.id);
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
