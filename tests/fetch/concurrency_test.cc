// Many transfers at once: several hosts, the transfer cap (the only cap the
// Fetcher keeps; per-host concurrency is the Frontier's), and destruction with
// transfers in flight.
#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "fetch/fetcher.h"
#include "gtest/gtest.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using fetch_test::Connection;
using fetch_test::HttpServer;
using fetch_test::PollUntilIdle;
using fetch_test::RawServer;
using fetch_test::TestOptions;

std::unique_ptr<Fetcher> MakeFetcher(const FetchOptions& options) {
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Fetcher::Create(options);
  EXPECT_TRUE(fetcher.ok()) << fetcher.status();
  return fetcher.ok() ? std::move(*fetcher) : nullptr;
}

// Path of "GET <path> HTTP/1.1".
std::string RequestPath(const std::string& head) {
  const size_t start = head.find(' ') + 1;
  return head.substr(start, head.find(' ', start) - start);
}

// A keep-alive HTTP/1.1 server that answers each request with its own path, a
// little slowly so that transfers overlap.
void EchoPathKeepAlive(Connection& c) {
  std::string head;
  while (c.ReadRequestHead(&head)) {
    const std::string path = RequestPath(head);
    if (!c.Sleep(absl::Milliseconds(2))) return;
    if (!c.Send(absl::StrCat("HTTP/1.1 200 OK\r\nContent-Length: ", path.size(),
                             "\r\n\r\n", path))) {
      return;
    }
  }
}

void NeverAnswer(Connection& c) {
  std::string head;
  c.ReadRequestHead(&head);
  c.WaitForClose();
}

// Transfers beyond max_concurrent_transfers wait in the Fetcher, not inside
// curl, where their connect and total timeouts would already be running: 30
// requests of 100 ms, 2 at a time, take 1.5 s, each well within a 1 s total
// timeout.
TEST(ConcurrencyTest, QueuedTransfersDoNotTimeOutWhileWaitingToStart) {
  RawServer server([](Connection& c) {
    std::string head;
    while (c.ReadRequestHead(&head)) {
      if (!c.Sleep(absl::Milliseconds(100)) ||
          !c.Send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")) {
        return;
      }
    }
  });
  FetchOptions options = TestOptions();
  options.max_concurrent_transfers = 2;
  options.connect_timeout = absl::Milliseconds(300);
  options.total_timeout = absl::Seconds(1);
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  for (uint64_t id = 0; id < 30; ++id) {
    fetcher->Submit({.id = id, .url = server.Url("/")});
  }
  const std::vector<FetchResponse> responses = PollUntilIdle(*fetcher);
  ASSERT_EQ(responses.size(), 30u);
  for (const FetchResponse& r : responses) {
    EXPECT_TRUE(r.ok()) << r.id << ": " << r.error_message;
  }
  EXPECT_LE(server.max_open(), 2);
  EXPECT_LE(server.accepted(), 4)
      << "connections should be reused, not reopened per request";
}

// No per-host cap of the Fetcher's own: one host gets as many transfers at once
// as the global cap allows.
TEST(ConcurrencyTest, OneHostGetsAsManyTransfersAsTheGlobalCapAllows) {
  RawServer server(EchoPathKeepAlive);
  FetchOptions options = TestOptions();
  options.max_concurrent_transfers = 20;
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  for (uint64_t id = 0; id < 20; ++id) {
    fetcher->Submit({.id = id, .url = server.Url(absl::StrCat("/item/", id))});
  }
  const std::vector<FetchResponse> responses = PollUntilIdle(*fetcher);
  ASSERT_EQ(responses.size(), 20u);
  for (const FetchResponse& r : responses) {
    ASSERT_TRUE(r.ok()) << r.id << ": " << r.error_message;
    EXPECT_EQ(r.body, absl::StrCat("/item/", r.id));
  }
  EXPECT_GT(server.max_open(), 2);
}

TEST(ConcurrencyTest, TwoHundredRequestsOverFourHostsAllComplete) {
  constexpr int kHosts = 4;
  constexpr uint64_t kRequests = 200;
  std::vector<std::unique_ptr<HttpServer>> servers;
  std::vector<std::atomic<int>> hits(kHosts);
  for (int h = 0; h < kHosts; ++h) {
    servers.push_back(std::make_unique<HttpServer>());
    std::atomic<int>* counter = &hits[h];
    servers.back()->server().Get(
        "/page/(\\d+)",
        [counter, h](const httplib::Request& req, httplib::Response& res) {
          counter->fetch_add(1);
          res.set_content(
              absl::StrCat("host ", h, " page ", req.matches[1].str()),
              "text/plain");
        });
    servers.back()->Start();
  }
  FetchOptions options = TestOptions();
  options.max_concurrent_transfers = 32;
  options.total_timeout = absl::Seconds(20);
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  for (uint64_t id = 0; id < kRequests; ++id) {
    fetcher->Submit(
        {.id = id,
         .url = servers[id % kHosts]->Url(absl::StrCat("/page/", id))});
  }
  EXPECT_EQ(fetcher->in_flight(), kRequests);
  const std::vector<FetchResponse> responses = PollUntilIdle(*fetcher);
  ASSERT_EQ(responses.size(), kRequests);
  std::map<uint64_t, const FetchResponse*> by_id;
  for (const FetchResponse& r : responses) by_id[r.id] = &r;
  ASSERT_EQ(by_id.size(), kRequests);
  for (const auto& [id, r] : by_id) {
    ASSERT_TRUE(r->ok()) << id << ": " << r->error_message;
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, absl::StrCat("host ", id % kHosts, " page ", id));
  }
  for (int h = 0; h < kHosts; ++h)
    EXPECT_EQ(hits[h].load(), kRequests / kHosts) << h;
  EXPECT_EQ(fetcher->in_flight(), 0u);
}

TEST(ConcurrencyTest, RunsAtMostMaxConcurrentTransfersAndQueuesTheRest) {
  RawServer server(NeverAnswer);
  FetchOptions options = TestOptions();
  options.max_concurrent_transfers = 3;
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  for (uint64_t id = 0; id < 10; ++id)
    fetcher->Submit({.id = id, .url = server.Url("/")});
  const absl::Time give_up = absl::Now() + absl::Seconds(5);
  while (server.accepted() < 3 && absl::Now() < give_up) {
    EXPECT_TRUE(fetcher->Poll(absl::Milliseconds(20)).empty());
  }
  fetcher->Poll(absl::Milliseconds(100));
  EXPECT_EQ(server.accepted(), 3);
  EXPECT_EQ(fetcher->running(), 3u);
  EXPECT_EQ(fetcher->in_flight(), 10u);
}

TEST(ConcurrencyTest, DestructsCleanlyWithTransfersInFlight) {
  RawServer server(NeverAnswer);
  FetchOptions options = TestOptions();
  options.max_concurrent_transfers = 5;
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  // Running (5) and queued (15).
  for (uint64_t id = 0; id < 20; ++id)
    fetcher->Submit({.id = id, .url = server.Url("/")});
  const absl::Time give_up = absl::Now() + absl::Seconds(5);
  while (server.open() < 5 && absl::Now() < give_up)
    fetcher->Poll(absl::Milliseconds(20));
  fetcher->Poll(absl::Milliseconds(50));
  ASSERT_EQ(server.open(), 5);
  EXPECT_EQ(fetcher->in_flight(), 20u);

  const absl::Time start = absl::Now();
  fetcher.reset();
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  // Every socket was closed: the server sees its connections end.
  while (server.open() > 0 && absl::Now() < give_up + absl::Seconds(5)) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(server.open(), 0);
}

}  // namespace
}  // namespace sieve
