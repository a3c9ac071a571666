// Wakeup is the one call another thread may make; this test also runs under
// TSan.
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
