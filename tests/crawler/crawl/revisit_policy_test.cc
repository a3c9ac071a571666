// Adaptive revisits' two halves: the change-rate estimate from a page's
// history (crawler/policy/revisit_policy.h) and the bandwidth's allocation
// over the estimates (crawler/policy/revisit_budget.h, Eq. F and Eq. L).
#include "crawler/policy/revisit_policy.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "crawler/policy/revisit_budget.h"
#include "crawler/policy/url_history.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

std::string HttpDate(absl::Time t) {
  return absl::FormatTime("%a, %d %b %Y %H:%M:%S GMT", t, absl::UTCTimeZone());
}

FetchSeen Answer(double at, const std::string& digest, double modified) {
  return FetchSeen{.at = kStart + absl::Seconds(at),
                   .digest = digest,
                   .etag = "\"" + digest + "\"",
                   .last_modified = HttpDate(kStart + absl::Seconds(modified))};
}

FetchSeen NotModified(double at) {
  return FetchSeen{.at = kStart + absl::Seconds(at), .not_modified = true};
}

// Eq. F: the share of time a page of rate `rate` revisited `f` times a second
// is fresh; and its derivative in f.
double Freshness(double rate, double f) {
  return f / rate * (1 - std::exp(-rate / f));
}
double Marginal(double rate, double f) {
  const double x = rate / f;
  return (1 - (1 + x) * std::exp(-x)) / rate;
}

TEST(ChangeRateTest, TheFirstDateIsAnEstimate) {
  UrlHistory h;
  RecordFetch(h, Answer(10, "a", 0));
  // One change known, 10 s without one since: the median of Gamma(1, 10).
  ASSERT_TRUE(EstimateChangeRate(h).has_value());
  EXPECT_NEAR(*EstimateChangeRate(h), std::log(2.0) / 10, 0.001);
}

TEST(ChangeRateTest, UnchangedRevisitsAndNewDatesAddUp) {
  UrlHistory h;
  RecordFetch(h, Answer(10, "a", 0));   // 10 s free, 1 change.
  RecordFetch(h, NotModified(30));      // + 20 s free.
  RecordFetch(h, Answer(50, "a", 0));   // Same bytes, same date: + 20 s.
  RecordFetch(h, Answer(70, "b", 60));  // Changed at 60: + 10 s, 2 changes.
  EXPECT_EQ(h.dated_changes, 2u);
  EXPECT_EQ(h.change_free, absl::Seconds(60));
  EXPECT_NEAR(*EstimateChangeRate(h), (2 - 1.0 / 3 + 8.0 / 810) / 60, 1e-9);
}

TEST(ChangeRateTest, ADateNeverCountsLessThanHalfASecond) {
  UrlHistory h;
  RecordFetch(h, Answer(10, "a", 11));  // Dated after the fetch (rounding).
  EXPECT_EQ(h.change_free, absl::Milliseconds(500));
}

TEST(ChangeRateTest, DatesThatContradictTheBytesAreDropped) {
  // A server that dates every answer "now": the same bytes with a new date.
  UrlHistory now_dated;
  RecordFetch(now_dated, Answer(0, "a", 0));
  RecordFetch(now_dated, Answer(10, "a", 10));
  EXPECT_TRUE(now_dated.dates_unreliable);
  // New bytes under a date older than the last fetch.
  UrlHistory stale_dated;
  RecordFetch(stale_dated, Answer(10, "a", 0));
  RecordFetch(stale_dated, Answer(20, "b", 0));
  EXPECT_TRUE(stale_dated.dates_unreliable);
  // Either way Cho & Garcia-Molina's estimator takes over: one revisit, one
  // change in 10 s: -log(0.5 / 1.5) / 10.
  EXPECT_NEAR(*EstimateChangeRate(stale_dated), std::log(3.0) / 10, 1e-9);
}

TEST(ChangeRateTest, WithoutDatesTheFirstFetchTellsNothing) {
  UrlHistory h;
  RecordFetch(h, FetchSeen{.at = kStart, .digest = "a"});
  EXPECT_FALSE(EstimateChangeRate(h).has_value());
  RecordFetch(h, FetchSeen{.at = kStart + absl::Seconds(5), .digest = "a"});
  EXPECT_EQ(*EstimateChangeRate(h), 0);  // X = 0.
}

TEST(UrlHistoryFormatTest, DateFieldsRoundTripAndFormatOneStillDecodes) {
  UrlHistory h;
  RecordFetch(h, Answer(10, "a", 0));
  h.dates_unreliable = true;
  absl::StatusOr<UrlHistory> back = DecodeUrlHistory(EncodeUrlHistory(h));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, h);
  // Format 1: the same fields without the three date fields at the end.
  std::string v1 = EncodeUrlHistory(h);
  v1[0] = 1;
  v1.resize(v1.size() - 4 - 8 - 1);
  back = DecodeUrlHistory(v1);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dated_changes, 0u);
  EXPECT_FALSE(back->dates_unreliable);
  EXPECT_EQ(back->etag, h.etag);
}

// 1,000 pages changing every 0.25 to 25 s (log-uniform, as the freshness
// benchmark's), 20 requests/s: the bench's case.
std::vector<double> BenchRates() {
  std::vector<double> rates;
  for (int i = 0; i < 1000; ++i)
    rates.push_back(1 / (0.25 * std::pow(100.0, (i + 0.5) / 1000)));
  return rates;
}

TEST(RevisitBudgetTest, SpendsTheCrawlsBudgetWithEqualMarginals) {
  RevisitBudget budget({.crawl_requests_per_second = 20,
                        .min = absl::Seconds(1),
                        .max = absl::Seconds(600)});
  const std::vector<double> rates = BenchRates();
  for (double r : rates) budget.Update("h", std::nullopt, r);
  budget.Solve();
  const double mu = budget.multiplier();
  ASSERT_GT(mu, 0);
  double spent = 0, fresh = 0;
  int skipped = 0;
  for (double r : rates) {
    const double f = 1 / absl::ToDoubleSeconds(budget.Interval("h", r));
    spent += f;
    fresh += Freshness(r, f);
    if (r * mu >= 1) {
      ++skipped;
      EXPECT_EQ(budget.Interval("h", r), absl::Seconds(600));
    } else {
      // Eq. L: every revisited page at the same marginal freshness.
      EXPECT_NEAR(Marginal(r, f), mu, 1e-6 * mu) << r;
    }
  }
  // The histogram's bins make the sum close, not exact.
  EXPECT_NEAR(spent, 20, 1.0);
  EXPECT_GT(skipped, 500);  // The analytic optimum skips the 649 fastest.
  EXPECT_LT(skipped, 800);
  // Better than every page every 50 s (0.0994 for these rates).
  double uniform = 0;
  for (double r : rates) uniform += Freshness(r, 20.0 / 1000);
  EXPECT_GT(fresh / uniform, 1.6);
}

TEST(RevisitBudgetTest, AHostsAllowanceBindsItsPagesOnly) {
  // Host "busy" has 100 pages changing every 100 s but may take 2 requests
  // a second; "quiet" has 2 such pages. No crawl-wide cap.
  RevisitBudget budget({.host_requests_per_second = 2,
                        .min = absl::Seconds(1),
                        .max = absl::Seconds(3600)});
  for (int i = 0; i < 100; ++i) budget.Update("busy", std::nullopt, 0.01);
  for (int i = 0; i < 2; ++i) budget.Update("quiet", std::nullopt, 0.01);
  budget.Solve();
  EXPECT_EQ(budget.multiplier(), 0);
  const double busy = 1 / absl::ToDoubleSeconds(budget.Interval("busy", 0.01));
  EXPECT_NEAR(100 * busy, 2, 0.1);
  // The quiet host's pages are not held back: as soon as a change is 10 %
  // likely, -ln(0.9) / 0.01 = 10.5 s.
  EXPECT_NEAR(absl::ToDoubleSeconds(budget.Interval("quiet", 0.01)), 10.536,
              0.01);
}

TEST(RevisitBudgetTest, AHostsOwnAllowanceHoldsItAndTheOthersTakeTheRest) {
  // 4 requests a second for the crawl, no cap per host; two hosts of 10
  // pages changing every 10 s. "slow" asks for 2 s between requests (its
  // robots.txt Crawl-delay) before any of its pages is counted. (Interval
  // takes the page's own rate, the solution its bin's: within ~10 %.)
  RevisitBudget budget({.crawl_requests_per_second = 4,
                        .min = absl::Seconds(0.1),
                        .max = absl::Seconds(1000)});
  budget.SetHostAllowance("slow", 0.5);
  for (int i = 0; i < 10; ++i) {
    budget.Update("slow", std::nullopt, 0.1);
    budget.Update("fast", std::nullopt, 0.1);
  }
  budget.Solve();
  auto per_second = [&](const char* host) {
    return 10 / absl::ToDoubleSeconds(budget.Interval(host, 0.1));
  };
  EXPECT_NEAR(per_second("slow"), 0.5, 0.05);
  EXPECT_NEAR(per_second("fast"), 3.5, 0.35);
  EXPECT_NEAR(budget.spent(), 4, 0.01);
  // The delay lifted (a robots.txt read again): the hosts share alike.
  budget.SetHostAllowance("slow", 0);
  budget.Solve();
  EXPECT_NEAR(per_second("slow"), 2, 0.2);
  EXPECT_NEAR(per_second("fast"), 2, 0.2);
  EXPECT_NEAR(budget.spent(), 4, 0.01);
}

TEST(RevisitBudgetTest, WithoutABindingCapOnlyChangeDecides) {
  RevisitBudget budget({.min = absl::Seconds(1), .max = absl::Seconds(1000)});
  budget.Update("h", std::nullopt, 1.0);
  budget.Update("h", std::nullopt, 0.0);
  budget.Update("h", std::nullopt, 0.01);
  budget.Solve();
  EXPECT_EQ(budget.Interval("h", 1.0), absl::Seconds(1));     // At min.
  EXPECT_EQ(budget.Interval("h", 0.0), absl::Seconds(1000));  // Never changes.
  // Not before a change is 10 % likely: -ln(0.9) / 0.01 = 10.5 s.
  EXPECT_NEAR(absl::ToDoubleSeconds(budget.Interval("h", 0.01)), 10.536, 0.01);
}

TEST(RevisitBudgetTest, UpdatesMovePagesBetweenRates) {
  RevisitBudget budget({.crawl_requests_per_second = 1,
                        .min = absl::Seconds(1),
                        .max = absl::Seconds(600)});
  for (int i = 0; i < 10; ++i) budget.Update("h", std::nullopt, 10.0);
  budget.Solve();
  const double mu_fast = budget.multiplier();
  for (int i = 0; i < 10; ++i) budget.Update("h", 10.0, 0.05);
  budget.Solve();
  // The same budget over slower pages: each revisit is worth more.
  EXPECT_GT(budget.multiplier(), mu_fast);
  EXPECT_NEAR(budget.spent(), 1, 0.05);
}

}  // namespace
}  // namespace sieve
