// tests/cluster/redis_cluster.h: a real Redis Cluster of several
// redis-server nodes on 127.0.0.1 (tests/cluster/redis_server.h), built by
// `redis-cli --cluster create`, for one test; stopped when the object goes.
//
// Example:
//   auto cluster = sieve::testing::RedisCluster::Start(/*masters=*/3,
//                                                     /*replicas=*/1);
//   ASSERT_TRUE(cluster.ok()) << cluster.status();
//   auto client = RedisClient::Connect((*cluster)->endpoint(), {});
#ifndef SIEVE_TESTS_CLUSTER_REDIS_CLUSTER_H_
#define SIEVE_TESTS_CLUSTER_REDIS_CLUSTER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/cluster/redis_server.h"

namespace sieve::testing {

class RedisCluster {
 public:
  // Path of redis-cli, or empty if it is not installed.
  static std::string Cli();
  // Starts masters * (1 + replicas) nodes, creates the cluster and waits
  // (at most 30 s) until every node says cluster_state:ok and every
  // replica has made its first copy of its master (master_link_status:up).
  static absl::StatusOr<std::unique_ptr<RedisCluster>> Start(int masters,
                                                             int replicas);

  int size() const { return static_cast<int>(nodes_.size()); }
  RedisServer& node(int i) { return *nodes_[i]; }
  // A node to connect to (node 0).
  cluster::RedisEndpoint endpoint() const;
  std::string url() const;

  // The node (index) that serves `slot` now.
  absl::StatusOr<int> MasterOf(int slot);
  // The first slot of the range of consecutive slots `slot` belongs to.
  absl::StatusOr<int> RangeStart(int slot);
  // Moves `slots` slots from the master at node `from` to the one at `to`
  // with `redis-cli --cluster reshard` (it takes the source's lowest slots).
  absl::Status Reshard(int from, int to, int slots);

 private:
  RedisCluster() = default;
  absl::StatusOr<std::string> NodeId(int i);
  // CLUSTER SLOTS from the first node that answers.
  absl::StatusOr<cluster::RedisReply> Slots();
  absl::Status WaitUntilOk(absl::Duration limit);
  absl::Status RunCli(const std::vector<std::string>& args,
                      absl::Duration limit);

  std::vector<std::unique_ptr<RedisServer>> nodes_;
  std::string log_;
};

}  // namespace sieve::testing

#define SIEVE_SKIP_WITHOUT_REDIS_CLUSTER()                            \
  do {                                                                \
    SIEVE_SKIP_WITHOUT_REDIS();                                       \
    if (::sieve::testing::RedisCluster::Cli().empty())                \
      GTEST_SKIP() << "redis-cli is not installed (apt-get install "  \
                      "redis-tools, or run scripts/install-deps.sh)"; \
  } while (false)

#endif  // SIEVE_TESTS_CLUSTER_REDIS_CLUSTER_H_
