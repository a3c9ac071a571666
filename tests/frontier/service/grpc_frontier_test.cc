// GrpcFrontier, the crawl's CrawlFrontier as a URLFrontier client, against a
// real server on 127.0.0.1 whose clock the test sets (and passes to Next and
// Done as `now`).
#include "frontier/service/grpc_frontier.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/frontier/service/test_frontier.h"

namespace sieve::service::testing {
namespace {

std::unique_ptr<GrpcFrontier> Client(const TestFrontier& f,
                                     int max_in_flight = 1) {
  GrpcFrontierOptions o;
  o.target = f.target();
  o.crawl_id = "c";
  o.politeness.min_delay = absl::ZeroDuration();
  o.politeness.max_in_flight_per_host = max_in_flight;
  o.politeness.backoff_jitter = 0;
  o.politeness.max_throttle_retries = 1;
  o.politeness.max_error_retries = 0;
  absl::StatusOr<std::unique_ptr<GrpcFrontier>> c =
      GrpcFrontier::Create(std::move(o));
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *std::move(c) : nullptr;
}

TEST(GrpcFrontierTest, AddSaysWhetherTheServerFoundTheUrlNew) {
  TestFrontier f("client_add");
  auto c = Client(f);
  EXPECT_TRUE(c->Add("http://a.example/", "a.example", 0));
  EXPECT_FALSE(c->Add("http://a.example/", "a.example", 0));
  EXPECT_EQ(f.Count("c"), 1u);
  EXPECT_EQ(c->stats().added, 1u);
  EXPECT_EQ(c->stats().duplicates, 1u);
}

TEST(GrpcFrontierTest, AddManySendsAPageInOneBatchAndSaysWhichUrlsWereNew) {
  TestFrontier f("client_add_many");
  auto c = Client(f);
  ASSERT_TRUE(c->Add("http://a.example/seen", "a.example", 0));
  const std::vector<FrontierAdd> page = {
      {.url = "http://a.example/1", .host = "a.example"},
      {.url = "http://a.example/seen", .host = "a.example"},
      {.url = "http://b.example/1", .host = "b.example", .depth = 2},
      {.url = "http://a.example/1", .host = "a.example"}};
  bool queued[4] = {};
  c->AddMany(page, queued);
  EXPECT_TRUE(queued[0]);
  EXPECT_FALSE(queued[1]) << "known to the server";
  EXPECT_TRUE(queued[2]);
  EXPECT_FALSE(queued[3]) << "repeated in the page";
  EXPECT_EQ(f.Count("c"), 3u);
  EXPECT_EQ(c->stats().added, 3u);
  EXPECT_EQ(c->stats().duplicates, 2u);
}

TEST(GrpcFrontierTest,
     HandsOutWithDepthAndMetadataAndEndsWhenTheServerIsEmpty) {
  TestFrontier f("client_round_trip");
  auto c = Client(f);
  ASSERT_TRUE(c->Add("http://a.example/x", "a.example", 3, "0 http://ref/"));
  NextUrl next = c->Next(f.time());
  ASSERT_EQ(next.state, NextUrl::kReady);
  EXPECT_EQ(next.url.url, "http://a.example/x");
  EXPECT_EQ(next.url.host, "a.example");
  EXPECT_EQ(next.url.depth, 3u);
  EXPECT_EQ(next.url.metadata, "0 http://ref/");
  EXPECT_EQ(c->Next(f.time()).state, NextUrl::kWaitForDone);
  absl::StatusOr<UrlFate> fate =
      c->Done("http://a.example/x",
              FetchOutcome::Success(absl::Milliseconds(5)), f.time());
  ASSERT_TRUE(fate.ok()) << fate.status();
  EXPECT_EQ(*fate, UrlFate::kFinished);
  urlfrontier::URLItem status;
  ASSERT_TRUE(f.Status("http://a.example/x", &status, "c").ok());
  EXPECT_TRUE(status.has_known());
  EXPECT_EQ(status.known().refetchable_from_date(), 0u);
  EXPECT_EQ(c->Next(f.time()).state, NextUrl::kEmpty);
  EXPECT_TRUE(c->status().ok());
}

TEST(GrpcFrontierTest, KeepsOneFetchPerHostInFlight) {
  TestFrontier f("client_in_flight");
  auto c = Client(f, /*max_in_flight=*/1);
  c->Add("http://a.example/1", "a.example", 0);
  c->Add("http://a.example/2", "a.example", 0);
  c->Add("http://b.example/1", "b.example", 0);
  NextUrl first = c->Next(f.time());
  ASSERT_EQ(first.state, NextUrl::kReady);
  NextUrl second = c->Next(f.time());
  ASSERT_EQ(second.state, NextUrl::kReady);
  EXPECT_NE(first.url.host, second.url.host);
  EXPECT_EQ(c->Next(f.time()).state, NextUrl::kWaitForDone);
  ASSERT_TRUE(
      c->Done(first.url.url, FetchOutcome::NotFetched(), f.time()).ok());
  NextUrl third = c->Next(f.time());
  ASSERT_EQ(third.state, NextUrl::kReady);
  EXPECT_EQ(third.url.host, "a.example");
}

TEST(GrpcFrontierTest, RetriesAThrottledUrlAfterItsBackoffThenGivesUp) {
  TestFrontier f("client_throttle");
  auto c = Client(f);
  c->Add("http://a.example/1", "a.example", 0);
  NextUrl next = c->Next(f.time());
  ASSERT_EQ(next.state, NextUrl::kReady);
  absl::StatusOr<UrlFate> fate = c->Done(
      next.url.url, FetchOutcome::Throttled(absl::Seconds(120)), f.time());
  ASSERT_TRUE(fate.ok()) << fate.status();
  EXPECT_EQ(*fate, UrlFate::kRetryLater);
  // Due again on the server only after the back-off.
  f.Advance(60);
  EXPECT_EQ(c->Next(f.time()).state, NextUrl::kWait);
  f.Advance(61);
  next = c->Next(f.time());
  ASSERT_EQ(next.state, NextUrl::kReady);
  EXPECT_EQ(next.url.url, "http://a.example/1");
  fate = c->Done(next.url.url, FetchOutcome::Throttled(), f.time());
  ASSERT_TRUE(fate.ok()) << fate.status();
  EXPECT_EQ(*fate, UrlFate::kGivenUp);
  EXPECT_EQ(c->Next(f.time()).state, NextUrl::kEmpty);
}

TEST(GrpcFrontierTest, DoneForAUrlNotInFlightIsNotFound) {
  TestFrontier f("client_not_found");
  auto c = Client(f);
  EXPECT_TRUE(absl::IsNotFound(
      c->Done("http://a.example/", FetchOutcome::NotFetched(), f.time())
          .status()));
}

TEST(GrpcFrontierTest, ReportsAnUnreachableServerThroughStatus) {
  GrpcFrontierOptions o;
  o.target = "127.0.0.1:1";  // Nothing listens on port 1.
  o.rpc_timeout = absl::Seconds(2);
  auto c = GrpcFrontier::Create(std::move(o));
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE((*c)->Add("http://a.example/", "a.example", 0));
  EXPECT_NE((*c)->Next(absl::Now()).state, NextUrl::kEmpty);
  EXPECT_FALSE((*c)->status().ok());
}

TEST(GrpcFrontierTest, ParsesOnlyGrpcUrls) {
  EXPECT_EQ(*ParseGrpcTarget("grpc://127.0.0.1:7071"), "127.0.0.1:7071");
  EXPECT_EQ(*ParseGrpcTarget("grpc://h:1/"), "h:1");
  EXPECT_FALSE(ParseGrpcTarget("http://127.0.0.1:7071").ok());
  EXPECT_FALSE(ParseGrpcTarget("grpc://").ok());
  EXPECT_FALSE(ParseGrpcTarget("grpc://host").ok());
}

}  // namespace
}  // namespace sieve::service::testing
