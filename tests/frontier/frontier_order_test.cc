// Order and bookkeeping of the Frontier: breadth-first (the Sieve's FIFO)
// across hosts when no politeness rule intervenes, dedup through the Sieve,
// depth and metadata carried, the host-queue memory budget, the end of the
// crawl, and the counters.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "frontier/frontier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

using ::testing::ElementsAreArray;

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

std::unique_ptr<Frontier> MakeFrontier(PolitenessOptions politeness,
                                       uint64_t host_queue_bytes = uint64_t{64}
                                                                   << 20) {
  absl::StatusOr<std::unique_ptr<Frontier>> f =
      Frontier::Create({.sieve = {.expected_urls = 100'000, .fp_rate = 1e-6},
                        .politeness = politeness,
                        .host_queue_memory_bytes = host_queue_bytes});
  EXPECT_TRUE(f.ok()) << f.status();
  return std::move(*f);
}

// URLs of `hosts` hosts, interleaved irregularly (host i*i % hosts), as a
// crawler would add them.
std::vector<std::pair<std::string, std::string>> MixedUrls(int count,
                                                           int hosts) {
  std::vector<std::pair<std::string, std::string>> urls;
  for (int i = 0; i < count; ++i) {
    const std::string host =
        absl::StrCat("h", (i * i + i / 3) % hosts, ".example");
    urls.emplace_back(absl::StrCat("http://", host, "/p", i), host);
  }
  return urls;
}

TEST(FrontierOrderTest,
     IsBreadthFirstAcrossHostsWhenPolitenessAllowsEverything) {
  std::unique_ptr<Frontier> f = MakeFrontier(
      {.min_delay = absl::ZeroDuration(), .max_in_flight_per_host = 1000});
  std::vector<std::string> added;
  for (const auto& [url, host] : MixedUrls(500, 7)) {
    ASSERT_TRUE(f->Add(url, host, 0));
    added.push_back(url);
  }
  std::vector<std::string> served;
  for (NextUrl n = f->Next(kStart); n.state == NextUrl::kReady;
       n = f->Next(kStart)) {
    served.push_back(n.url.url);
  }
  EXPECT_THAT(served, ElementsAreArray(added));
}

TEST(FrontierOrderTest, StaysFifoWhenEachHostTakesOneRequestAtATime) {
  std::unique_ptr<Frontier> f =
      MakeFrontier({.min_delay = absl::ZeroDuration()});
  std::vector<std::string> added;
  for (const auto& [url, host] : MixedUrls(300, 5)) {
    ASSERT_TRUE(f->Add(url, host, 0));
    added.push_back(url);
  }
  // Every fetch ends before the next Next: the only constraint left is one per
  // host at a time.
  std::vector<std::string> served;
  for (NextUrl n = f->Next(kStart); n.state == NextUrl::kReady;
       n = f->Next(kStart)) {
    served.push_back(n.url.url);
    ASSERT_TRUE(
        f->Done(n.url.url, FetchOutcome::Success(absl::Milliseconds(1)), kStart)
            .ok());
  }
  EXPECT_THAT(served, ElementsAreArray(added));
}

TEST(FrontierOrderTest, ServesTheOldestReadyHostFirst) {
  std::unique_ptr<Frontier> f = MakeFrontier({.min_delay = absl::Seconds(1)});
  // a, b, c are fetched at t=0; their second URLs were added in the order c, b,
  // a, so when all three become ready together at t=1 s, the oldest head goes
  // first: c, b, a (not host order).
  for (const char* url : {"http://a/1", "http://b/1", "http://c/1",
                          "http://c/2", "http://b/2", "http://a/2"}) {
    ASSERT_TRUE(f->Add(url, std::string(url).substr(7, 1), 0));
  }
  std::vector<std::string> served;
  absl::Time now = kStart;
  for (int i = 0; i < 20 && served.size() < 6; ++i) {
    NextUrl n = f->Next(now);
    if (n.state == NextUrl::kReady) {
      served.push_back(n.url.url);
      ASSERT_TRUE(
          f->Done(n.url.url, FetchOutcome::Success(absl::Milliseconds(1)), now)
              .ok());
    } else {
      ASSERT_EQ(n.state, NextUrl::kWait);
      now += n.wait;
    }
  }
  EXPECT_THAT(served,
              ElementsAreArray({"http://a/1", "http://b/1", "http://c/1",
                                "http://c/2", "http://b/2", "http://a/2"}));
  EXPECT_EQ(
      now, kStart + absl::Seconds(1));  // No slot idled while a host was ready.
}

TEST(FrontierOrderTest, PeekNextShowsWhatNextHandsOutAndLeavesItQueued) {
  std::unique_ptr<Frontier> f = MakeFrontier({.min_delay = absl::Seconds(1)});
  EXPECT_EQ(f->PeekNext(kStart).state, NextUrl::kEmpty);
  for (const char* url : {"http://a/1", "http://b/1", "http://a/2"})
    ASSERT_TRUE(f->Add(url, std::string(url).substr(7, 1), 0));
  EXPECT_EQ(f->PeekNext(kStart).url.url, "http://a/1");
  EXPECT_EQ(f->PeekNext(kStart).url.url, "http://a/1");  // Still queued.
  EXPECT_EQ(f->stats().dispatched, 0u);
  EXPECT_EQ(f->Next(kStart).url.url, "http://a/1");
  ASSERT_TRUE(f->Done("http://a/1",
                      FetchOutcome::Success(absl::Milliseconds(1)), kStart)
                  .ok());
  EXPECT_EQ(f->PeekNext(kStart).url.url, "http://b/1");
  EXPECT_EQ(f->Next(kStart).url.url, "http://b/1");
  // a/2 waits for a's delay: Peek says how long, as Next would.
  NextUrl peek = f->PeekNext(kStart);
  EXPECT_EQ(peek.state, NextUrl::kWait);
  EXPECT_EQ(peek.wait, absl::Seconds(1));
  peek = f->PeekNext(kStart + absl::Seconds(1));
  EXPECT_EQ(peek.state, NextUrl::kReady);
  EXPECT_EQ(peek.url.url, "http://a/2");
  EXPECT_EQ(peek.url.host, "a");
}

TEST(FrontierOrderTest, DropsDuplicatesAndCarriesDepthAndMetadata) {
  std::unique_ptr<Frontier> f =
      MakeFrontier({.min_delay = absl::ZeroDuration()});
  EXPECT_TRUE(f->Add("http://a/x", "a", 3, "from=http://a/"));
  EXPECT_FALSE(f->Add("http://a/x", "a", 4, "again"));
  NextUrl n = f->Next(kStart);
  ASSERT_EQ(n.state, NextUrl::kReady);
  EXPECT_EQ(n.url.url, "http://a/x");
  EXPECT_EQ(n.url.host, "a");
  EXPECT_EQ(n.url.depth, 3u);
  EXPECT_EQ(n.url.metadata, "from=http://a/");
  EXPECT_EQ(f->Next(kStart).state,
            NextUrl::kWaitForDone);  // One in flight, nothing queued.
  ASSERT_TRUE(f->Done("http://a/x", FetchOutcome::Error(), kStart).ok());
  EXPECT_EQ(f->Next(kStart).state, NextUrl::kEmpty);
  EXPECT_FALSE(
      f->Add("http://a/x", "a", 0));  // Seen stays seen after the fetch.
  EXPECT_TRUE(absl::IsNotFound(
      f->Done("http://a/x", FetchOutcome::Error(), kStart).status()));
}

TEST(FrontierOrderTest, CountsWhatTheProgressLineShows) {
  std::unique_ptr<Frontier> f = MakeFrontier({.min_delay = absl::Seconds(1)});
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(f->Add(absl::StrCat("http://a/", i), "a", 0));
    ASSERT_TRUE(f->Add(absl::StrCat("http://b/", i), "b", 0));
  }
  ASSERT_FALSE(f->Add("http://a/0", "a", 0));
  NextUrl a = f->Next(kStart);
  NextUrl b = f->Next(kStart);
  ASSERT_EQ(a.state, NextUrl::kReady);
  ASSERT_EQ(b.state, NextUrl::kReady);
  EXPECT_EQ(f->stats().hosts_active, 2u);
  ASSERT_TRUE(
      f->Done(a.url.url, FetchOutcome::Success(absl::Milliseconds(3)), kStart)
          .ok());
  FrontierStats s = f->stats();
  EXPECT_EQ(s.added, 8u);
  EXPECT_EQ(s.duplicates, 1u);
  EXPECT_EQ(s.queued, 6u);
  EXPECT_EQ(s.queued_in_sieve + s.queued_in_hosts, 6u);
  EXPECT_EQ(s.in_flight, 1u);
  EXPECT_EQ(s.hosts_active, 1u);  // a's other URLs are still in the Sieve.
  EXPECT_EQ(s.dispatched, 2u);
  EXPECT_EQ(s.done, 1u);
  EXPECT_EQ(s.succeeded, 1u);
}

TEST(FrontierOrderTest, PullsFromTheSieveOnlyAsNeeded) {
  std::unique_ptr<Frontier> f =
      MakeFrontier({.min_delay = absl::ZeroDuration()});
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(
        f->Add(absl::StrCat("http://h", i, "/"), absl::StrCat("h", i), 0));
  }
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(f->Next(kStart).state, NextUrl::kReady);
  // Each Next found a ready host after one pull: the rest still waits in the
  // Sieve.
  EXPECT_EQ(f->stats().queued_in_sieve, 990u);
  EXPECT_EQ(f->stats().queued_in_hosts, 0u);
}

TEST(FrontierOrderTest, HostQueuesStayWithinTheirMemoryBudget) {
  constexpr uint64_t kBudget = 16 << 10;
  absl::StatusOr<std::unique_ptr<Frontier>> made =
      Frontier::Create({.sieve = {.expected_urls = 100'000, .fp_rate = 1e-6},
                        .politeness = {.min_delay = absl::Seconds(1)},
                        .host_queue_memory_bytes = kBudget,
                        .max_pulls_past_budget = 1000});
  ASSERT_TRUE(made.ok()) << made.status();
  Frontier& f = **made;
  // One host with many URLs: everything pulled for it must wait, so Next would
  // pull the whole Sieve looking for a ready host if nothing stopped it.
  for (int i = 0; i < 5000; ++i) {
    ASSERT_TRUE(f.Add(absl::StrCat("http://a/", i), "a", 0));
  }
  ASSERT_EQ(f.Next(kStart).state, NextUrl::kReady);
  EXPECT_EQ(f.Next(kStart).state, NextUrl::kWaitForDone);
  FrontierStats s = f.stats();
  EXPECT_LE(s.host_queue_bytes, kBudget + 200);  // One record past, at most.
  EXPECT_EQ(s.queued_on_disk_hosts, 1000u);      // The pulls past the budget.
  EXPECT_GT(s.queued_in_sieve, 3000u);           // The bulk stays in the Sieve.
  EXPECT_EQ(s.budget_stalls, 1u);
  EXPECT_EQ(s.queued, 4999u);
}

TEST(FrontierOrderTest, PassesTheSievesCapacityWarningOn) {
  absl::StatusOr<std::unique_ptr<Frontier>> made =
      Frontier::Create({.sieve = {.expected_urls = 100, .fp_rate = 0.01}});
  ASSERT_TRUE(made.ok()) << made.status();
  int warnings = 0;
  double count_at_warning = 0;
  (*made)->OnCapacityExceeded([&](const CapacityEvent& e) {
    ++warnings;
    count_at_warning = e.estimated_count;
  });
  for (int i = 0; i < 150; ++i) {
    (*made)->Add(absl::StrCat("http://h/", i), "h", 0);
  }
  EXPECT_EQ(warnings, 1);
  EXPECT_GT(count_at_warning, 100);
  EXPECT_EQ((*made)->sieve_stats().filter_capacity, 100u);
}

TEST(FrontierOrderTest, ForgetsIdleHostsButKeepsTheirCrawlDelays) {
  std::unique_ptr<Frontier> f =
      MakeFrontier({.min_delay = absl::Seconds(1), .max_throttle_retries = 0});
  f->SetCrawlDelay("h0", absl::Seconds(2));
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(
        f->Add(absl::StrCat("http://h", i, "/"), absl::StrCat("h", i), 0));
  }
  for (NextUrl n = f->Next(kStart); n.state == NextUrl::kReady;
       n = f->Next(kStart)) {
    // h1 (second to go idle) is throttled for 5 hours: it must not hold back
    // forgetting the hosts that went idle after it.
    const FetchOutcome outcome = n.url.host == "h1"
                                     ? FetchOutcome::Throttled(absl::Hours(5))
                                     : FetchOutcome::Success(absl::Seconds(1));
    ASSERT_TRUE(f->Done(n.url.url, outcome, kStart).ok());
  }
  EXPECT_EQ(f->stats().hosts_known, 100u);
  EXPECT_EQ(f->Next(kStart + absl::Seconds(3)).state, NextUrl::kEmpty);
  // Kept: h0 (its Crawl-delay) and h1 (its back-off).
  EXPECT_EQ(f->stats().hosts_known, 2u);
  EXPECT_EQ(f->stats().hosts_active, 0u);
}

TEST(FrontierOrderTest, ReportsEmptyOnlyWhenNothingIsQueuedOrInFlight) {
  std::unique_ptr<Frontier> f = MakeFrontier({});
  EXPECT_EQ(f->Next(kStart).state, NextUrl::kEmpty);
  ASSERT_TRUE(f->Add("http://a/", "a", 0));
  NextUrl n = f->Next(kStart);
  ASSERT_EQ(n.state, NextUrl::kReady);
  EXPECT_EQ(f->Next(kStart).state, NextUrl::kWaitForDone);
  ASSERT_TRUE(
      f->Done(n.url.url, FetchOutcome::Success(absl::Seconds(1)), kStart).ok());
  EXPECT_EQ(f->Next(kStart).state, NextUrl::kEmpty);
}

TEST(FrontierOrderTest, RejectsBadOptions) {
  EXPECT_FALSE(
      Frontier::Create({.politeness = {.max_in_flight_per_host = 0}}).ok());
  EXPECT_FALSE(
      Frontier::Create({.politeness = {.backoff_base = absl::ZeroDuration()}})
          .ok());
  EXPECT_FALSE(
      Frontier::Create({.politeness = {.adaptive_delay_multiple = -1}}).ok());
  EXPECT_FALSE(Frontier::Create({.host_queue_memory_bytes = 0}).ok());
  EXPECT_FALSE(Frontier::Create({.sieve = {.fp_rate = 2}}).ok());
  EXPECT_FALSE(Frontier::Create({.lease_timeout = absl::Seconds(-1)}).ok());
}

// Hands out and finishes every ready URL at `now`; returns them in order.
std::vector<std::string> DrainReady(Frontier& f, absl::Time now) {
  std::vector<std::string> urls;
  for (NextUrl n = f.Next(now); n.state == NextUrl::kReady; n = f.Next(now)) {
    urls.push_back(n.url.url);
    EXPECT_TRUE(
        f.Done(n.url.url, FetchOutcome::Success(absl::ZeroDuration()), now)
            .ok());
  }
  return urls;
}

// Scrapy's dont_filter: AddUnfiltered queues a URL seen before, and marks a
// new one seen.
TEST(FrontierOrderTest, AddUnfilteredQueuesASeenUrlAndMarksANewOneSeen) {
  std::unique_ptr<Frontier> f =
      MakeFrontier({.min_delay = absl::ZeroDuration()});
  ASSERT_TRUE(f->Add("http://a/", "a", 0));
  EXPECT_FALSE(f->Add("http://a/", "a", 0));
  EXPECT_TRUE(f->AddUnfiltered({.url = "http://a/", .host = "a"}));
  EXPECT_TRUE(f->AddUnfiltered({.url = "http://b/", .host = "b"}));
  EXPECT_FALSE(f->Add("http://b/", "b", 0));
  EXPECT_THAT(DrainReady(*f, kStart),
              ElementsAreArray({"http://a/", "http://a/", "http://b/"}));
  EXPECT_EQ(f->stats().added, 3u);
}

// Scrapy dedups on a request fingerprint, not the URL.
TEST(FrontierOrderTest, DedupsOnTheDedupKeyWhenOneIsGiven) {
  std::unique_ptr<Frontier> f =
      MakeFrontier({.min_delay = absl::ZeroDuration()});
  EXPECT_TRUE(f->Add({.url = "http://a/x", .host = "a", .dedup_key = "k1"}));
  // Same key, another URL: a duplicate. Same URL, another key: not one.
  EXPECT_FALSE(f->Add({.url = "http://a/y", .host = "a", .dedup_key = "k1"}));
  EXPECT_TRUE(f->Add({.url = "http://a/x", .host = "a", .dedup_key = "k2"}));
  // The URL itself was never a key.
  EXPECT_TRUE(f->Add("http://a/x", "a", 0));
  const FrontierAdd many[] = {
      {.url = "http://b/1", .host = "b", .dedup_key = "k1"},
      {.url = "http://b/2", .host = "b", .dedup_key = "k3"},
      {.url = "http://b/3", .host = "b", .dedup_key = "k3"}};
  bool queued[3];
  f->AddMany(many, queued);
  EXPECT_THAT(queued, ElementsAreArray({false, true, false}));
  // dont_filter marks the key seen, not the URL.
  EXPECT_TRUE(
      f->AddUnfiltered({.url = "http://a/z", .host = "a", .dedup_key = "k4"}));
  EXPECT_FALSE(f->Add({.url = "http://c/", .host = "c", .dedup_key = "k4"}));
  EXPECT_TRUE(f->Add("http://a/z", "a", 0));
  EXPECT_THAT(DrainReady(*f, kStart),
              ElementsAreArray({"http://a/x", "http://a/x", "http://a/x",
                                "http://b/2", "http://a/z", "http://a/z"}));
}

// A caller that never reports Done blocks the host only until the lease runs
// out; the URL comes back, and a late Done is NotFound.
TEST(FrontierOrderTest, PutsBackAUrlWhoseLeaseRanOut) {
  absl::StatusOr<std::unique_ptr<Frontier>> made =
      Frontier::Create({.politeness = {.min_delay = absl::Seconds(1)},
                        .lease_timeout = absl::Seconds(60)});
  ASSERT_TRUE(made.ok()) << made.status();
  Frontier& f = **made;
  ASSERT_TRUE(f.Add("http://a/1", "a", 0));
  ASSERT_TRUE(f.Add("http://a/2", "a", 0));
  NextUrl n = f.Next(kStart);
  ASSERT_EQ(n.state, NextUrl::kReady);
  EXPECT_EQ(n.url.url, "http://a/1");
  // In flight: the host waits, and Next says when the lease runs out.
  n = f.Next(kStart + absl::Seconds(30));
  ASSERT_EQ(n.state, NextUrl::kWait);
  EXPECT_EQ(n.wait, absl::Seconds(30));
  // Lease over: a/1 is queued again at the head, after the host's delay.
  EXPECT_EQ(f.Next(kStart + absl::Seconds(60)).state, NextUrl::kWait);
  n = f.Next(kStart + absl::Seconds(61));
  ASSERT_EQ(n.state, NextUrl::kReady);
  EXPECT_EQ(n.url.url, "http://a/1");
  EXPECT_EQ(f.stats().reclaimed, 1u);
  EXPECT_TRUE(f.Done("http://a/1", FetchOutcome::Success(absl::ZeroDuration()),
                     kStart + absl::Seconds(62))
                  .ok());
  EXPECT_TRUE(absl::IsNotFound(
      f.Done("http://a/1", FetchOutcome::Success(absl::ZeroDuration()),
             kStart + absl::Seconds(62))
          .status()));
  n = f.Next(kStart + absl::Seconds(63));
  ASSERT_EQ(n.state, NextUrl::kReady);
  EXPECT_EQ(n.url.url, "http://a/2");
}

TEST(FrontierOrderTest, KeepsAUrlInFlightUntilDoneWithoutALease) {
  std::unique_ptr<Frontier> f =
      MakeFrontier({.min_delay = absl::ZeroDuration()});
  ASSERT_TRUE(f->Add("http://a/1", "a", 0));
  ASSERT_EQ(f->Next(kStart).state, NextUrl::kReady);
  EXPECT_EQ(f->Next(kStart + absl::Hours(24 * 365)).state,
            NextUrl::kWaitForDone);
}

}  // namespace
}  // namespace sieve
