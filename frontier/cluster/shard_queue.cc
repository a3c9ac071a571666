#include "frontier/cluster/shard_queue.h"

#include <charconv>

#include "absl/strings/str_cat.h"

namespace sieve::cluster {

StreamOrder ParseStreamOrder(std::string_view id) {
  constexpr StreamOrder kMalformed{.ms = UINT64_MAX, .seq = UINT64_MAX};
  const size_t dash = id.find('-');
  if (dash == std::string_view::npos) return kMalformed;
  StreamOrder order;
  const char* end = id.data() + id.size();
  auto [ms_end, ms_err] =
      std::from_chars(id.data(), id.data() + dash, order.ms);
  auto [seq_end, seq_err] =
      std::from_chars(id.data() + dash + 1, end, order.seq);
  if (ms_err != std::errc() || ms_end != id.data() + dash ||
      seq_err != std::errc() || seq_end != end)
    return kMalformed;
  return order;
}

namespace {

constexpr char kGroup[] = "w";

// Every fenced script starts the same way: KEYS[1] the lease, ARGV[1] the
// caller's lease value; the group is created on first use (MKSTREAM; an
// existing group is kept).
#define SIEVE_FENCE_PROLOGUE                                          \
  "if redis.call('GET', KEYS[1]) ~= ARGV[1] then\n"                   \
  "  return redis.error_reply('FENCED lease not held')\n"             \
  "end\n"                                                             \
  "if redis.call('EXISTS', KEYS[2]) == 0 or\n"                        \
  "   #redis.call('XINFO', 'GROUPS', KEYS[2]) == 0 then\n"            \
  "  redis.call('XGROUP', 'CREATE', KEYS[2], 'w', '0', 'MKSTREAM')\n" \
  "end\n"

// KEYS: lease, stream. ARGV: lease value, consumer, count.
constexpr char kReadScript[] = SIEVE_FENCE_PROLOGUE
    "return redis.call('XREADGROUP', 'GROUP', 'w', ARGV[2], 'COUNT', "
    "ARGV[3], 'STREAMS', KEYS[2], '>')\n";

// KEYS: lease, stream. ARGV: lease value, consumer, start. Returns XAUTOCLAIM's
// reply (next start, entries, ...).
constexpr char kClaimScript[] = SIEVE_FENCE_PROLOGUE
    "return redis.call('XAUTOCLAIM', KEYS[2], 'w', ARGV[2], 0, ARGV[3], "
    "'COUNT', 1000)\n";

// KEYS: lease, stream. ARGV: lease value, ids...
constexpr char kAckScript[] = SIEVE_FENCE_PROLOGUE
    "local ids = {unpack(ARGV, 2)}\n"
    "local n = redis.call('XACK', KEYS[2], 'w', unpack(ids))\n"
    "redis.call('XDEL', KEYS[2], unpack(ids))\n"
    "return n\n";

#undef SIEVE_FENCE_PROLOGUE

absl::Status ReplyError(const RedisReply& r) {
  return absl::FailedPreconditionError(absl::StrCat("redis: ", r.str));
}

// One [id, [field, value, ...]] entry; a claimed entry deleted meanwhile comes
// back with a nil body and is skipped.
bool ParseEntry(const RedisReply& r, StreamEntry& out) {
  if (r.type != RedisReply::kArray || r.elements.size() != 2 ||
      r.elements[1].type != RedisReply::kArray)
    return false;
  out.id = r.elements[0].str;
  const std::vector<RedisReply>& f = r.elements[1].elements;
  for (size_t i = 0; i + 1 < f.size(); i += 2) {
    const std::string& name = f[i].str;
    const std::string& value = f[i + 1].str;
    if (name == "u") {
      out.url.url = value;
    } else if (name == "h") {
      out.url.host = value;
    } else if (name == "d") {
      std::from_chars(value.data(), value.data() + value.size(), out.url.depth);
    } else if (name == "m") {
      out.url.metadata = value;
    }
  }
  return !out.url.url.empty();
}

}  // namespace

absl::Status ShardQueue::Init() {
  for (auto [body, sha] : {std::pair{kReadScript, &read_sha_},
                           std::pair{kClaimScript, &claim_sha_},
                           std::pair{kAckScript, &ack_sha_}}) {
    absl::StatusOr<std::string> loaded = client_->RegisterScript(body);
    if (!loaded.ok()) return loaded.status();
    *sha = *loaded;
  }
  return absl::OkStatus();
}

std::vector<std::string> ShardQueue::EntryFields(const FrontierUrl& url) {
  return {"u", url.url,     "h", url.host, "d", std::to_string(url.depth),
          "m", url.metadata};
}

absl::Status ShardQueue::Push(const std::vector<QueuedUrl>& urls) {
  if (urls.empty()) return absl::OkStatus();
  std::vector<std::vector<std::string>> batch;
  batch.reserve(urls.size());
  for (const QueuedUrl& q : urls) {
    std::vector<std::string> command = {"XADD", keys_.Queue(q.shard), "*"};
    for (std::string& f : EntryFields(q.url)) command.push_back(std::move(f));
    batch.push_back(std::move(command));
  }
  absl::StatusOr<std::vector<RedisReply>> replies = client_->Pipeline(batch);
  if (!replies.ok()) return replies.status();
  for (const RedisReply& r : *replies) {
    if (r.is_error()) return ReplyError(r);
  }
  return absl::OkStatus();
}

namespace {

// A read script's reply: [[stream, [entry, ...]]], or nil when nothing is new.
std::vector<StreamEntry> ParseRead(const RedisReply& r) {
  std::vector<StreamEntry> out;
  if (r.type != RedisReply::kArray || r.elements.empty()) return out;
  const RedisReply& stream = r.elements[0];
  if (stream.elements.size() != 2) return out;
  for (const RedisReply& e : stream.elements[1].elements) {
    StreamEntry entry;
    if (ParseEntry(e, entry)) out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<StreamEntry>> ShardQueue::Read(
    uint32_t shard, const std::string& lease, const std::string& consumer,
    uint32_t count) {
  absl::StatusOr<RedisReply> r = client_->Command(
      {"EVALSHA", read_sha_, "2", keys_.Lease(shard), keys_.Queue(shard), lease,
       consumer, std::to_string(count)});
  if (!r.ok()) return r.status();
  return ParseRead(*r);
}

absl::StatusOr<std::vector<absl::StatusOr<std::vector<StreamEntry>>>>
ShardQueue::ReadMany(const std::vector<uint32_t>& shards,
                     const std::vector<std::string>& leases,
                     const std::string& consumer, uint32_t count) {
  std::vector<std::vector<std::string>> batch;
  batch.reserve(shards.size());
  for (size_t i = 0; i < shards.size(); ++i) {
    batch.push_back({"EVALSHA", read_sha_, "2", keys_.Lease(shards[i]),
                     keys_.Queue(shards[i]), leases[i], consumer,
                     std::to_string(count)});
  }
  std::vector<absl::StatusOr<std::vector<StreamEntry>>> out;
  if (batch.empty()) return out;
  absl::StatusOr<std::vector<RedisReply>> replies = client_->Pipeline(batch);
  if (!replies.ok()) return replies.status();
  for (const RedisReply& r : *replies) {
    if (r.is_error()) {
      out.push_back(
          absl::FailedPreconditionError(absl::StrCat("redis: ", r.str)));
    } else {
      out.push_back(ParseRead(r));
    }
  }
  return out;
}

absl::StatusOr<std::vector<StreamEntry>> ShardQueue::Claim(
    uint32_t shard, const std::string& lease, const std::string& consumer) {
  std::vector<StreamEntry> out;
  std::string start = "0-0";
  // Each call scans up to COUNT entries; bounded by the stream's length.
  for (int round = 0; round < 1'000'000; ++round) {
    absl::StatusOr<RedisReply> r =
        client_->Command({"EVALSHA", claim_sha_, "2", keys_.Lease(shard),
                          keys_.Queue(shard), lease, consumer, start});
    if (!r.ok()) return r.status();
    if (r->type != RedisReply::kArray || r->elements.size() < 2)
      return absl::InternalError("redis: unexpected XAUTOCLAIM reply");
    for (const RedisReply& e : r->elements[1].elements) {
      StreamEntry entry;
      if (ParseEntry(e, entry)) out.push_back(std::move(entry));
    }
    start = r->elements[0].str;
    if (start == "0-0") break;
  }
  return out;
}

absl::StatusOr<uint64_t> ShardQueue::Ack(uint32_t shard,
                                         const std::string& lease,
                                         const std::vector<std::string>& ids) {
  if (ids.empty()) return 0;
  std::vector<std::string> command = {
      "EVALSHA", ack_sha_, "2", keys_.Lease(shard), keys_.Queue(shard), lease};
  command.insert(command.end(), ids.begin(), ids.end());
  absl::StatusOr<RedisReply> r = client_->Command(command);
  if (!r.ok()) return r.status();
  return static_cast<uint64_t>(r->integer);
}

absl::StatusOr<std::vector<ShardCounts>> ShardQueue::Counts(uint32_t shards) {
  std::vector<std::vector<std::string>> batch;
  for (uint32_t s = 0; s < shards; ++s) {
    batch.push_back({"XLEN", keys_.Queue(s)});
    batch.push_back({"XPENDING", keys_.Queue(s), kGroup});
  }
  absl::StatusOr<std::vector<RedisReply>> replies = client_->Pipeline(batch);
  if (!replies.ok()) return replies.status();
  std::vector<ShardCounts> out(shards);
  for (uint32_t s = 0; s < shards; ++s) {
    const RedisReply& len = (*replies)[2 * s];
    const RedisReply& pending = (*replies)[2 * s + 1];
    if (len.is_error()) return ReplyError(len);
    out[s].entries = static_cast<uint64_t>(len.integer);
    // No group yet (NOGROUP) means nothing was delivered.
    if (pending.type == RedisReply::kArray && !pending.elements.empty())
      out[s].pending = static_cast<uint64_t>(pending.elements[0].integer);
  }
  return out;
}

}  // namespace sieve::cluster
