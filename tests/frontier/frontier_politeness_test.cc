// Politeness of the Frontier under a fake clock: per-host spacing, in-flight
// caps, Crawl-delay (honoured and capped), adaptive delay, and a slow host not
// holding back the others.
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "frontier/frontier.h"
#include "frontier/politeness.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

std::unique_ptr<Frontier> MakeFrontier(PolitenessOptions politeness) {
  absl::StatusOr<std::unique_ptr<Frontier>> f =
      Frontier::Create({.sieve = {.expected_urls = 10'000, .fp_rate = 1e-6},
                        .politeness = politeness});
  EXPECT_TRUE(f.ok()) << f.status();
  return std::move(*f);
}

// A fetch started by the simulated crawl loop.
struct Fetch {
  FrontierUrl url;
  absl::Time start;
};

// Drives `f` like the crawler: `slots` fetch slots, every fetch of a host takes
// response_time[host] (default 100 ms), the clock jumps to the next event.
// Returns every fetch in dispatch order. Stops when the Frontier is empty.
std::vector<Fetch> Crawl(
    Frontier& f, int slots,
    const std::map<std::string, absl::Duration>& response_time = {}) {
  std::vector<Fetch> fetches;
  std::multimap<absl::Time, std::string> running;  // end time -> url
  absl::Time now = kStart;
  for (int guard = 0; guard < 100'000; ++guard) {
    while (!running.empty() && running.begin()->first <= now) {
      EXPECT_TRUE(f.Done(running.begin()->second,
                         FetchOutcome::Success(absl::Milliseconds(100)), now)
                      .ok());
      running.erase(running.begin());
    }
    NextUrl next = NextUrl{.state = NextUrl::kWaitForDone};
    while (static_cast<int>(running.size()) < slots) {
      next = f.Next(now);
      if (next.state != NextUrl::kReady) break;
      auto it = response_time.find(next.url.host);
      const absl::Duration took =
          it == response_time.end() ? absl::Milliseconds(100) : it->second;
      running.emplace(now + took, next.url.url);
      fetches.push_back({next.url, now});
    }
    if (next.state == NextUrl::kEmpty && running.empty()) return fetches;
    absl::Time wake = absl::InfiniteFuture();
    if (next.state == NextUrl::kWait) wake = now + next.wait;
    if (!running.empty()) wake = std::min(wake, running.begin()->first);
    if (static_cast<int>(running.size()) >= slots)
      wake = running.begin()->first;
    EXPECT_NE(wake, absl::InfiniteFuture()) << "stuck at state " << next.state;
    if (wake == absl::InfiniteFuture()) return fetches;
    now = std::max(now, wake);
  }
  ADD_FAILURE() << "crawl did not finish";
  return fetches;
}

std::vector<absl::Time> StartsOf(const std::vector<Fetch>& fetches,
                                 const std::string& host) {
  std::vector<absl::Time> starts;
  for (const Fetch& f : fetches) {
    if (f.url.host == host) starts.push_back(f.start);
  }
  return starts;
}

TEST(PolitenessTest, DelayIsTheLargerOfConfigAndCappedCrawlDelay) {
  const PolitenessOptions opts{.min_delay = absl::Seconds(2),
                               .max_crawl_delay = absl::Seconds(30)};
  HostPoliteness host;
  EXPECT_EQ(DelayBetweenRequests(opts, host), absl::Seconds(2));
  EXPECT_FALSE(RecordCrawlDelay(opts, absl::Seconds(1), host));
  EXPECT_EQ(DelayBetweenRequests(opts, host), absl::Seconds(2));
  EXPECT_FALSE(RecordCrawlDelay(opts, absl::Seconds(7), host));
  EXPECT_EQ(DelayBetweenRequests(opts, host), absl::Seconds(7));
  EXPECT_TRUE(RecordCrawlDelay(opts, absl::Seconds(3600), host));
  EXPECT_TRUE(host.crawl_delay_capped);
  EXPECT_EQ(host.crawl_delay, absl::Seconds(3600));  // Recorded as asked...
  EXPECT_EQ(DelayBetweenRequests(opts, host),
            absl::Seconds(30));  // ...and capped.
}

TEST(PolitenessTest, AdaptiveDelayIsAMultipleOfTheResponseTimeUpToItsCap) {
  PolitenessOptions opts{.adaptive_delay_multiple = 0};
  EXPECT_EQ(AdaptiveDelay(opts, absl::Seconds(3)), absl::ZeroDuration());
  opts.adaptive_delay_multiple = 2.5;
  opts.max_adaptive_delay = absl::Seconds(10);
  EXPECT_EQ(AdaptiveDelay(opts, absl::Seconds(2)), absl::Seconds(5));
  EXPECT_EQ(AdaptiveDelay(opts, absl::Seconds(60)), absl::Seconds(10));
}

TEST(FrontierPolitenessTest, SpacesRequestsByTheDelayAfterEachResponse) {
  std::unique_ptr<Frontier> f = MakeFrontier(
      {.min_delay = absl::Seconds(2), .max_in_flight_per_host = 4});
  for (int i = 0; i < 6; ++i)
    ASSERT_TRUE(f->Add(absl::StrCat("http://a/", i), "a", 0));
  std::vector<absl::Time> starts = StartsOf(Crawl(*f, 8), "a");
  ASSERT_EQ(starts.size(), 6u);
  // Each response takes 100 ms; the next request starts 2 s after it ended.
  for (size_t i = 1; i < starts.size(); ++i) {
    EXPECT_EQ(starts[i] - starts[i - 1],
              absl::Seconds(2) + absl::Milliseconds(100))
        << "request " << i;
  }
}

TEST(FrontierPolitenessTest, NeverExceedsTheInFlightCapOfAHost) {
  std::unique_ptr<Frontier> f = MakeFrontier(
      {.min_delay = absl::ZeroDuration(), .max_in_flight_per_host = 2});
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(f->Add(absl::StrCat("http://a/", i), "a", 0));
  NextUrl first = f->Next(kStart);
  NextUrl second = f->Next(kStart);
  ASSERT_EQ(first.state, NextUrl::kReady);
  ASSERT_EQ(second.state, NextUrl::kReady);
  EXPECT_EQ(f->Next(kStart).state, NextUrl::kWaitForDone);
  EXPECT_EQ(f->Next(kStart + absl::Hours(1)).state,
            NextUrl::kWaitForDone);  // Time alone: no.
  EXPECT_EQ(f->stats().in_flight, 2u);
  ASSERT_TRUE(f->Done(first.url.url,
                      FetchOutcome::Success(absl::Milliseconds(5)), kStart)
                  .ok());
  NextUrl third = f->Next(kStart);
  ASSERT_EQ(third.state, NextUrl::kReady);
  EXPECT_EQ(third.url.url, "http://a/2");
  EXPECT_EQ(f->Next(kStart).state, NextUrl::kWaitForDone);
}

TEST(FrontierPolitenessTest, InFlightCapHoldsThroughAWholeCrawl) {
  std::unique_ptr<Frontier> f = MakeFrontier(
      {.min_delay = absl::Milliseconds(10), .max_in_flight_per_host = 3});
  for (int i = 0; i < 40; ++i)
    ASSERT_TRUE(f->Add(absl::StrCat("http://a/", i), "a", 0));
  // Each fetch takes 1 s, so without the cap 40 would overlap; with it, at most
  // 3 at once.
  std::vector<Fetch> fetches = Crawl(*f, 16, {{"a", absl::Seconds(1)}});
  ASSERT_EQ(fetches.size(), 40u);
  for (const Fetch& x : fetches) {
    int overlapping = 0;
    for (const Fetch& y : fetches) {
      if (y.start <= x.start && x.start < y.start + absl::Seconds(1))
        ++overlapping;
    }
    EXPECT_LE(overlapping, 3) << x.url.url;
  }
}

TEST(FrontierPolitenessTest, ASlowHostDoesNotHoldBackTheOthers) {
  std::unique_ptr<Frontier> f =
      MakeFrontier({.min_delay = absl::Milliseconds(100)});
  f->SetCrawlDelay("slow", absl::Seconds(10));
  // The slow host's URLs come first in the FIFO, so a plain FIFO would serve
  // them first.
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(f->Add(absl::StrCat("http://slow/", i), "slow", 0));
  for (const char* host : {"b", "c", "d"}) {
    for (int i = 0; i < 10; ++i) {
      ASSERT_TRUE(f->Add(absl::StrCat("http://", host, "/", i), host, 0));
    }
  }
  std::vector<Fetch> fetches = Crawl(*f, 4, {{"slow", absl::Seconds(5)}});
  ASSERT_EQ(fetches.size(), 40u);
  for (const char* host : {"b", "c", "d"}) {
    std::vector<absl::Time> starts = StartsOf(fetches, host);
    ASSERT_EQ(starts.size(), 10u);
    // 10 requests, each 100 ms after the previous 100 ms response: done by
    // 2 s, while the slow host has made 1 request.
    EXPECT_LE(starts.back() - kStart, absl::Seconds(2)) << host;
  }
  std::vector<absl::Time> slow = StartsOf(fetches, "slow");
  ASSERT_EQ(slow.size(), 10u);
  // A 5 s response, then the 10 s Crawl-delay from its end.
  for (size_t i = 1; i < slow.size(); ++i)
    EXPECT_EQ(slow[i] - slow[i - 1], absl::Seconds(15));
}

TEST(FrontierPolitenessTest, HonoursCrawlDelayAndCapsItAboveTheLimit) {
  std::unique_ptr<Frontier> f = MakeFrontier(
      {.min_delay = absl::Seconds(1), .max_crawl_delay = absl::Seconds(30)});
  f->SetCrawlDelay("polite", absl::Seconds(5));
  f->SetCrawlDelay("greedy", absl::Seconds(3600));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(f->Add(absl::StrCat("http://polite/", i), "polite", 0));
    ASSERT_TRUE(f->Add(absl::StrCat("http://greedy/", i), "greedy", 0));
  }
  std::vector<Fetch> fetches = Crawl(*f, 2);
  std::vector<absl::Time> polite = StartsOf(fetches, "polite");
  std::vector<absl::Time> greedy = StartsOf(fetches, "greedy");
  ASSERT_EQ(polite.size(), 3u);
  ASSERT_EQ(greedy.size(), 3u);
  // The delay runs from the end of each 100 ms response.
  const absl::Duration response = absl::Milliseconds(100);
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(polite[i] - polite[i - 1], absl::Seconds(5) + response);
    EXPECT_EQ(greedy[i] - greedy[i - 1],
              absl::Seconds(30) + response);  // Capped, not 3600 s.
  }
  EXPECT_EQ(f->stats().crawl_delays_capped, 1u);
  EXPECT_THAT(f->CappedCrawlDelays(),
              ElementsAre(Pair("greedy", absl::Seconds(3600))));
}

TEST(FrontierPolitenessTest, CrawlDelayLearntMidRequestAppliesToTheNextGap) {
  std::unique_ptr<Frontier> f = MakeFrontier({.min_delay = absl::Seconds(1)});
  ASSERT_TRUE(f->Add("http://a/1", "a", 0));
  ASSERT_TRUE(f->Add("http://a/2", "a", 0));
  NextUrl first = f->Next(kStart);
  ASSERT_EQ(first.state, NextUrl::kReady);
  f->SetCrawlDelay("a", absl::Seconds(8));
  ASSERT_TRUE(f->Done(first.url.url,
                      FetchOutcome::Success(absl::Milliseconds(1)), kStart)
                  .ok());
  NextUrl wait = f->Next(kStart + absl::Seconds(2));
  ASSERT_EQ(wait.state, NextUrl::kWait);
  EXPECT_EQ(wait.wait, absl::Seconds(6));
  EXPECT_EQ(f->Next(kStart + absl::Seconds(8)).state, NextUrl::kReady);
}

TEST(FrontierPolitenessTest, AdaptiveDelayWaitsAMultipleOfTheLastResponseTime) {
  std::unique_ptr<Frontier> f = MakeFrontier(
      {.min_delay = absl::Seconds(1), .adaptive_delay_multiple = 2});
  ASSERT_TRUE(f->Add("http://a/1", "a", 0));
  ASSERT_TRUE(f->Add("http://a/2", "a", 0));
  NextUrl first = f->Next(kStart);
  ASSERT_EQ(first.state, NextUrl::kReady);
  const absl::Time done_at = kStart + absl::Seconds(3);
  ASSERT_TRUE(
      f->Done(first.url.url, FetchOutcome::Success(absl::Seconds(3)), done_at)
          .ok());
  NextUrl wait = f->Next(done_at);
  ASSERT_EQ(wait.state, NextUrl::kWait);
  EXPECT_EQ(
      wait.wait,
      absl::Seconds(6));  // 2 x 3 s after the response, not 1 s after start.
  EXPECT_EQ(f->Next(done_at + absl::Seconds(6)).state, NextUrl::kReady);
}

}  // namespace
}  // namespace sieve
