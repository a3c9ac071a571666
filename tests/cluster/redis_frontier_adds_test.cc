// RedisFrontier's adds: a page's links in one round trip (AddMany), the
// seen-set on FrontierAdd::dedup_key when set, and an Add
// that waits for Redis holds no lock the crawl loop needs (Next still
// answers while redis-server is stopped with SIGSTOP).
#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "frontier/cluster/redis_frontier.h"
#include "gtest/gtest.h"
#include "tests/cluster/redis_test.h"

namespace sieve::cluster {
namespace {

class RedisFrontierAddsTest : public ::sieve::testing::RedisTest {
 protected:
  std::unique_ptr<RedisFrontier> Worker() {
    RedisFrontierOptions o;
    o.endpoint = redis_->endpoint();
    o.client.command_timeout = absl::Milliseconds(300);
    o.crawl_id = "adds";
    o.worker_id = "w1";
    o.shards = 4;
    o.filter = {.expected_urls = 10'000, .fp_rate = 0.001};
    o.lease_ttl = absl::Seconds(10);
    o.idle_poll = absl::Milliseconds(20);
    o.work_dir = work_;
    auto f = RedisFrontier::Create(o);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? *std::move(f) : nullptr;
  }

  // Next until it hands out a URL (at most 5 s).
  static NextUrl NextReady(RedisFrontier& f) {
    const absl::Time deadline = absl::Now() + absl::Seconds(5);
    NextUrl next;
    while (absl::Now() < deadline) {
      next = f.Next(absl::Now());
      if (next.state == NextUrl::kReady) break;
      absl::SleepFor(absl::Milliseconds(5));
    }
    return next;
  }
};

TEST_F(RedisFrontierAddsTest, AddManyQueuesEachNewUrlOnceInOrder) {
  std::unique_ptr<RedisFrontier> f = Worker();
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->Add("http://a.test/seen", "a.test", 0));
  const std::vector<FrontierAdd> adds = {
      {.url = "http://a.test/1", .host = "a.test"},
      {.url = "http://a.test/seen", .host = "a.test"},
      {.url = "http://b.test/1", .host = "b.test", .depth = 2},
      {.url = "http://a.test/1", .host = "a.test"},
      {.url = "http://c.test/1", .host = "c.test", .metadata = "m"}};
  bool queued[5] = {};
  f->AddMany(adds, queued);
  EXPECT_TRUE(queued[0]);
  EXPECT_FALSE(queued[1]) << "seen before";
  EXPECT_TRUE(queued[2]);
  EXPECT_FALSE(queued[3]) << "repeated in the batch";
  EXPECT_TRUE(queued[4]);
  EXPECT_EQ(f->stats().added, 4u);
  EXPECT_EQ(f->stats().duplicates, 2u);
  std::vector<std::string> got;
  for (int i = 0; i < 4; ++i) {
    NextUrl next = NextReady(*f);
    ASSERT_EQ(next.state, NextUrl::kReady);
    if (next.url.url == "http://b.test/1") {
      EXPECT_EQ(next.url.depth, 2u);
    }
    if (next.url.url == "http://c.test/1") {
      EXPECT_EQ(next.url.metadata, "m");
    }
    got.push_back(next.url.url);
    ASSERT_TRUE(
        f->Done(next.url.url, FetchOutcome::NotFetched(), absl::Now()).ok());
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got,
            (std::vector<std::string>{"http://a.test/1", "http://a.test/seen",
                                      "http://b.test/1", "http://c.test/1"}));
}

TEST_F(RedisFrontierAddsTest, TheSeenSetTestsTheDedupKeyWhenThereIsOne) {
  std::unique_ptr<RedisFrontier> f = Worker();
  ASSERT_NE(f, nullptr);
  const std::vector<FrontierAdd> adds = {
      {.url = "http://k.test/a", .host = "k.test", .dedup_key = "fp1"},
      {.url = "http://k.test/b", .host = "k.test", .dedup_key = "fp1"},
      {.url = "http://k.test/c", .host = "k.test", .dedup_key = "fp2"},
      {.url = "http://k.test/c", .host = "k.test"}};
  bool queued[4] = {};
  f->AddMany(adds, queued);
  EXPECT_TRUE(queued[0]);
  EXPECT_FALSE(queued[1]) << "its key was seen";
  EXPECT_TRUE(queued[2]);
  EXPECT_TRUE(queued[3]) << "its URL is its key, not seen";
  NextUrl next = NextReady(*f);
  ASSERT_EQ(next.state, NextUrl::kReady);
  EXPECT_EQ(next.url.url, "http://k.test/a") << "the entry carries the URL";
}

TEST_F(RedisFrontierAddsTest, NextAnswersWhileAnAddWaitsForAPausedRedis) {
  std::unique_ptr<RedisFrontier> f = Worker();
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(f->Add(absl::StrCat("http://a.test/", i), "a.test", 0));
  NextUrl first = NextReady(*f);
  ASSERT_EQ(first.state, NextUrl::kReady);

  redis_->Pause();
  std::atomic<bool> add_returned = false;
  bool added = false;
  std::thread adder([&] {
    added = f->Add("http://b.test/0", "b.test", 0);
    add_returned = true;
  });
  absl::SleepFor(absl::Milliseconds(200));  // The Add is waiting for Redis.
  const absl::Time start = absl::Now();
  const NextUrl next = f->Next(absl::Now());
  const absl::Duration took = absl::Now() - start;
  const absl::Time done_start = absl::Now();
  absl::StatusOr<UrlFate> fate = f->Done(
      first.url.url, FetchOutcome::Success(absl::Milliseconds(1)), absl::Now());
  const absl::Duration done_took = absl::Now() - done_start;
  const bool add_waited = !add_returned;
  redis_->Resume();
  adder.join();

  // Bounded by the client's command timeout (300 ms) for Next's own Redis
  // calls, not by the Add's retries (up to 20 s).
  EXPECT_LT(took, absl::Seconds(2)) << "Next waited for the Add";
  EXPECT_NE(next.state, NextUrl::kEmpty);
  EXPECT_LT(done_took, absl::Seconds(2)) << "Done waited for the Add";
  EXPECT_TRUE(fate.ok()) << fate.status();
  EXPECT_TRUE(add_waited) << "the Add did not wait for the paused Redis";
  // Queued once Redis answered again. (The Add may return false: its first
  // try, timed out, ran when Redis woke, and the next one found it seen.)
  (void)added;
  EXPECT_TRUE(f->status().ok()) << f->status();
  bool handed_out = false;
  for (int i = 0; i < 3 && !handed_out; ++i) {
    NextUrl n = NextReady(*f);
    ASSERT_EQ(n.state, NextUrl::kReady);
    handed_out = n.url.url == "http://b.test/0";
    ASSERT_TRUE(
        f->Done(n.url.url, FetchOutcome::NotFetched(), absl::Now()).ok());
  }
  EXPECT_TRUE(handed_out) << "the URL added while Redis was paused is lost";
}

}  // namespace
}  // namespace sieve::cluster
