// FrontierUrl::host_due_again (frontier/internal/sieve_wait.h): a host with
// another URL queued is due after its delay; one whose URLs wait in the Sieve
// is due when the Sieve, drained at the rate measured, reaches its newest; one
// with none there when a URL pushed now would come out.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "frontier/frontier.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

std::unique_ptr<Frontier> MakeFrontier() {
  absl::StatusOr<std::unique_ptr<Frontier>> f =
      Frontier::Create({.sieve = {.expected_urls = 100'000, .fp_rate = 1e-6},
                        .politeness = {.min_delay = absl::Seconds(2)}});
  EXPECT_TRUE(f.ok()) << f.status();
  return std::move(*f);
}

void AddPage(Frontier& f, const std::string& host, int page) {
  ASSERT_TRUE(f.Add(absl::StrCat("http://", host, "/", page), host, 0));
}

// Hands out the next URL at `now` and finishes it at once.
FrontierUrl Take(Frontier& f, absl::Time now) {
  NextUrl next = f.Next(now);
  EXPECT_EQ(next.state, NextUrl::kReady);
  EXPECT_TRUE(
      f.Done(next.url.url, FetchOutcome::Success(absl::Milliseconds(1)), now)
          .ok());
  return next.url;
}

// Queues a.test/1 behind 1,500 one-page hosts c<i> and before `b_hosts` more
// b<i> (then a.test/2 when `a_again`); hands out the 1,500 at 100 a second
// from *now, so the Sieve's drain rate is measured, then a.test/1.
FrontierUrl TakeABehind(Frontier& f, int b_hosts, bool a_again,
                        absl::Time* now) {
  for (int i = 0; i < 1'500; ++i) AddPage(f, absl::StrCat("c", i, ".test"), 0);
  AddPage(f, "a.test", 1);
  for (int i = 0; i < b_hosts; ++i)
    AddPage(f, absl::StrCat("b", i, ".test"), 0);
  if (a_again) AddPage(f, "a.test", 2);
  for (int i = 0; i < 1'500; ++i) {
    Take(f, *now);
    *now += absl::Milliseconds(10);
  }
  const FrontierUrl a1 = Take(f, *now);
  EXPECT_EQ(a1.url, "http://a.test/1");
  return a1;
}

TEST(FrontierDueAgainTest, AHostWithAnotherUrlQueuedIsDueAfterItsDelay) {
  std::unique_ptr<Frontier> f = MakeFrontier();
  for (int page = 1; page <= 3; ++page) AddPage(*f, "a.test", page);
  Take(*f, kStart);  // a/1; a/2 and a/3 wait in the Sieve.
  // No host is ready while a waits out its delay: the Sieve hands a/2 and
  // a/3 to a's queue.
  EXPECT_EQ(f->Next(kStart).state, NextUrl::kWait);
  const FrontierUrl a2 = Take(*f, kStart + absl::Seconds(2));
  ASSERT_EQ(a2.url, "http://a.test/2");
  // a/3 is in a's queue: a is due again after its 2-s delay.
  EXPECT_EQ(a2.host_due_again, absl::Seconds(2));
}

TEST(FrontierDueAgainTest,
     AHostsUrlsDeepInTheSieveAreDueWhenTheDrainReachesThem) {
  std::unique_ptr<Frontier> f = MakeFrontier();
  absl::Time now = kStart;
  const FrontierUrl a1 = TakeABehind(*f, 20'000, /*a_again=*/true, &now);
  // a/2 is 20,001 URLs back at 100 a second: ~200 s, past an idle
  // connection's life.
  EXPECT_GT(a1.host_due_again, absl::Seconds(180));
  EXPECT_LT(a1.host_due_again, absl::Seconds(220));
  // A b host with nothing more in the Sieve is due when a link of it pushed
  // now would come out: behind the ~20,000 still queued.
  const FrontierUrl b0 = Take(*f, now);
  EXPECT_GT(b0.host_due_again, absl::Seconds(180));
}

TEST(FrontierDueAgainTest, OnAShortSieveEveryHostIsDueSoon) {
  std::unique_ptr<Frontier> f = MakeFrontier();
  absl::Time now = kStart;
  const FrontierUrl a1 = TakeABehind(*f, 300, /*a_again=*/false, &now);
  // A link to a pushed now comes out after the 300 b hosts: ~3 s.
  EXPECT_GT(a1.host_due_again, absl::Seconds(2));
  EXPECT_LT(a1.host_due_again, absl::Seconds(4));
}

TEST(FrontierDueAgainTest, WithTheSieveEmptyOrNoRateYetAHostIsDueNow) {
  std::unique_ptr<Frontier> f = MakeFrontier();
  AddPage(*f, "a.test", 1);
  AddPage(*f, "b.test", 1);
  // No drain rate is measured yet: the estimate keeps connections, as before.
  EXPECT_EQ(Take(*f, kStart).host_due_again, absl::ZeroDuration());
  // The Sieve is empty now: a link pushed would come out at once.
  EXPECT_EQ(Take(*f, kStart + absl::Seconds(5)).host_due_again,
            absl::ZeroDuration());
}

}  // namespace
}  // namespace sieve
