// Frontier::Checkpoint / Frontier::Restore: a resumed crawl has lost no queued
// URL (those in flight at the checkpoint come back), refetches at most what was
// fetched since, and keeps crawl delays, dropped hosts and counters. The
// Sieve's queue is made to spill so its disk part is covered too.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "frontier/frontier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::Pair;

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

class FrontierCheckpointTest : public ::testing::Test {
 protected:
  FrontierCheckpointTest() { fs::create_directories(root_ / "work"); }

  FrontierOptions Options() const {
    return {.sieve = {.expected_urls = 100'000,
                      .fp_rate = 1e-6,
                      .memory_budget_bytes =
                          64 << 10,  // ~1000 records: the queue spills.
                      .work_dir = root_ / "work"},
            .politeness = {.min_delay = absl::ZeroDuration(),
                           .max_crawl_delay = absl::Seconds(30),
                           .max_in_flight_per_host = 2}};
  }

  const test::ScopedTempDir root_;
};

std::string UrlOf(int i) {
  return absl::StrCat("http://h", i % 20, ".example/page/", i);
}
std::string HostOf(int i) { return absl::StrCat("h", i % 20, ".example"); }

// Takes up to `n` URLs at `now`, completing each once `keep_in_flight` later
// ones were taken, so the last `keep_in_flight` stay in flight.
std::vector<std::string> Fetch(Frontier& f, int n, size_t keep_in_flight,
                               absl::Time now) {
  std::vector<std::string> taken;
  for (int i = 0; i < n; ++i) {
    NextUrl next = f.Next(now);
    if (next.state != NextUrl::kReady) break;
    taken.push_back(next.url.url);
    if (taken.size() > keep_in_flight) {
      const std::string& url = taken[taken.size() - 1 - keep_in_flight];
      EXPECT_TRUE(
          f.Done(url, FetchOutcome::Success(absl::Milliseconds(5)), now).ok());
    }
  }
  return taken;
}

// Fetches everything left, completing each at once and moving the clock past
// any delay; returns the URLs in order.
std::vector<std::string> Drain(Frontier& f, absl::Time now) {
  std::vector<std::string> out;
  for (int guard = 0; guard < 1'000'000; ++guard) {
    NextUrl next = f.Next(now);
    if (next.state == NextUrl::kEmpty) return out;
    if (next.state == NextUrl::kWait) {
      now += next.wait;
      continue;
    }
    EXPECT_EQ(next.state, NextUrl::kReady) << "every fetch completes at once";
    if (next.state != NextUrl::kReady) return out;
    out.push_back(next.url.url);
    EXPECT_TRUE(
        f.Done(next.url.url, FetchOutcome::Success(absl::Milliseconds(5)), now)
            .ok());
  }
  ADD_FAILURE() << "did not drain";
  return out;
}

TEST_F(FrontierCheckpointTest,
       ResumedCrawlLosesNoQueuedUrlAndRefetchesOnlyRecentOnes) {
  absl::StatusOr<std::unique_ptr<Frontier>> made = Frontier::Create(Options());
  ASSERT_TRUE(made.ok()) << made.status();
  Frontier& f = **made;
  constexpr int kUrls = 3000;
  for (int i = 0; i < kUrls; ++i)
    ASSERT_TRUE(f.Add(UrlOf(i), HostOf(i), i % 4, "m"));
  // Some fetched and done, some in flight at the checkpoint.
  std::set<std::string> done_before;
  std::vector<std::string> taken = Fetch(f, 700, /*keep_in_flight=*/5, kStart);
  ASSERT_EQ(taken.size(), 700u);
  done_before.insert(taken.begin(), taken.end() - 5);
  f.SetCrawlDelay("h3.example", absl::Seconds(90));  // Above the cap: recorded.
  f.DropHost("h4.example");  // Its URLs are discarded, in host queues and in
                             // the Sieve.
  const FrontierStats before = f.stats();
  ASSERT_TRUE(f.Checkpoint(root_ / "ckpt").ok());

  // The crawl goes on after the checkpoint, then "crashes".
  std::vector<std::string> after = Fetch(f, 300, 0, kStart);
  ASSERT_EQ(after.size(), 300u);
  ASSERT_TRUE(f.Add("http://new.example/", "new.example", 0));
  made->reset();

  absl::StatusOr<std::unique_ptr<Frontier>> restored =
      Frontier::Restore(root_ / "ckpt", Options());
  ASSERT_TRUE(restored.ok()) << restored.status();
  Frontier& g = **restored;
  const FrontierStats resumed = g.stats();
  EXPECT_EQ(resumed.queued, before.queued + before.in_flight);
  EXPECT_EQ(resumed.in_flight, 0u);
  EXPECT_EQ(resumed.done, before.done);
  EXPECT_EQ(resumed.added, before.added);
  EXPECT_EQ(resumed.dropped_urls, before.dropped_urls);
  EXPECT_EQ(resumed.crawl_delays_capped, 1u);
  EXPECT_THAT(g.CappedCrawlDelays(),
              ElementsAre(Pair("h3.example", absl::Seconds(90))));
  EXPECT_FALSE(g.Add(UrlOf(1), HostOf(1), 0));  // Still seen.
  EXPECT_FALSE(
      g.Add("http://h4.example/x", "h4.example", 0));  // Still dropped.

  // Everything queued or in flight at the checkpoint comes out exactly once,
  // and nothing else.
  std::vector<std::string> rest = Drain(g, kStart + absl::Hours(1));
  std::set<std::string> rest_set(rest.begin(), rest.end());
  EXPECT_EQ(rest_set.size(), rest.size()) << "a URL came out twice";
  std::set<std::string> expected;
  for (int i = 0; i < kUrls; ++i) {
    if (!done_before.contains(UrlOf(i)) && HostOf(i) != "h4.example")
      expected.insert(UrlOf(i));
  }
  EXPECT_EQ(rest_set, expected);
  // What the first run fetched after the checkpoint, and what was in flight at
  // it, is fetched again (it was queued at the checkpoint); nothing done before
  // it is.
  for (const std::string& url : after)
    EXPECT_TRUE(rest_set.contains(url)) << url;
  for (auto it = taken.end() - 5; it != taken.end(); ++it)
    EXPECT_TRUE(rest_set.contains(*it));
  EXPECT_FALSE(rest_set.contains(
      "http://new.example/"));  // Added after: the refetch finds it.
}

TEST_F(FrontierCheckpointTest, LatestCheckpointWinsAndOlderOnesAreRemoved) {
  absl::StatusOr<std::unique_ptr<Frontier>> made = Frontier::Create(Options());
  ASSERT_TRUE(made.ok()) << made.status();
  Frontier& f = **made;
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(f.Add(UrlOf(i), HostOf(i), 0));
  ASSERT_TRUE(f.Checkpoint(root_ / "ckpt").ok());
  Fetch(f, 10, 0, kStart);
  ASSERT_TRUE(f.Checkpoint(root_ / "ckpt").ok());
  int snapshots = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(root_ / "ckpt")) {
    if (e.path().filename().string().starts_with("ckpt-")) ++snapshots;
  }
  EXPECT_EQ(snapshots, 1);
  absl::StatusOr<std::unique_ptr<Frontier>> restored =
      Frontier::Restore(root_ / "ckpt", Options());
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ((*restored)->stats().queued, 40u);
  EXPECT_EQ(Drain(**restored, kStart).size(), 40u);
  // A restored Frontier checkpoints into the same directory again.
  ASSERT_TRUE((*restored)->Checkpoint(root_ / "ckpt").ok());
  absl::StatusOr<std::unique_ptr<Frontier>> again =
      Frontier::Restore(root_ / "ckpt", Options());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->Next(kStart).state, NextUrl::kEmpty);
}

TEST_F(FrontierCheckpointTest, CorruptStateIsReportedNotLoaded) {
  absl::StatusOr<std::unique_ptr<Frontier>> made = Frontier::Create(Options());
  ASSERT_TRUE(made.ok()) << made.status();
  ASSERT_TRUE((*made)->Add("http://a/", "a", 0));
  ASSERT_TRUE((*made)->Next(kStart).state == NextUrl::kReady);
  ASSERT_TRUE((*made)->Checkpoint(root_ / "ckpt").ok());
  fs::path state;
  for (const fs::directory_entry& e :
       fs::recursive_directory_iterator(root_ / "ckpt")) {
    if (e.path().filename() == "frontier.state") state = e.path();
  }
  ASSERT_FALSE(state.empty());
  {
    std::fstream file(state, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(20);
    file.put('\x7f');
  }
  absl::StatusOr<std::unique_ptr<Frontier>> restored =
      Frontier::Restore(root_ / "ckpt", Options());
  EXPECT_TRUE(absl::IsDataLoss(restored.status())) << restored.status();
  EXPECT_FALSE(Frontier::Restore(root_ / "nowhere", Options()).ok());
}

TEST_F(FrontierCheckpointTest, ATruncatedOrAlteredStoreFileIsNamed) {
  absl::StatusOr<std::unique_ptr<Frontier>> made = Frontier::Create(Options());
  ASSERT_TRUE(made.ok()) << made.status();
  for (int i = 0; i < 5000; ++i)
    ASSERT_TRUE((*made)->Add(UrlOf(i), HostOf(i), 0));
  ASSERT_TRUE((*made)->Checkpoint(root_ / "ckpt").ok());
  made->reset();
  fs::path snapshot;
  std::vector<fs::path> store_files;
  for (const fs::directory_entry& e :
       fs::recursive_directory_iterator(root_ / "ckpt")) {
    if (e.is_regular_file() && e.path().parent_path().filename() == "store") {
      store_files.push_back(e.path());
    }
  }
  // The spilled queue is in the store: its RocksDB files are in the snapshot.
  ASSERT_FALSE(store_files.empty());
  for (const fs::path& file : store_files) {
    SCOPED_TRACE(file.string());
    std::string bytes;
    {
      std::ifstream in(file, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    ASSERT_GT(bytes.size(), 2u);
    // Truncated: named, with the sizes.
    std::ofstream(file, std::ios::binary | std::ios::trunc)
        << bytes.substr(0, bytes.size() - 1);
    absl::StatusOr<std::unique_ptr<Frontier>> restored =
        Frontier::Restore(root_ / "ckpt", Options());
    EXPECT_TRUE(absl::IsDataLoss(restored.status())) << restored.status();
    EXPECT_THAT(std::string(restored.status().message()),
                ::testing::HasSubstr(file.filename().string() +
                                     ": truncated or extended"));
    // Same size, one byte altered: named too.
    std::string altered = bytes;
    altered[altered.size() / 2] ^= 0x01;
    std::ofstream(file, std::ios::binary | std::ios::trunc) << altered;
    restored = Frontier::Restore(root_ / "ckpt", Options());
    EXPECT_THAT(
        std::string(restored.status().message()),
        ::testing::HasSubstr(file.filename().string() + ": checksum mismatch"));
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  }
  // Put back whole, it restores: the snapshot is never modified by a restore.
  absl::StatusOr<std::unique_ptr<Frontier>> restored =
      Frontier::Restore(root_ / "ckpt", Options());
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ((*restored)->stats().queued, 5000u);
}

// A dont_filter add (AddUnfiltered) of a URL seen and fetched before is saved
// with its depth and metadata, and its URL stays seen after Restore.
TEST_F(FrontierCheckpointTest, SavesAnUnfilteredAddOfASeenUrl) {
  absl::StatusOr<std::unique_ptr<Frontier>> made = Frontier::Create(Options());
  ASSERT_TRUE(made.ok()) << made.status();
  ASSERT_TRUE((*made)->Add("http://c/", "c", 0));
  ASSERT_THAT(Drain(**made, kStart), ElementsAre("http://c/"));
  ASSERT_TRUE((*made)->AddUnfiltered(
      {.url = "http://c/", .host = "c", .depth = 2, .metadata = "meta"}));
  ASSERT_TRUE((*made)->Checkpoint(root_ / "ckpt").ok());
  made->reset();
  absl::StatusOr<std::unique_ptr<Frontier>> r =
      Frontier::Restore(root_ / "ckpt", Options());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE((*r)->Add("http://c/", "c", 0));
  NextUrl n = (*r)->Next(kStart);
  ASSERT_EQ(n.state, NextUrl::kReady);
  EXPECT_EQ(n.url.url, "http://c/");
  EXPECT_EQ(n.url.depth, 2u);
  EXPECT_EQ(n.url.metadata, "meta");
}

}  // namespace
}  // namespace sieve
