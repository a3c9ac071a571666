// Frontier under concurrency (label tsan): 4 parser threads Add overlapping URL
// sets while the crawl loop calls Next/Done and a reporter reads stats(). Each
// distinct URL is handed out at most once, and none is lost except the Sieve's
// false positives (counted, within the FPR bound).
#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "frontier/frontier.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

TEST(FrontierConcurrencyTest,
     ParallelAddsWhileTheLoopRunsLoseNothingAndRepeatNothing) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 4000;
  constexpr int kStride =
      2000;  // Thread t adds [t*kStride, t*kStride + kPerThread): overlaps.
  constexpr int kDistinct = (kThreads - 1) * kStride + kPerThread;
  constexpr double kFpRate = 1e-4;
  absl::StatusOr<std::unique_ptr<Frontier>> made =
      Frontier::Create({.sieve = {.expected_urls = 100'000, .fp_rate = kFpRate},
                        .politeness = {.min_delay = absl::ZeroDuration(),
                                       .max_in_flight_per_host = 2}});
  ASSERT_TRUE(made.ok()) << made.status();
  Frontier& f = **made;

  std::atomic<int> adders_running{kThreads};
  std::atomic<uint64_t> accepted{0};
  std::vector<std::thread> adders;
  for (int t = 0; t < kThreads; ++t) {
    adders.emplace_back([&, t] {
      for (int i = t * kStride; i < t * kStride + kPerThread; ++i) {
        const std::string host = absl::StrCat("h", i % 37);
        if (f.Add(absl::StrCat("http://", host, "/", i), host, 1))
          accepted.fetch_add(1);
      }
      adders_running.fetch_sub(1);
    });
  }
  std::atomic<bool> stop_reporter{false};
  std::thread reporter([&] {
    while (!stop_reporter.load()) (void)f.stats();
  });

  // The crawl loop: take what is ready, complete fetches one step later.
  const absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  std::vector<std::string> served;
  std::vector<std::string> running;
  for (;;) {
    const bool adders_done =
        adders_running.load() == 0;  // Read before Next: see the break.
    NextUrl next = f.Next(now);
    if (next.state == NextUrl::kReady) {
      served.push_back(next.url.url);
      running.push_back(next.url.url);
      continue;
    }
    for (const std::string& url : running) {
      ASSERT_TRUE(
          f.Done(url, FetchOutcome::Success(absl::Milliseconds(1)), now).ok());
    }
    running.clear();
    if (next.state == NextUrl::kEmpty && adders_done) break;
    std::this_thread::yield();
  }
  for (std::thread& t : adders) t.join();
  stop_reporter = true;
  reporter.join();

  std::set<std::string> distinct(served.begin(), served.end());
  EXPECT_EQ(distinct.size(), served.size()) << "a URL was handed out twice";
  EXPECT_EQ(served.size(), accepted.load());
  const uint64_t lost = kDistinct - served.size();
  // False positives: at most a generous multiple of the designed rate (here ~1
  // expected).
  EXPECT_LE(lost, static_cast<uint64_t>(20 * kFpRate * kDistinct) + 3) << lost;
  const FrontierStats s = f.stats();
  EXPECT_EQ(s.added, served.size());
  EXPECT_EQ(s.added + s.duplicates,
            static_cast<uint64_t>(kThreads * kPerThread));
  EXPECT_EQ(s.in_flight, 0u);
}

}  // namespace
}  // namespace sieve
