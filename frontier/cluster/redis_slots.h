// frontier/cluster/redis_slots.h: how a command finds its Redis Cluster node:
// the slot of a key, the key of a command, and the redirections a node
// answers with. RedisClient (frontier/cluster/redis_client.h) routes with
// these when it talks to a cluster.
//
// Source: the Redis Cluster Specification ("Key distribution model", "Hash
// tags", "MOVED Redirection", "ASK redirection"): slot = CRC16(key) mod 16384,
// CRC16 the XMODEM variant (polynomial 0x1021, initial value 0); when the key
// holds a '{' followed later by a '}' with at least one byte between them,
// only those bytes are hashed.
//
// Example:
//   uint16_t slot = sieve::cluster::KeySlot("sieve:{crawl:s3}:q");
//   std::optional<sieve::cluster::Redirect> r =
//       sieve::cluster::ParseRedirect("MOVED 3999 127.0.0.1:6381");
#ifndef SIEVE_FRONTIER_CLUSTER_REDIS_SLOTS_H_
#define SIEVE_FRONTIER_CLUSTER_REDIS_SLOTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sieve::cluster {

inline constexpr int kClusterSlots = 16384;

// The cluster slot of `key` (its hash tag's, if it has one). Cost: O(key).
uint16_t KeySlot(std::string_view key);

// The key that routes `args` (a command and its arguments), or nullopt for a
// command without one (PING, SCRIPT, CLUSTER, ...: any node answers). The
// key's position comes from one table: argument 3 of EVAL/EVALSHA (when
// numkeys > 0), argument 1 of every other command.
std::optional<std::string_view> CommandKey(
    const std::vector<std::string>& args);

// A node's redirection: "MOVED <slot> <host>:<port>" (the slot lives there
// now) or "ASK <slot> <host>:<port>" (this one key is being migrated there:
// send ASKING, then the command, once).
struct Redirect {
  bool ask = false;
  uint16_t slot = 0;
  std::string host{};
  int port = 0;
};
// nullopt unless `error` is a well-formed MOVED or ASK reply.
std::optional<Redirect> ParseRedirect(std::string_view error);

}  // namespace sieve::cluster

#endif  // SIEVE_FRONTIER_CLUSTER_REDIS_SLOTS_H_
