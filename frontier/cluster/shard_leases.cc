#include "frontier/cluster/shard_leases.h"

#include <charconv>

#include "absl/strings/str_cat.h"
#include "filter/key_hash.h"

namespace sieve::cluster {
namespace {

// KEYS[1] lease; ARGV[1] our value, ARGV[2] ttl ms. 1 if renewed.
constexpr char kRenewScript[] = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
)lua";

// KEYS[1] lease; ARGV[1] our value. 1 if released.
constexpr char kReleaseScript[] = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
)lua";

constexpr char kShardCountScript[] = R"lua(
redis.call('HSETNX', KEYS[1], 'shards', ARGV[1])
return redis.call('HGET', KEYS[1], 'shards')
)lua";

}  // namespace

uint32_t ShardOf(std::string_view host, uint32_t shards) {
  return static_cast<uint32_t>(ReduceToRange(Fingerprint64(host), shards));
}

absl::StatusOr<uint32_t> OpenShardCount(RedisClient& client,
                                        const ClusterKeys& keys,
                                        uint32_t shards) {
  if (shards == 0)
    return absl::InvalidArgumentError("cluster: the shard count must be >= 1");
  absl::StatusOr<std::string> sha = client.RegisterScript(kShardCountScript);
  if (!sha.ok()) return sha.status();
  absl::StatusOr<RedisReply> stored = client.Command(
      {"EVALSHA", *sha, "1", keys.Meta(), std::to_string(shards)});
  if (!stored.ok()) return stored.status();
  uint32_t n = 0;
  const std::string& s = stored->str;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size() || n == 0)
    return absl::DataLossError(
        absl::StrCat("cluster: bad shard count \"", s, "\" in ", keys.Meta()));
  return n;
}

ShardLeases::ShardLeases(RedisClient& client, ClusterKeys keys,
                         std::string worker_id, uint32_t shards,
                         absl::Duration ttl)
    : client_(&client),
      keys_(std::move(keys)),
      worker_id_(std::move(worker_id)),
      shards_(shards),
      ttl_(ttl) {}

absl::Status ShardLeases::Init() {
  absl::StatusOr<std::string> renew = client_->RegisterScript(kRenewScript);
  if (!renew.ok()) return renew.status();
  absl::StatusOr<std::string> release = client_->RegisterScript(kReleaseScript);
  if (!release.ok()) return release.status();
  renew_sha_ = *renew;
  release_sha_ = *release;
  return absl::OkStatus();
}

absl::StatusOr<bool> ShardLeases::Acquire(uint32_t shard) {
  if (shard >= shards_)
    return absl::InvalidArgumentError(absl::StrCat("no shard ", shard));
  if (Holds(shard)) return true;
  absl::StatusOr<RedisReply> token = client_->Command({"INCR", keys_.Fence()});
  if (!token.ok()) return token.status();
  std::string value = absl::StrCat(worker_id_, "/", token->integer);
  absl::StatusOr<RedisReply> set =
      client_->Command({"SET", keys_.Lease(shard), value, "NX", "PX",
                        std::to_string(absl::ToInt64Milliseconds(ttl_))});
  if (!set.ok()) return set.status();
  if (set->is_nil()) return false;
  held_[shard] = std::move(value);
  return true;
}

absl::StatusOr<std::vector<uint32_t>> ShardLeases::Renew() {
  std::vector<std::vector<std::string>> batch;
  std::vector<uint32_t> order;
  const std::string ttl_ms = std::to_string(absl::ToInt64Milliseconds(ttl_));
  for (const auto& [shard, value] : held_) {
    batch.push_back(
        {"EVALSHA", renew_sha_, "1", keys_.Lease(shard), value, ttl_ms});
    order.push_back(shard);
  }
  std::vector<uint32_t> lost;
  if (batch.empty()) return lost;
  absl::StatusOr<std::vector<RedisReply>> replies = client_->Pipeline(batch);
  if (!replies.ok()) return replies.status();
  for (size_t i = 0; i < order.size(); ++i) {
    const RedisReply& r = (*replies)[i];
    if (r.is_error())
      return absl::FailedPreconditionError(absl::StrCat("redis: ", r.str));
    if (r.integer != 1) {
      lost.push_back(order[i]);
      held_.erase(order[i]);
    }
  }
  return lost;
}

absl::Status ShardLeases::Release(uint32_t shard) {
  auto it = held_.find(shard);
  if (it == held_.end()) return absl::OkStatus();
  absl::StatusOr<RedisReply> r = client_->Command(
      {"EVALSHA", release_sha_, "1", keys_.Lease(shard), it->second});
  held_.erase(it);
  return r.status();
}

absl::Status ShardLeases::ReleaseAll() {
  absl::Status first;
  for (uint32_t shard : held()) first.Update(Release(shard));
  return first;
}

absl::Status ShardLeases::Heartbeat(absl::Time now) {
  return client_
      ->Command({"ZADD", keys_.Workers(),
                 std::to_string(absl::ToUnixMillis(now)), worker_id_})
      .status();
}

absl::Status ShardLeases::Leave() {
  return client_->Command({"ZREM", keys_.Workers(), worker_id_}).status();
}

absl::StatusOr<uint32_t> ShardLeases::Target(absl::Time now) {
  absl::StatusOr<RedisReply> live = client_->Command(
      {"ZCOUNT", keys_.Workers(),
       std::to_string(absl::ToUnixMillis(now - ttl_)), "+inf"});
  if (!live.ok()) return live.status();
  const uint64_t workers = std::max<int64_t>(live->integer, 1);
  return static_cast<uint32_t>((shards_ + workers - 1) / workers);
}

std::string ShardLeases::LeaseValue(uint32_t shard) const {
  auto it = held_.find(shard);
  return it == held_.end() ? std::string() : it->second;
}

std::vector<uint32_t> ShardLeases::held() const {
  std::vector<uint32_t> out;
  out.reserve(held_.size());
  for (const auto& entry : held_) out.push_back(entry.first);
  return out;
}

}  // namespace sieve::cluster
