// The Frontier's host-queue budget: past it, URLs wait in per-host queues on
// disk (frontier/internal/host_overflow.h), so one huge host that must wait
// neither fills RAM nor hides other hosts' URLs; they come back in order and
// survive a checkpoint.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "frontier/frontier.h"
#include "frontier/internal/host_overflow.h"
#include "frontier/internal/scratch_db.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);
constexpr uint64_t kBudget = 16 << 10;  // About 130 URL records.

class FrontierOverflowTest : public ::testing::Test {
 protected:
  FrontierOverflowTest() { fs::create_directories(root_ / "work"); }

  FrontierOptions Options() const {
    return {.sieve = {.expected_urls = 100'000,
                      .fp_rate = 1e-6,
                      .work_dir = root_ / "work"},
            .politeness = {.min_delay = absl::Seconds(1)},
            .host_queue_memory_bytes = kBudget,
            .max_pulls_past_budget = 100'000};
  }

  const test::ScopedTempDir root_;
};

// Completes each URL at once, jumping the clock over waits; returns the URLs.
std::vector<std::string> Drain(Frontier& f, absl::Time now) {
  std::vector<std::string> out;
  for (int guard = 0; guard < 100'000; ++guard) {
    NextUrl next = f.Next(now);
    if (next.state == NextUrl::kEmpty) return out;
    if (next.state == NextUrl::kWait) {
      now += next.wait;
      continue;
    }
    EXPECT_EQ(next.state, NextUrl::kReady);
    if (next.state != NextUrl::kReady) return out;
    out.push_back(next.url.url);
    EXPECT_TRUE(
        f.Done(next.url.url, FetchOutcome::Success(absl::Milliseconds(1)), now)
            .ok());
  }
  ADD_FAILURE() << "did not drain";
  return out;
}

TEST(HostOverflowTest, KeepsEachHostsRecordsInOrder) {
  const test::ScopedTempDir scratch;
  const fs::path dir = scratch / "store";
  {
    std::unique_ptr<internal::ScratchDb> store;
    HostOverflow overflow([&]() -> absl::StatusOr<internal::ScratchDb*> {
      if (store == nullptr) {
        absl::StatusOr<std::unique_ptr<internal::ScratchDb>> opened =
            internal::ScratchDb::Open(dir, /*seed=*/{});
        if (!opened.ok()) return opened.status();
        store = *std::move(opened);
      }
      return store.get();
    });
    for (uint64_t seq = 1; seq <= 10; ++seq) {
      const uint64_t host = seq % 2 + 1;
      ASSERT_TRUE(overflow
                      .Append(host, QueuedUrl{.url = absl::StrCat("u", seq),
                                              .metadata = "m",
                                              .depth = 2,
                                              .seq = seq})
                      .ok());
    }
    EXPECT_EQ(overflow.size(), 10u);
    absl::StatusOr<std::vector<QueuedUrl>> first = overflow.TakeFront(1, 3);
    ASSERT_TRUE(first.ok()) << first.status();
    ASSERT_EQ(first->size(), 3u);
    EXPECT_EQ((*first)[0].url, "u2");
    EXPECT_EQ((*first)[2].url, "u6");
    EXPECT_EQ((*first)[2].depth, 2u);
    EXPECT_EQ((*first)[2].metadata, "m");
    ASSERT_TRUE(overflow.Clear(2, 5).ok());
    EXPECT_EQ(overflow.size(), 2u);
    absl::StatusOr<std::vector<QueuedUrl>> rest = overflow.TakeFront(1, 100);
    ASSERT_TRUE(rest.ok());
    ASSERT_EQ(rest->size(), 2u);
    EXPECT_EQ((*rest)[0].url, "u8");
    EXPECT_TRUE(overflow.TakeFront(2, 100)->empty());
    EXPECT_EQ(overflow.size(), 0u);
  }
  EXPECT_TRUE(fs::is_empty(dir)) << "the scratch store is deleted with it";
}

TEST_F(FrontierOverflowTest, AHugeWaitingHostNeitherFillsRamNorHidesOthers) {
  absl::StatusOr<std::unique_ptr<Frontier>> made = Frontier::Create(Options());
  ASSERT_TRUE(made.ok()) << made.status();
  Frontier& f = **made;
  constexpr int kBig = 3000;
  for (int i = 0; i < kBig; ++i) {
    ASSERT_TRUE(f.Add(absl::StrCat("http://big/", i), "big", 0));
  }
  ASSERT_TRUE(f.Add("http://small/0", "small", 0));
  NextUrl first = f.Next(kStart);
  ASSERT_EQ(first.state, NextUrl::kReady);
  EXPECT_EQ(first.url.url, "http://big/0");
  // big must wait 1 s; small's URL sits behind 2999 of big's in the Sieve.
  NextUrl second = f.Next(kStart);
  ASSERT_EQ(second.state, NextUrl::kReady);
  EXPECT_EQ(second.url.url, "http://small/0");
  FrontierStats s = f.stats();
  EXPECT_LE(s.host_queue_bytes, kBudget + 300);
  EXPECT_GT(s.queued_on_disk_hosts, 2000u);
  EXPECT_EQ(s.queued, kBig - 1u);
  EXPECT_EQ(s.hosts_active, 2u);
  const FetchOutcome ok = FetchOutcome::Success(absl::Milliseconds(1));
  ASSERT_TRUE(f.Done(first.url.url, ok, kStart).ok());
  ASSERT_TRUE(f.Done(second.url.url, ok, kStart).ok());
  // big's URLs still come out in FIFO order, one a second.
  std::vector<std::string> rest = Drain(f, kStart);
  ASSERT_EQ(rest.size(), kBig - 1u);
  for (int i = 1; i < kBig; ++i) {
    ASSERT_EQ(rest[i - 1], absl::StrCat("http://big/", i));
  }
  EXPECT_EQ(f.stats().overflow_errors, 0u);
}

TEST_F(FrontierOverflowTest, UrlsOnDiskSurviveACheckpointInOrder) {
  absl::StatusOr<std::unique_ptr<Frontier>> made = Frontier::Create(Options());
  ASSERT_TRUE(made.ok()) << made.status();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE((*made)->Add(absl::StrCat("http://big/", i), "big", 0));
  }
  ASSERT_TRUE((*made)->Add("http://small/0", "small", 0));
  ASSERT_EQ((*made)->Next(kStart).state, NextUrl::kReady);  // big/0
  ASSERT_EQ((*made)->Next(kStart).state, NextUrl::kReady);  // small/0
  ASSERT_GT((*made)->stats().queued_on_disk_hosts, 500u);
  ASSERT_TRUE((*made)->Checkpoint(root_ / "ckpt").ok());
  made->reset();

  absl::StatusOr<std::unique_ptr<Frontier>> restored =
      Frontier::Restore(root_ / "ckpt", Options());
  ASSERT_TRUE(restored.ok()) << restored.status();
  // The two URLs in flight at the checkpoint come back in RAM, past the budget.
  EXPECT_LE((*restored)->stats().host_queue_bytes, kBudget + 600);
  std::vector<std::string> rest = Drain(**restored, kStart);
  // In flight at the checkpoint (big/0, small/0) come back first.
  ASSERT_EQ(rest.size(), 1001u);
  EXPECT_EQ(rest[0], "http://big/0");
  EXPECT_EQ(rest[1], "http://small/0");
  for (int i = 1; i < 1000; ++i) {
    ASSERT_EQ(rest[i + 1], absl::StrCat("http://big/", i));
  }
}

TEST_F(FrontierOverflowTest, DropHostDiscardsItsUrlsOnDiskToo) {
  absl::StatusOr<std::unique_ptr<Frontier>> made = Frontier::Create(Options());
  ASSERT_TRUE(made.ok()) << made.status();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE((*made)->Add(absl::StrCat("http://big/", i), "big", 0));
  }
  ASSERT_TRUE((*made)->Add("http://small/0", "small", 0));
  ASSERT_EQ((*made)->Next(kStart).state, NextUrl::kReady);
  ASSERT_EQ((*made)->Next(kStart).state, NextUrl::kReady);
  EXPECT_EQ((*made)->DropHost("big"), 999u);
  FrontierStats s = (*made)->stats();
  EXPECT_EQ(s.queued, 0u);
  EXPECT_EQ(s.queued_on_disk_hosts, 0u);
  EXPECT_EQ(s.dropped_urls, 999u);
}

}  // namespace
}  // namespace sieve
