// Idle hosts are parked (frontier/internal/host_table.h): their full state
// goes, their page count and robots.txt Crawl-delay stay, and come back when
// the host has URLs again, also across a checkpoint. Fake clock; nothing
// sleeps.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "frontier/frontier.h"
#include "frontier/internal/host_table.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"

namespace sieve {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

FrontierOptions Options() {
  FrontierOptions options;
  options.sieve.expected_urls = 10'000;
  options.sieve.fp_rate = 1e-6;
  options.politeness.min_delay = absl::ZeroDuration();
  return options;
}

std::unique_ptr<Frontier> Make(const FrontierOptions& options) {
  absl::StatusOr<std::unique_ptr<Frontier>> f = Frontier::Create(options);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? std::move(*f) : nullptr;
}

// Fetches the next URL at `now` and reports it done; its URL, or "" if none
// was ready.
std::string FetchOne(Frontier& f, absl::Time now) {
  NextUrl next = f.Next(now);
  if (next.state != NextUrl::kReady) return "";
  EXPECT_TRUE(
      f.Done(next.url.url, FetchOutcome::Success(absl::Milliseconds(1)), now)
          .ok());
  return next.url.url;
}

TEST(FrontierParkedHostsTest, AParkedHostKeepsItsPageCount) {
  FrontierOptions options = Options();
  options.max_urls_per_host = 2;
  std::unique_ptr<Frontier> f = Make(options);
  ASSERT_NE(f, nullptr);
  f->Add("http://a.example/1", "a.example", 0);
  f->Add("http://a.example/2", "a.example", 0);
  EXPECT_EQ(FetchOne(*f, kStart), "http://a.example/1");
  EXPECT_EQ(FetchOne(*f, kStart), "http://a.example/2");
  // Idle and past its delay: the next Next parks it.
  EXPECT_EQ(f->Next(kStart + absl::Seconds(1)).state, NextUrl::kEmpty);
  EXPECT_EQ(f->stats().hosts_known, 1u);

  f->Add("http://a.example/3", "a.example", 0);
  EXPECT_EQ(FetchOne(*f, kStart + absl::Seconds(2)), "")
      << "the page cap was forgotten with the host";
  EXPECT_EQ(f->stats().dropped_urls, 1u);
}

TEST(FrontierParkedHostsTest, AParkedHostKeepsItsCrawlDelay) {
  std::unique_ptr<Frontier> f = Make(Options());
  ASSERT_NE(f, nullptr);
  f->SetCrawlDelay("a.example", absl::Seconds(10));
  f->Add("http://a.example/1", "a.example", 0);
  EXPECT_EQ(FetchOne(*f, kStart), "http://a.example/1");
  // Past the delay and idle: parked.
  const absl::Time later = kStart + absl::Seconds(60);
  EXPECT_EQ(f->Next(later).state, NextUrl::kEmpty);

  f->Add("http://a.example/2", "a.example", 0);
  f->Add("http://a.example/3", "a.example", 0);
  EXPECT_EQ(FetchOne(*f, later), "http://a.example/2");
  NextUrl next = f->Next(later + absl::Seconds(1));
  ASSERT_EQ(next.state, NextUrl::kWait);
  EXPECT_EQ(next.wait, absl::Seconds(9));
}

TEST(FrontierParkedHostsTest, ACheckpointKeepsParkedHosts) {
  const test::ScopedTempDir scratch;
  const std::string dir = (scratch / "checkpoint").string();
  FrontierOptions options = Options();
  options.max_urls_per_host = 3;
  options.sieve.work_dir = scratch / "work";
  {
    std::unique_ptr<Frontier> f = Make(options);
    ASSERT_NE(f, nullptr);
    f->SetCrawlDelay("b.example", absl::Seconds(5));
    for (const char* url :
         {"http://a.example/1", "http://a.example/2", "http://a.example/3"}) {
      f->Add(url, "a.example", 0);
    }
    f->Add("http://b.example/1", "b.example", 0);
    for (int i = 0; i < 4; ++i) EXPECT_NE(FetchOne(*f, kStart), "") << i;
    EXPECT_EQ(f->Next(kStart + absl::Seconds(60)).state, NextUrl::kEmpty);
    ASSERT_TRUE(f->Checkpoint(std::filesystem::path(dir)).ok());
  }
  absl::StatusOr<std::unique_ptr<Frontier>> restored =
      Frontier::Restore(std::filesystem::path(dir), options);
  ASSERT_TRUE(restored.ok()) << restored.status();
  Frontier& f = **restored;
  EXPECT_EQ(f.stats().hosts_known, 2u);
  const absl::Time later = kStart + absl::Seconds(120);
  // a.example is at its cap of 3 pages.
  f.Add("http://a.example/4", "a.example", 0);
  EXPECT_EQ(FetchOne(f, later), "");
  // b.example still has its Crawl-delay.
  f.Add("http://b.example/2", "b.example", 0);
  f.Add("http://b.example/3", "b.example", 0);
  EXPECT_EQ(FetchOne(f, later), "http://b.example/2");
  NextUrl next = f.Next(later + absl::Seconds(1));
  ASSERT_EQ(next.state, NextUrl::kWait);
  EXPECT_EQ(next.wait, absl::Seconds(4));
}

// 1,000 hosts whose second URL waits out a 1 s delay: without the host
// budget every host would be pulled in and held at once.
TEST(FrontierHostBudgetTest, ActiveHostsAreHeldToTheMemoryBudget) {
  FrontierOptions options = Options();
  options.politeness.min_delay = absl::Seconds(1);
  options.host_queue_memory_bytes = 64 * kHostStateBytes;
  std::unique_ptr<Frontier> f = Make(options);
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 1000; ++i) {
    const std::string host = "h" + std::to_string(i) + ".example";
    f->Add("http://" + host + "/a", host, 0);
    f->Add("http://" + host + "/b", host, 0);
  }
  absl::Time now = kStart;
  uint64_t fetched = 0;
  uint64_t most_active = 0;
  for (int step = 0; step < 100'000; ++step) {
    NextUrl next = f->Next(now);
    most_active = std::max(most_active, f->stats().hosts_active);
    if (next.state == NextUrl::kEmpty) break;
    ASSERT_NE(next.state, NextUrl::kWaitForDone) << "stalled at " << fetched;
    if (next.state == NextUrl::kWait) {
      now += next.wait;
      continue;
    }
    ASSERT_TRUE(
        f->Done(next.url.url, FetchOutcome::Success(absl::Milliseconds(1)), now)
            .ok());
    ++fetched;
  }
  EXPECT_EQ(fetched, 2000u);
  EXPECT_LE(most_active, 65u);
  EXPECT_GT(f->stats().budget_stalls, 0u);
}

}  // namespace
}  // namespace sieve
