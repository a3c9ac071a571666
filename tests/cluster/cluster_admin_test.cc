// `sieve cluster status` and `seed` as library calls (cluster_admin.h), and
// the workers' published counters (worker_stats.h), against a real
// redis-server on loopback.
#include "frontier/cluster/cluster_admin.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "frontier/cluster/redis_frontier.h"
#include "tests/cluster/redis_test.h"

namespace sieve::cluster {
namespace {

TEST(WorkerStatsTest, ReadsBackWhatItWroteAndRejectsABadNumber) {
  WorkerStats w{.worker_id = "w1",
                .started_ms = 1000,
                .updated_ms = 3000,
                .pages = 42,
                .reclaimed = 3,
                .shards = 5,
                .lease_ms = 600,
                .recent_rate = 12.5};
  absl::StatusOr<WorkerStats> back =
      DecodeWorkerStats("w1", EncodeWorkerStats(w));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->pages, 42u);
  EXPECT_EQ(back->reclaimed, 3u);
  EXPECT_EQ(back->shards, 5u);
  EXPECT_EQ(back->lease_ms, 600);
  EXPECT_DOUBLE_EQ(back->recent_rate, 12.5);
  EXPECT_TRUE(DecodeWorkerStats("w1", "pages=7 future_key=x").ok());
  EXPECT_EQ(DecodeWorkerStats("w1", "pages=seven").status().code(),
            absl::StatusCode::kInvalidArgument);
}

class ClusterAdminTest : public ::sieve::testing::RedisTest {
 protected:
  std::unique_ptr<RedisFrontier> Worker(const std::string& id) {
    RedisFrontierOptions o;
    o.endpoint = redis_->endpoint();
    o.crawl_id = "adm";
    o.worker_id = id;
    o.shards = 6;
    o.filter = {.expected_urls = 10'000, .fp_rate = 0.01};
    o.lease_ttl = absl::Seconds(5);
    o.ack_after_record = true;
    o.work_dir = work_;
    auto f = RedisFrontier::Create(o);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? *std::move(f) : nullptr;
  }
};

TEST_F(ClusterAdminTest, StatusAndSeedSayThereIsNoSuchCrawl) {
  auto keys = ClusterKeys::ForCrawl("none");
  EXPECT_EQ(ReadClusterStatus(*client_, *keys, absl::Now()).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(AddSeeds(*client_, *keys, {{"http://a/", "a", ""}}).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(ClusterAdminTest, StatusShowsWorkersShardsQueuesAndTheFilter) {
  std::unique_ptr<RedisFrontier> w1 = Worker("w1");
  std::unique_ptr<RedisFrontier> w2 = Worker("w2");
  ASSERT_NE(w1, nullptr);
  ASSERT_NE(w2, nullptr);
  auto keys = ClusterKeys::ForCrawl("adm");
  std::vector<SeedUrl> seeds;
  for (int h = 0; h < 12; ++h) {
    const std::string host = absl::StrCat("h", h, ".test");
    seeds.push_back({absl::StrCat("http://", host, "/"), host, ""});
  }
  absl::StatusOr<uint64_t> queued = AddSeeds(*client_, *keys, seeds);
  ASSERT_TRUE(queued.ok()) << queued.status();
  EXPECT_EQ(*queued, 12u);
  queued = AddSeeds(*client_, *keys, seeds);  // Seen: not queued again.
  ASSERT_TRUE(queued.ok()) << queued.status();
  EXPECT_EQ(*queued, 0u);

  // Each takes its share (6 / 2 live workers) and fetches one URL, which it
  // finishes and records.
  const absl::Time now = absl::Now();
  for (RedisFrontier* w : {w1.get(), w2.get()}) {
    NextUrl next = w->Next(now);
    for (int i = 0; i < 100 && next.state != NextUrl::kReady; ++i)
      next = w->Next(absl::Now() + absl::Seconds(1));
    ASSERT_EQ(next.state, NextUrl::kReady);
    ASSERT_TRUE(w->Done(next.url.url,
                        FetchOutcome::Success(absl::Milliseconds(1)),
                        absl::Now())
                    .ok());
    EXPECT_TRUE(w->RecordWritten(next.url.url).ok());
  }
  // Counters are published at upkeep: force one.
  (void)w1->Next(absl::Now() + absl::Seconds(10));
  (void)w2->Next(absl::Now() + absl::Seconds(10));

  absl::StatusOr<ClusterStatus> s =
      ReadClusterStatus(*client_, *keys, absl::Now());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->shard_count, 6u);
  EXPECT_EQ(s->live_workers, 2u);
  ASSERT_EQ(s->workers.size(), 2u);
  int owned_by[2] = {0, 0};
  for (const ShardStatus& shard : s->shards) {
    if (shard.owner == "w1") ++owned_by[0];
    if (shard.owner == "w2") ++owned_by[1];
  }
  EXPECT_EQ(owned_by[0], 3);
  EXPECT_EQ(owned_by[1], 3);
  EXPECT_EQ(s->pages, 2u);
  EXPECT_EQ(s->queued + s->pending, 10u);
  EXPECT_NEAR(s->filter.estimated_count, 12, 1);
  EXPECT_GT(s->filter.estimated_fp_rate, 0);
  EXPECT_EQ(s->reclaimed, 0u);

  // A worker that exits leaves the live set; its counters stay.
  ASSERT_TRUE(w2->Shutdown().ok());
  s = ReadClusterStatus(*client_, *keys, absl::Now());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->live_workers, 1u);
  EXPECT_EQ(s->pages, 2u);
}

}  // namespace
}  // namespace sieve::cluster
