// RedisClient against a real redis-server on loopback.
#include "frontier/cluster/redis_client.h"

#include <gtest/gtest.h>

#include "tests/cluster/redis_server.h"

namespace sieve::cluster {
namespace {

using ::sieve::testing::RedisServer;

TEST(RedisUrlTest, ParsesHostPortAndDatabase) {
  absl::StatusOr<RedisEndpoint> at = ParseRedisUrl("redis://10.0.0.7:7000/3");
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_EQ(at->host, "10.0.0.7");
  EXPECT_EQ(at->port, 7000);
  EXPECT_EQ(at->db, 3);
  at = ParseRedisUrl("redis://cache");
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_EQ(at->port, 6379);
  EXPECT_EQ(at->db, 0);
}

TEST(RedisUrlTest, RejectsOtherForms) {
  for (const char* bad : {"http://h:1", "redis://", "redis://h:0",
                          "redis://h:99999", "redis://h:1/x", "redis://h:p"}) {
    EXPECT_EQ(ParseRedisUrl(bad).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST(RedisClientTest, RunsCommandsAndPipelines) {
  SIEVE_SKIP_WITHOUT_REDIS();
  auto server = RedisServer::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  auto client = RedisClient::Connect((*server)->endpoint(), {});
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<std::vector<RedisReply>> replies =
      (*client)->Pipeline({{"SET", "k", "v"},
                           {"INCR", "n"},
                           {"INCR", "n"},
                           {"GET", "k"},
                           {"GET", "absent"},
                           {"INCR", "k"}});
  ASSERT_TRUE(replies.ok()) << replies.status();
  ASSERT_EQ(replies->size(), 6u);
  EXPECT_EQ((*replies)[0].str, "OK");
  EXPECT_EQ((*replies)[2].integer, 2);
  EXPECT_EQ((*replies)[3].str, "v");
  EXPECT_TRUE((*replies)[4].is_nil());
  EXPECT_TRUE((*replies)[5].is_error());
  EXPECT_EQ((*client)->Command({"INCR", "k"}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(RedisClientTest, FailsToConnectWithinItsTimeoutWhenNothingListens) {
  SIEVE_SKIP_WITHOUT_REDIS();
  auto server = RedisServer::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  RedisEndpoint at = (*server)->endpoint();
  (*server)->Stop();
  auto client = RedisClient::Connect(at, {});
  EXPECT_EQ(client.status().code(), absl::StatusCode::kUnavailable);
}

TEST(RedisClientTest, ReconnectsAndReloadsScriptsAfterARestart) {
  SIEVE_SKIP_WITHOUT_REDIS();
  auto server = RedisServer::Start({.appendonly = true});
  ASSERT_TRUE(server.ok()) << server.status();
  auto client = RedisClient::Connect((*server)->endpoint(), {});
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<std::string> sha =
      (*client)->RegisterScript("return redis.call('INCR', KEYS[1])");
  ASSERT_TRUE(sha.ok()) << sha.status();
  ASSERT_TRUE((*client)->Command({"EVALSHA", *sha, "1", "n"}).ok());

  ASSERT_TRUE((*server)->Restart().ok());
  // The first call after the restart finds the old connection closed.
  absl::StatusOr<RedisReply> broken = (*client)->Command({"PING"});
  EXPECT_FALSE(broken.ok());
  absl::StatusOr<RedisReply> again =
      (*client)->Command({"EVALSHA", *sha, "1", "n"});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->integer, 2) << "the AOF kept the first increment";
  EXPECT_EQ((*client)->reconnects(), 1u);
}

}  // namespace
}  // namespace sieve::cluster
