// Wakeup is the one call another thread may make; this test also runs under
// TSan.
#include <atomic>
#include <thread>

#include "fetch/fetcher.h"
#include "gtest/gtest.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using fetch_test::Connection;
using fetch_test::RawServer;
using fetch_test::TestOptions;

TEST(WakeupTest, InterruptsAPollFromAnotherThread) {
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
      Fetcher::Create(TestOptions());
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  const absl::Time start = absl::Now();
  std::thread waker([&fetcher] {
    absl::SleepFor(absl::Milliseconds(50));
    (*fetcher)->Wakeup();
  });
  EXPECT_TRUE((*fetcher)->Poll(absl::Seconds(60)).empty());
  waker.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(30))
      << "Poll waited for its full max_wait";
}

TEST(WakeupTest, AWakeupBeforePollEndsTheNextPollEarly) {
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
      Fetcher::Create(TestOptions());
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  (*fetcher)->Wakeup();
  const absl::Time start = absl::Now();
  EXPECT_TRUE((*fetcher)->Poll(absl::Seconds(60)).empty());
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
}

// Wakeups from another thread at any moment, a Poll after each: none is
// lost (a Wakeup that finds an earlier one unread writes nothing, so one
// lost would leave every later Poll waiting its full time).
TEST(WakeupTest, NoWakeupIsLostAmongConcurrentOnes) {
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
      Fetcher::Create(TestOptions());
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  std::atomic<int> polls{0};
  std::atomic<bool> done{false};
  std::thread waker([&] {
    while (!done.load()) {
      (*fetcher)->Wakeup();
      std::this_thread::yield();
    }
  });
  const absl::Time start = absl::Now();
  for (int i = 0; i < 2000 && absl::Now() - start < absl::Seconds(20); ++i) {
    EXPECT_TRUE((*fetcher)->Poll(absl::Seconds(60)).empty());
    polls.fetch_add(1);
  }
  done.store(true);
  waker.join();
  EXPECT_EQ(polls.load(), 2000) << "Polls waited for their full max_wait";
}

TEST(WakeupTest, ManyWakeupsWhileTransfersRunAreSafe) {
  RawServer server([](Connection& c) {
    std::string head;
    while (c.ReadRequestHead(&head)) {
      if (!c.Sleep(absl::Milliseconds(5)) ||
          !c.Send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")) {
        return;
      }
    }
  });
  FetchOptions options = TestOptions();
  options.max_concurrent_transfers = 4;
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Fetcher::Create(options);
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  for (uint64_t id = 0; id < 40; ++id)
    (*fetcher)->Submit({.id = id, .url = server.Url("/")});
  std::atomic<bool> done{false};
  std::thread waker([&] {
    while (!done.load()) {
      (*fetcher)->Wakeup();
      absl::SleepFor(absl::Milliseconds(1));
    }
  });
  size_t completed = 0;
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (completed < 40 && absl::Now() < give_up) {
    for (const FetchResponse& r : (*fetcher)->Poll(absl::Seconds(1))) {
      EXPECT_TRUE(r.ok()) << r.error_message;
      EXPECT_EQ(r.body, "ok");
      ++completed;
    }
  }
  done.store(true);
  waker.join();
  EXPECT_EQ(completed, 40u);
}

}  // namespace
}  // namespace sieve
