// tests/cluster/redis_test.h: RedisTest, a test fixture with its own
// redis-server (tests/cluster/redis_server.h), a connection to it, and a
// scratch directory for the workers' local frontiers, removed after the test.
// Skips when redis-server is not installed.
//
// Example:
//   class MyTest : public sieve::testing::RedisTest {};
//   TEST_F(MyTest, Works) { options.endpoint = redis_->endpoint(); ... }
#ifndef SIEVE_TESTS_CLUSTER_REDIS_TEST_H_
#define SIEVE_TESTS_CLUSTER_REDIS_TEST_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/cluster/redis_server.h"
#include "tests/common/temp_dir.h"

namespace sieve::testing {

class RedisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SIEVE_SKIP_WITHOUT_REDIS();
    auto server = RedisServer::Start(server_options_);
    ASSERT_TRUE(server.ok()) << server.status();
    redis_ = *std::move(server);
    auto client = cluster::RedisClient::Connect(redis_->endpoint(), {});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    work_ = sieve::test::FreshDir(sieve::test::CurrentTestName());
  }

  // Set in the constructor of a derived fixture to start another kind.
  RedisServerOptions server_options_{};
  std::unique_ptr<RedisServer> redis_;
  // The test's own connection to redis_ (the workers have theirs).
  std::unique_ptr<cluster::RedisClient> client_;
  std::filesystem::path work_;
};

}  // namespace sieve::testing

#endif  // SIEVE_TESTS_CLUSTER_REDIS_TEST_H_
