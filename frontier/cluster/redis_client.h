// frontier/cluster/redis_client.h: a small synchronous Redis client over
// hiredis, the only way sieve::cluster talks to Redis.
//
// Surprises first:
//   - Every call is bounded: connecting waits at most connect_timeout, each
//     reply at most command_timeout, and a broken connection is re-opened with
//     exponential back-off (backoff_initial doubling to backoff_max) for at
//     most reconnect_deadline before the call fails with Unavailable.
//   - A command is sent at most once. If the connection breaks after it was
//     sent, the call fails (Unavailable) and the command may or may not have
//     run: the caller decides whether repeating it is safe. The next call
//     reconnects.
//   - Lua scripts registered with RegisterScript are loaded again after every
//     reconnect (a restarted Redis has forgotten them), so EVALSHA works.
//   - Not thread-safe: one client per thread (or guard it with a mutex).
//   - Redis Cluster: when the endpoint is a node of a cluster (CLUSTER SLOTS
//     answers), the client keeps the slot map and one connection per node,
//     sends each command to the node of its key's slot
//     (frontier/cluster/redis_slots.h), splits a pipeline by node, follows
//     MOVED (and refreshes the map) and ASK (ASKING, then the command once),
//     at most 5 redirections per command, loads scripts on each node it
//     opens (and again on NOSCRIPT). A node that cannot be reached or does
//     not answer in time fails the call (Unavailable, DeadlineExceeded) and
//     the map is read again (from another node) at the next call, so a
//     failover's promoted replica is found; until then, a call that needs
//     that node fails at once (Unavailable) for a back-off (backoff_initial
//     doubling to backoff_max) instead of waiting for it again. A
//     CLUSTERDOWN reply also has the map read again. Only DB 0.
//
// Cost: one round trip per Command; one round trip for a whole Pipeline.
//
// Example:
//   absl::StatusOr<sieve::cluster::RedisEndpoint> at =
//       sieve::cluster::ParseRedisUrl("redis://127.0.0.1:6379/0");
//   auto client = sieve::cluster::RedisClient::Connect(*at, {});
//   absl::StatusOr<sieve::cluster::RedisReply> r =
//       (*client)->Command({"INCR", "counter"});
//   if (r.ok()) std::cout << r->integer;
#ifndef SIEVE_FRONTIER_CLUSTER_REDIS_CLIENT_H_
#define SIEVE_FRONTIER_CLUSTER_REDIS_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

struct redisContext;

namespace sieve::cluster {

// Where Redis listens: redis://HOST:PORT[/DB].
struct RedisEndpoint {
  std::string host{};
  int port = 6379;
  int db = 0;
};

// Parses "redis://HOST[:PORT][/DB]" (PORT defaults to 6379, DB to 0).
// InvalidArgument on any other form.
absl::StatusOr<RedisEndpoint> ParseRedisUrl(std::string_view url);

struct RedisClientOptions {
  absl::Duration connect_timeout = absl::Seconds(2);
  absl::Duration command_timeout = absl::Seconds(5);
  absl::Duration backoff_initial = absl::Milliseconds(50);
  absl::Duration backoff_max = absl::Seconds(2);
  // How long one call keeps trying to re-open a broken connection.
  absl::Duration reconnect_deadline = absl::Seconds(10);
};

// One reply, copied out of hiredis.
struct RedisReply {
  enum Type { kNil, kInteger, kString, kStatus, kArray, kError };
  Type type = kNil;
  int64_t integer = 0;
  std::string str{};  // kString, kStatus, kError.
  std::vector<RedisReply> elements{};

  bool is_nil() const { return type == kNil; }
  bool is_error() const { return type == kError; }
};

class RedisClient {
 public:
  // Connects (one attempt, bounded by connect_timeout) and selects the DB.
  static absl::StatusOr<std::unique_ptr<RedisClient>> Connect(
      const RedisEndpoint& endpoint, const RedisClientOptions& options);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // Runs one command. An error reply becomes a status (FailedPrecondition
  // with Redis's message); a broken connection Unavailable; a timeout
  // DeadlineExceeded.
  absl::StatusOr<RedisReply> Command(const std::vector<std::string>& args);

  // Sends all `commands` in one write and reads their replies in order. Error
  // replies stay in the vector (RedisReply::kError); a broken connection fails
  // the whole call.
  absl::StatusOr<std::vector<RedisReply>> Pipeline(
      const std::vector<std::vector<std::string>>& commands);

  // Loads `body` with SCRIPT LOAD (now and after each reconnect); returns its
  // SHA-1 for EVALSHA.
  absl::StatusOr<std::string> RegisterScript(std::string_view body);

  // Commands sent since Connect (each pipelined command counts one).
  uint64_t commands_sent() const { return commands_sent_; }
  uint64_t reconnects() const { return reconnects_; }

 private:
  // One connection (to the endpoint, or to one node of a cluster).
  struct Conn {
    RedisEndpoint at;
    redisContext* context = nullptr;
    // Cluster only: after a failure, calls that need this node fail at once
    // until down_until; down_for is that back-off (0: the node answers).
    absl::Time down_until = absl::InfinitePast();
    absl::Duration down_for = absl::ZeroDuration();
  };

  RedisClient(RedisEndpoint endpoint, RedisClientOptions options)
      : endpoint_(std::move(endpoint)), options_(options) {
    conns_.push_back({.at = endpoint_});
  }
  absl::Status Open(Conn& c);
  absl::Status EnsureConnected(Conn& c);
  static void Drop(Conn& c);
  absl::StatusOr<std::vector<RedisReply>> PipelineOn(
      Conn& c, const std::vector<std::vector<std::string>>& commands);
  // Reads the slot map (CLUSTER SLOTS) from the first node that answers.
  // Sets cluster_ when the endpoint is a cluster node.
  absl::Status RefreshSlots();
  // The index in conns_ of host:port (added if new).
  size_t NodeIndex(const std::string& host, int port);
  // One node's pipeline in a cluster: fails at once while the node is in
  // its back-off; a failure starts (or doubles) it, a reply ends it.
  absl::StatusOr<std::vector<RedisReply>> NodePipeline(
      Conn& c, const std::vector<std::vector<std::string>>& commands);
  absl::StatusOr<std::vector<RedisReply>> ClusterPipeline(
      const std::vector<std::vector<std::string>>& commands);

  RedisEndpoint endpoint_;
  RedisClientOptions options_;
  // conns_[0]: the endpoint; then the cluster's other nodes as found.
  std::vector<Conn> conns_;
  bool cluster_ = false;
  bool refresh_ = false;  // Read the slot map again before the next call.
  std::vector<uint16_t> slot_node_{};  // Slot -> index in conns_.
  size_t any_node_ = 0;  // For commands without a key: the last that answered.
  std::vector<std::string> scripts_{};
  uint64_t commands_sent_ = 0;
  uint64_t reconnects_ = 0;
};

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_REDIS_CLIENT_H_
