// tests/cluster/redis_server.h: a real redis-server for one test, on
// 127.0.0.1, on a free port, in a temporary directory; stopped (and the
// directory removed) when the object goes.
//
// Tests call SIEVE_SKIP_WITHOUT_REDIS() first: it skips with a clear message
// when redis-server is not installed (scripts/install-deps.sh installs it, so
// CI runs these tests).
//
// Example:
//   auto server = sieve::testing::RedisServer::Start({.appendonly = true});
//   ASSERT_TRUE(server.ok()) << server.status();
//   auto client = RedisClient::Connect((*server)->endpoint(), {});
#ifndef SIEVE_TESTS_CLUSTER_REDIS_SERVER_H_
#define SIEVE_TESTS_CLUSTER_REDIS_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "frontier/cluster/redis_client.h"

namespace sieve::testing {

struct RedisServerOptions {
  bool appendonly = false;  // With appendfsync always.
  // A Redis Cluster of this one node, holding all 16,384 slots (cluster
  // state ok before Start returns): a command or script whose declared keys
  // hash to two slots fails with CROSSSLOT, as on a real cluster.
  bool cluster = false;
  // With cluster: start with no slots, a node for a cluster of several
  // (tests/cluster/redis_cluster.h builds one).
  bool cluster_without_slots = false;
};

class RedisServer {
 public:
  // Path of redis-server, or empty if it is not installed.
  static std::string Binary();
  // Starts redis-server and waits (at most 10 s) until it answers PING.
  static absl::StatusOr<std::unique_ptr<RedisServer>> Start(
      RedisServerOptions options = {});
  ~RedisServer();

  // Stops the server (SIGTERM, then SIGKILL after 10 s) and keeps its
  // directory; Restart starts it again on the same port and directory.
  void Stop();
  // SIGKILL (kill -9): the server dies at once, as in a crash; its
  // directory stays.
  void Kill();
  absl::Status Restart();
  // SIGSTOP and SIGCONT: a Redis that accepts connections and answers
  // nothing until resumed.
  void Pause();
  void Resume();

  cluster::RedisEndpoint endpoint() const { return {"127.0.0.1", port_, 0}; }
  std::string url() const;
  int port() const { return port_; }

 private:
  RedisServer() = default;
  absl::Status Launch();

  RedisServerOptions options_{};
  std::string dir_{};
  int port_ = 0;
  int pid_ = -1;
};

}  // namespace sieve::testing

#define SIEVE_SKIP_WITHOUT_REDIS()                                      \
  do {                                                                  \
    if (::sieve::testing::RedisServer::Binary().empty())                \
      GTEST_SKIP() << "redis-server is not installed (apt-get install " \
                      "redis-server, or run scripts/install-deps.sh)";  \
  } while (false)

#endif  // SIEVE_TESTS_CLUSTER_REDIS_SERVER_H_
