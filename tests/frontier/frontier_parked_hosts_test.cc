// Idle hosts are parked (frontier/internal/host_table.h): their full state
// goes, their page count and robots.txt Crawl-delay stay, and come back when
// the host has URLs again, also across a checkpoint, in RAM or on disk past
// their budget. Fake clock; nothing sleeps.
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

// The crawler defers a host's first URL while it fetches the host's
// robots.txt: with a cap of one page that URL is the one page, not lost.
TEST(FrontierParkedHostsTest, ADeferredURLWithinThePageCapIsStillFetched) {
  FrontierOptions options = Options();
  options.max_urls_per_host = 1;
  std::unique_ptr<Frontier> f = Make(options);
  ASSERT_NE(f, nullptr);
  f->Add("http://a.example/1", "a.example", 0);
  f->Add("http://a.example/2", "a.example", 0);
  NextUrl next = f->Next(kStart);
  ASSERT_EQ(next.state, NextUrl::kReady);
  ASSERT_EQ(next.url.url, "http://a.example/1");
  absl::StatusOr<UrlFate> fate =
      f->Done(next.url.url, FetchOutcome::Deferred(), kStart);
  ASSERT_TRUE(fate.ok()) << fate.status();
  EXPECT_EQ(*fate, UrlFate::kRetryLater);
  EXPECT_EQ(FetchOne(*f, kStart + absl::Seconds(1)), "http://a.example/1");
  EXPECT_EQ(FetchOne(*f, kStart + absl::Seconds(2)), "");
  EXPECT_EQ(f->TakeDiscarded().size(), 1u);  // a.example/2, past the cap.
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

// Issue 36: on a web without end every host finished under a page cap is
// parked (and dropped); past max_parked_hosts_in_memory they go to disk, RAM
// holds at most the budget, and each keeps its cap there, also across a
// checkpoint.
TEST(FrontierParkedHostsTest, ParkedHostsPastTheirBudgetLiveOnDisk) {
  const test::ScopedTempDir scratch;
  FrontierOptions options = Options();
  options.max_urls_per_host = 1;
  options.max_parked_hosts_in_memory = 16;
  options.sieve.work_dir = scratch / "work";
  constexpr int kHosts = 200;
  auto host = [](int i) { return "h" + std::to_string(i) + ".example"; };
  std::unique_ptr<Frontier> f = Make(options);
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < kHosts; ++i) {
    f->Add("http://" + host(i) + "/1", host(i), 0);
  }
  absl::Time now = kStart;
  for (int i = 0; i < kHosts; ++i) {
    ASSERT_NE(FetchOne(*f, now), "") << i;
    now += absl::Milliseconds(10);
    EXPECT_LE(f->stats().hosts_parked, 16u) << i;
  }
  EXPECT_EQ(f->Next(now + absl::Seconds(1)).state, NextUrl::kEmpty);
  FrontierStats stats = f->stats();
  EXPECT_LE(stats.hosts_parked, 16u);
  EXPECT_GE(stats.hosts_parked_on_disk, kHosts - 16u);
  EXPECT_EQ(stats.hosts_known, static_cast<uint64_t>(kHosts));
  ASSERT_TRUE(f->status().ok()) << f->status();
  for (int i = 0; i < kHosts; ++i) EXPECT_TRUE(f->IsDropped(host(i))) << i;
  EXPECT_FALSE(f->IsDropped("new.example"));

  // Every host is at its cap: a second page of each is discarded, wherever
  // its host was parked.
  for (int i = 0; i < kHosts; ++i) {
    f->Add("http://" + host(i) + "/2", host(i), 0);
  }
  f->Add("http://new.example/1", "new.example", 0);
  EXPECT_EQ(FetchOne(*f, now + absl::Seconds(2)), "http://new.example/1");
  EXPECT_EQ(FetchOne(*f, now + absl::Seconds(3)), "");
  EXPECT_EQ(f->TakeDiscarded().size(), static_cast<size_t>(kHosts));

  const std::string dir = (scratch / "checkpoint").string();
  ASSERT_TRUE(f->Checkpoint(std::filesystem::path(dir)).ok());
  f.reset();
  absl::StatusOr<std::unique_ptr<Frontier>> restored =
      Frontier::Restore(std::filesystem::path(dir), options);
  ASSERT_TRUE(restored.ok()) << restored.status();
  Frontier& back = **restored;
  EXPECT_EQ(back.stats().hosts_known, kHosts + 1u);
  for (int i = 0; i < kHosts; ++i) {
    back.Add("http://" + host(i) + "/3", host(i), 0);
  }
  back.Add("http://other.example/1", "other.example", 0);
  const absl::Time later = now + absl::Seconds(10);
  EXPECT_EQ(FetchOne(back, later), "http://other.example/1");
  EXPECT_EQ(FetchOne(back, later + absl::Seconds(1)), "");
  EXPECT_TRUE(back.status().ok()) << back.status();
}

// A dropped host brought back from disk (by any call that needs its state,
// here a robots.txt Crawl-delay) is still dropped while it is in RAM.
TEST(FrontierParkedHostsTest, ADroppedHostBroughtBackFromDiskStaysDropped) {
  const test::ScopedTempDir scratch;
  FrontierOptions options = Options();
  options.max_urls_per_host = 1;
  options.max_parked_hosts_in_memory = 4;
  options.sieve.work_dir = scratch / "work";
  constexpr int kHosts = 40;
  auto host = [](int i) { return "x" + std::to_string(i) + ".example"; };
  std::unique_ptr<Frontier> f = Make(options);
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < kHosts; ++i) {
    f->Add("http://" + host(i) + "/1", host(i), 0);
  }
  absl::Time now = kStart;
  for (int i = 0; i < kHosts; ++i) {
    ASSERT_NE(FetchOne(*f, now), "") << i;
    now += absl::Milliseconds(10);
  }
  EXPECT_EQ(f->Next(now + absl::Seconds(1)).state, NextUrl::kEmpty);
  ASSERT_GE(f->stats().hosts_parked_on_disk, kHosts - 4u);
  for (int i = 0; i < kHosts; ++i) {
    f->SetCrawlDelay(host(i), absl::Seconds(1));
    EXPECT_TRUE(f->IsDropped(host(i))) << i;
  }
  EXPECT_EQ(f->stats().hosts_parked_on_disk, 0u);
}

// A robots.txt Crawl-delay is kept on disk as in RAM.
TEST(FrontierParkedHostsTest, CrawlDelaysOfHostsParkedOnDiskHold) {
  const test::ScopedTempDir scratch;
  FrontierOptions options = Options();
  options.max_parked_hosts_in_memory = 8;
  options.sieve.work_dir = scratch / "work";
  constexpr int kHosts = 100;
  auto host = [](int i) { return "d" + std::to_string(i) + ".example"; };
  std::unique_ptr<Frontier> f = Make(options);
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < kHosts; ++i) {
    f->SetCrawlDelay(host(i), absl::Seconds(10));
    f->Add("http://" + host(i) + "/1", host(i), 0);
  }
  for (int i = 0; i < kHosts; ++i) ASSERT_NE(FetchOne(*f, kStart), "") << i;
  const absl::Time later = kStart + absl::Seconds(60);
  EXPECT_EQ(f->Next(later).state, NextUrl::kEmpty);
  EXPECT_LE(f->stats().hosts_parked, 8u);
  EXPECT_GE(f->stats().hosts_parked_on_disk, kHosts - 8u);

  for (int i = 0; i < kHosts; ++i) {
    f->Add("http://" + host(i) + "/2", host(i), 0);
    f->Add("http://" + host(i) + "/3", host(i), 0);
  }
  for (int i = 0; i < kHosts; ++i) ASSERT_NE(FetchOne(*f, later), "") << i;
  NextUrl next = f->Next(later + absl::Seconds(1));
  ASSERT_EQ(next.state, NextUrl::kWait) << "a host forgot its Crawl-delay";
  EXPECT_EQ(next.wait, absl::Seconds(9));
}

// render.mode = auto's per-host count of renders that added no link stays
// with the host: parked in RAM, on disk, and across a checkpoint.
TEST(FrontierParkedHostsTest, RendersWithoutLinksStayWithTheHost) {
  const test::ScopedTempDir scratch;
  FrontierOptions options = Options();
  options.max_parked_hosts_in_memory = 4;
  options.sieve.work_dir = scratch / "work";
  std::unique_ptr<Frontier> f = Make(options);
  ASSERT_NE(f, nullptr);
  auto host = [](int i) { return "r" + std::to_string(i) + ".example"; };
  for (int i = 0; i < 20; ++i) {
    for (int k = 0; k < i % 4; ++k) f->NoteRender(host(i), false);
  }
  f->NoteRender(host(3), true);  // Links again: the count starts over.
  EXPECT_EQ(f->Next(kStart + absl::Seconds(1)).state, NextUrl::kEmpty);
  EXPECT_GT(f->stats().hosts_parked_on_disk, 0u);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(f->RendersWithoutLinks(host(i)), i == 3 ? 0u : i % 4u) << i;
  }
  EXPECT_EQ(f->Next(kStart + absl::Seconds(2)).state, NextUrl::kEmpty);
  const std::string dir = (scratch / "checkpoint").string();
  ASSERT_TRUE(f->Checkpoint(std::filesystem::path(dir)).ok());
  f.reset();
  absl::StatusOr<std::unique_ptr<Frontier>> restored =
      Frontier::Restore(std::filesystem::path(dir), options);
  ASSERT_TRUE(restored.ok()) << restored.status();
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ((*restored)->RendersWithoutLinks(host(i)), i == 3 ? 0u : i % 4u)
        << i;
  }
}

}  // namespace
}  // namespace sieve
