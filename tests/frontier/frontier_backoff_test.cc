// 429/503 handling of the Frontier under a fake clock: back-off that doubles
// per repeat and resets on success, jitter from a seeded generator,
// Retry-After, the throttled URL's retries, and BlockHost/DropHost.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "frontier/frontier.h"
#include "frontier/politeness.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

std::unique_ptr<Frontier> MakeFrontier(PolitenessOptions politeness,
                                       uint64_t seed = 7) {
  absl::StatusOr<std::unique_ptr<Frontier>> f =
      Frontier::Create({.sieve = {.expected_urls = 10'000, .fp_rate = 1e-6},
                        .politeness = politeness,
                        .seed = seed});
  EXPECT_TRUE(f.ok()) << f.status();
  return std::move(*f);
}

// Takes the next URL at `now`, which must be ready, and reports `outcome` at
// once.
std::string FetchNow(Frontier& f, absl::Time now, const FetchOutcome& outcome) {
  NextUrl next = f.Next(now);
  EXPECT_EQ(next.state, NextUrl::kReady);
  EXPECT_TRUE(f.Done(next.url.url, outcome, now).ok());
  return next.url.url;
}

TEST(BackoffTest, DoublesPerRepeatUpToTheCapWithoutJitter) {
  const PolitenessOptions opts{.backoff_base = absl::Seconds(5),
                               .backoff_cap = absl::Seconds(60),
                               .backoff_jitter = 0};
  std::mt19937_64 rng(1);
  EXPECT_EQ(ThrottleBackoff(opts, 1, std::nullopt, rng), absl::Seconds(5));
  EXPECT_EQ(ThrottleBackoff(opts, 2, std::nullopt, rng), absl::Seconds(10));
  EXPECT_EQ(ThrottleBackoff(opts, 3, std::nullopt, rng), absl::Seconds(20));
  EXPECT_EQ(ThrottleBackoff(opts, 4, std::nullopt, rng), absl::Seconds(40));
  EXPECT_EQ(ThrottleBackoff(opts, 5, std::nullopt, rng), absl::Seconds(60));
  EXPECT_EQ(ThrottleBackoff(opts, 500, std::nullopt, rng), absl::Seconds(60));
}

TEST(BackoffTest, JitterStaysInItsRangeAndRepeatsWithTheSeed) {
  const PolitenessOptions opts{.backoff_base = absl::Seconds(4),
                               .backoff_cap = absl::Hours(1),
                               .backoff_jitter = 0.5};
  std::mt19937_64 a(42), b(42);
  bool varied = false;
  absl::Duration first = ThrottleBackoff(opts, 2, std::nullopt, a);
  (void)ThrottleBackoff(opts, 2, std::nullopt, b);
  for (int i = 0; i < 200; ++i) {
    const absl::Duration x = ThrottleBackoff(opts, 2, std::nullopt, a);
    EXPECT_EQ(x, ThrottleBackoff(opts, 2, std::nullopt, b));
    EXPECT_GE(x, absl::Seconds(8));
    EXPECT_LT(x, absl::Seconds(12));
    varied |= x != first;
  }
  EXPECT_TRUE(varied);
}

TEST(BackoffTest, RetryAfterIsALowerBoundClampedToItsMaximum) {
  const PolitenessOptions opts{.backoff_base = absl::Seconds(5),
                               .backoff_jitter = 0,
                               .max_retry_after = absl::Minutes(10)};
  std::mt19937_64 rng(1);
  EXPECT_EQ(ThrottleBackoff(opts, 1, absl::Seconds(2), rng), absl::Seconds(5));
  EXPECT_EQ(ThrottleBackoff(opts, 1, absl::Seconds(90), rng),
            absl::Seconds(90));
  EXPECT_EQ(ThrottleBackoff(opts, 1, absl::Hours(24), rng), absl::Minutes(10));
}

TEST(FrontierBackoffTest, ThrottledHostBacksOffDoublingAndResetsOnSuccess) {
  std::unique_ptr<Frontier> f = MakeFrontier({.min_delay = absl::ZeroDuration(),
                                              .backoff_base = absl::Seconds(5),
                                              .backoff_jitter = 0,
                                              .max_throttle_retries = 100});
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(f->Add(absl::StrCat("http://a/", i), "a", 0));
  absl::Time now = kStart;
  // Three 429s in a row: 5 s, 10 s, 20 s; each URL throttled goes behind the
  // host's others.
  int i = 0;
  for (absl::Duration expected :
       {absl::Seconds(5), absl::Seconds(10), absl::Seconds(20)}) {
    EXPECT_EQ(FetchNow(*f, now, FetchOutcome::Throttled()),
              absl::StrCat("http://a/", i++));
    NextUrl wait = f->Next(now);
    ASSERT_EQ(wait.state, NextUrl::kWait);
    EXPECT_EQ(wait.wait, expected);
    EXPECT_EQ(f->Next(now + expected - absl::Nanoseconds(1)).state,
              NextUrl::kWait);
    now += expected;
  }
  EXPECT_EQ(FetchNow(*f, now, FetchOutcome::Success(absl::Milliseconds(10))),
            "http://a/3");
  // After a success the next 429 starts again at the base.
  EXPECT_EQ(FetchNow(*f, now, FetchOutcome::Throttled()), "http://a/4");
  NextUrl wait = f->Next(now);
  ASSERT_EQ(wait.state, NextUrl::kWait);
  EXPECT_EQ(wait.wait, absl::Seconds(5));
  EXPECT_EQ(f->stats().throttled, 4u);
  EXPECT_EQ(f->stats().succeeded, 1u);
}

TEST(FrontierBackoffTest, HonoursRetryAfter) {
  std::unique_ptr<Frontier> f = MakeFrontier({.min_delay = absl::ZeroDuration(),
                                              .backoff_base = absl::Seconds(5),
                                              .backoff_jitter = 0});
  ASSERT_TRUE(f->Add("http://a/0", "a", 0));
  ASSERT_TRUE(f->Add("http://b/0", "b", 0));
  FetchNow(*f, kStart, FetchOutcome::Throttled(absl::Seconds(120)));
  // The other host is not affected.
  EXPECT_EQ(FetchNow(*f, kStart, FetchOutcome::Success(absl::Milliseconds(1))),
            "http://b/0");
  NextUrl wait = f->Next(kStart);
  ASSERT_EQ(wait.state, NextUrl::kWait);
  EXPECT_EQ(wait.wait, absl::Seconds(120));
  EXPECT_EQ(FetchNow(*f, kStart + absl::Seconds(120),
                     FetchOutcome::Success(absl::Seconds(1))),
            "http://a/0");
}

TEST(FrontierBackoffTest, JitteredScheduleRepeatsWithTheSameSeed) {
  auto schedule = [](uint64_t seed) {
    std::unique_ptr<Frontier> f = MakeFrontier(
        {.min_delay = absl::ZeroDuration(), .backoff_jitter = 0.5}, seed);
    EXPECT_TRUE(f->Add("http://a/0", "a", 0));
    std::vector<absl::Duration> waits;
    absl::Time now = kStart;
    for (int i = 0; i < 3; ++i) {
      FetchNow(*f, now, FetchOutcome::Throttled());
      waits.push_back(f->Next(now).wait);
      now += waits.back();
    }
    return waits;
  };
  const std::vector<absl::Duration> a = schedule(11);
  EXPECT_EQ(a, schedule(11));
  EXPECT_NE(a, schedule(12));
  // Still doubling under the jitter: each wait is in [5 * 2^i, 7.5 * 2^i)
  // seconds.
  for (int i = 0; i < 3; ++i) {
    EXPECT_GE(a[i], absl::Seconds(5 << i));
    EXPECT_LT(a[i], absl::Seconds(7.5 * (1 << i)));
  }
}

TEST(FrontierBackoffTest, GivesUpAUrlThrottledMoreThanItsRetries) {
  std::unique_ptr<Frontier> f = MakeFrontier({.min_delay = absl::ZeroDuration(),
                                              .backoff_jitter = 0,
                                              .max_throttle_retries = 2});
  ASSERT_TRUE(f->Add("http://a/0", "a", 0));
  absl::Time now = kStart;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(FetchNow(*f, now, FetchOutcome::Throttled()), "http://a/0");
    now += absl::Hours(1);
  }
  EXPECT_EQ(f->Next(now).state, NextUrl::kEmpty);
  EXPECT_EQ(f->stats().given_up, 1u);
  EXPECT_EQ(f->stats().retried, 2u);
}

TEST(FrontierBackoffTest, BlockHostHoldsItBackUntilTheGivenTime) {
  std::unique_ptr<Frontier> f =
      MakeFrontier({.min_delay = absl::ZeroDuration()});
  ASSERT_TRUE(f->Add("http://a/0", "a", 0));
  f->BlockHost("a", kStart + absl::Minutes(3));
  NextUrl wait = f->Next(kStart);
  ASSERT_EQ(wait.state, NextUrl::kWait);
  EXPECT_EQ(wait.wait, absl::Minutes(3));
  EXPECT_EQ(f->Next(kStart + absl::Minutes(3)).state, NextUrl::kReady);
}

TEST(FrontierBackoffTest, DropHostDiscardsItsUrlsNowAndLater) {
  std::unique_ptr<Frontier> f =
      MakeFrontier({.min_delay = absl::ZeroDuration()});
  ASSERT_TRUE(f->Add("http://a/0", "a", 0));
  ASSERT_TRUE(f->Add("http://a/1", "a", 0));
  ASSERT_TRUE(f->Add("http://b/0", "b", 0));
  ASSERT_TRUE(f->Add("http://a/2", "a", 0));
  EXPECT_EQ(FetchNow(*f, kStart, FetchOutcome::Success(absl::Milliseconds(1))),
            "http://a/0");
  f->DropHost(
      "a");  // a/1 may be in its queue or still in the Sieve: gone either way.
  EXPECT_FALSE(f->Add("http://a/3", "a", 0));
  EXPECT_EQ(FetchNow(*f, kStart, FetchOutcome::Success(absl::Milliseconds(1))),
            "http://b/0");
  EXPECT_EQ(f->Next(kStart).state, NextUrl::kEmpty);
  EXPECT_EQ(f->stats().dropped_urls, 3u);  // a/1, a/2, and the refused a/3.
}

TEST(FrontierUnreachableTest,
     AHostFailingToConnectTwiceHasItsUrlsHandedOutUnfetched) {
  const PolitenessOptions opts{.min_delay = absl::Seconds(1),
                               .max_error_retries = 2,
                               .unreachable_after = 2,
                               .unreachable_for = absl::Seconds(60)};
  std::unique_ptr<Frontier> f = MakeFrontier(opts);
  for (int i = 0; i < 5; ++i) {
    f->Add(absl::StrCat("http://dead/", i), "dead", 0);
  }
  const FetchOutcome refused =
      FetchOutcome::ConnectionFailed(/*transient=*/true, "connect", "refused");
  // First failure: retried after the delay only (no back-off), behind the
  // host's other URLs.
  NextUrl first = f->Next(kStart);
  ASSERT_EQ(first.state, NextUrl::kReady);
  EXPECT_FALSE(first.url.unreachable());
  ASSERT_EQ(*f->Done(first.url.url, refused, kStart), UrlFate::kRetryLater);
  NextUrl wait = f->Next(kStart);
  ASSERT_EQ(wait.state, NextUrl::kWait);
  EXPECT_EQ(wait.wait, absl::Seconds(1));
  // Second failure in a row: the host is unreachable; this URL is finished
  // (its record carries the failure) and the rest go out at once, marked.
  const absl::Time t1 = kStart + absl::Seconds(1);
  NextUrl second = f->Next(t1);
  ASSERT_EQ(second.state, NextUrl::kReady);
  EXPECT_EQ(second.url.url, "http://dead/1");
  ASSERT_EQ(*f->Done(second.url.url, refused, t1), UrlFate::kFinished);
  std::vector<std::string> unfetched;
  for (;;) {
    NextUrl next = f->Next(t1);
    if (next.state != NextUrl::kReady) break;
    EXPECT_EQ(next.url.unreachable_error, "connect");
    EXPECT_EQ(next.url.unreachable_detail, "refused");
    unfetched.push_back(next.url.url);
    ASSERT_TRUE(f->Done(next.url.url, FetchOutcome::NotFetched(), t1).ok());
  }
  EXPECT_EQ(unfetched.size(), 4u);  // 2, 3, 4 and the retried 0.
  EXPECT_EQ(f->stats().hosts_unreachable, 1u);
  EXPECT_EQ(f->stats().unreachable_urls, 4u);
  // After unreachable_for a new URL is tried for real; an answer clears it.
  const absl::Time later = t1 + absl::Seconds(61);
  f->Add("http://dead/new", "dead", 0);
  NextUrl retry = f->Next(later);
  ASSERT_EQ(retry.state, NextUrl::kReady);
  EXPECT_FALSE(retry.url.unreachable());
  ASSERT_TRUE(f->Done(retry.url.url,
                      FetchOutcome::Success(absl::Milliseconds(5)), later)
                  .ok());
  f->Add("http://dead/after", "dead", 0);
  NextUrl after = f->Next(later + absl::Seconds(1));
  ASSERT_EQ(after.state, NextUrl::kReady);
  EXPECT_FALSE(after.url.unreachable());
}

TEST(FrontierBackoffTest, AThrottledUrlIsRetriedBehindItsHostsOtherUrls) {
  std::unique_ptr<Frontier> f = MakeFrontier({.min_delay = absl::ZeroDuration(),
                                              .backoff_base = absl::Seconds(5),
                                              .backoff_jitter = 0});
  f->Add("http://h/busy", "h", 0);
  f->Add("http://h/ok", "h", 0);
  EXPECT_EQ(FetchNow(*f, kStart, FetchOutcome::Throttled()), "http://h/busy");
  EXPECT_EQ(f->Next(kStart).state, NextUrl::kWait);
  EXPECT_EQ(FetchNow(*f, kStart + absl::Seconds(5),
                     FetchOutcome::Success(absl::Milliseconds(5))),
            "http://h/ok");
  EXPECT_EQ(FetchNow(*f, kStart + absl::Seconds(5),
                     FetchOutcome::Success(absl::Milliseconds(5))),
            "http://h/busy");
}

// A request of the host lane (a render's subresource, a robots.txt fetched
// for one) answered 429 with Retry-After backs the host off as a page's does:
// the lane and the host's queued URLs wait for it.
TEST(FrontierBackoffTest, AThrottledLaneRequestBacksTheHostOff) {
  std::unique_ptr<Frontier> f = MakeFrontier({.min_delay = absl::Seconds(1),
                                              .backoff_base = absl::Seconds(1),
                                              .backoff_jitter = 0});
  ASSERT_TRUE(f->Add("http://h/page", "h", 0));
  ASSERT_EQ(*f->StartHostRequest("h", kStart), absl::ZeroDuration());
  f->EndHostRequest("h", FetchOutcome::Throttled(absl::Seconds(3)), kStart);
  const absl::Time early = kStart + absl::Milliseconds(2900);
  absl::StatusOr<absl::Duration> lane = f->StartHostRequest("h", early);
  ASSERT_TRUE(lane.ok()) << lane.status();
  EXPECT_EQ(*lane, absl::Milliseconds(100));
  NextUrl next = f->Next(early);
  ASSERT_EQ(next.state, NextUrl::kWait);
  EXPECT_EQ(next.wait, absl::Milliseconds(100));
  // At 3 s the host is free again: a success of the lane resets the streak,
  // so the page after it waits only the delay.
  const absl::Time later = kStart + absl::Seconds(3);
  ASSERT_EQ(*f->StartHostRequest("h", later), absl::ZeroDuration());
  f->EndHostRequest("h", FetchOutcome::Success(absl::ZeroDuration()), later);
  EXPECT_EQ(f->Next(later + absl::Milliseconds(999)).state, NextUrl::kWait);
  EXPECT_EQ(FetchNow(*f, later + absl::Seconds(1), FetchOutcome::Throttled()),
            "http://h/page");
  // The streak restarted: the page's back-off is the first one (1 s).
  NextUrl retry = f->Next(later + absl::Seconds(1));
  ASSERT_EQ(retry.state, NextUrl::kWait);
  EXPECT_EQ(retry.wait, absl::Seconds(1));
}

}  // namespace
}  // namespace sieve
