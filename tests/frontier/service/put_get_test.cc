// PutURLs and GetURLs through the real server: the round trip, in-transit
// expiry, refetch dates, the discovered/known rules, malformed items, restart.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/frontier/service/test_frontier.h"

namespace sieve::service::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

TEST(UrlFrontierPutGetTest, HandsOutADiscoveredUrlAndDropsItOnceDone) {
  TestFrontier f("round_trip");
  f.PutOk({Discovered("http://a.example/1")});
  EXPECT_THAT(f.Get(), ElementsAre("http://a.example/1"));
  // In transit: not handed out twice.
  EXPECT_THAT(f.Get(), IsEmpty());
  f.PutOk({Known("http://a.example/1", 0)});
  f.Advance(3600);
  EXPECT_THAT(f.Get(), IsEmpty());
  urlfrontier::URLItem status;
  ASSERT_TRUE(f.Status("http://a.example/1", &status).ok());
  ASSERT_TRUE(status.has_known());
  EXPECT_EQ(status.known().refetchable_from_date(), 0u);
  EXPECT_EQ(status.known().info().key(), "a.example");
  EXPECT_EQ(status.known().info().crawlid(), "DEFAULT");
  EXPECT_EQ(status.creation_date(), static_cast<uint64_t>(kStart));
}

TEST(UrlFrontierPutGetTest, ReturnsAUrlInTransitAfterDelayRequestable) {
  TestFrontier f("in_transit");
  f.PutOk({Discovered("http://a.example/1")});
  urlfrontier::GetParams p;
  p.set_delay_requestable(10);
  EXPECT_THAT(f.Get(p), ElementsAre("http://a.example/1"));
  f.Advance(9);
  EXPECT_THAT(f.Get(p), IsEmpty());
  EXPECT_EQ(f.Stats().inprocess(), 1u);
  f.Advance(1);
  EXPECT_THAT(f.Get(p), ElementsAre("http://a.example/1"));
}

TEST(UrlFrontierPutGetTest, KeepsAUrlWithAFutureRefetchDateUntilThatDate) {
  TestFrontier f("refetch");
  f.PutOk({Known("http://a.example/later", kStart + 100),
           Known("http://a.example/soon", kStart + 10)});
  EXPECT_THAT(f.Get(), IsEmpty());
  f.Advance(10);
  EXPECT_THAT(f.Get(), ElementsAre("http://a.example/soon"));
  f.PutOk({Known("http://a.example/soon", 0)});
  f.Advance(89);
  EXPECT_THAT(f.Get(), IsEmpty());
  f.Advance(1);
  EXPECT_THAT(f.Get(), ElementsAre("http://a.example/later"));
}

TEST(UrlFrontierPutGetTest, OrdersDueUrlsOfAQueueByRefetchDate) {
  TestFrontier f("refetch_order");
  f.PutOk({Known("http://a.example/b", kStart - 5),
           Known("http://a.example/a", kStart - 1),
           Discovered("http://a.example/c")});
  // Discovered URLs are due at once (date 0), then by date.
  EXPECT_THAT(f.Get(), ElementsAre("http://a.example/c", "http://a.example/b",
                                   "http://a.example/a"));
}

TEST(UrlFrontierPutGetTest,
     IgnoresAKnownUrlDiscoveredAgainButUpdatesKnownOnes) {
  TestFrontier f("discovered_known");
  f.PutOk({Discovered("http://a.example/1")});
  ASSERT_THAT(f.Get(), ElementsAre("http://a.example/1"));
  f.PutOk({Known("http://a.example/1", 0)});
  // Discovered again: still done.
  f.PutOk({Discovered("http://a.example/1")});
  f.Advance(3600);
  EXPECT_THAT(f.Get(), IsEmpty());
  urlfrontier::URLItem status;
  ASSERT_TRUE(f.Status("http://a.example/1", &status).ok());
  EXPECT_TRUE(status.has_known());
  // A known update always applies: due again.
  f.PutOk({Known("http://a.example/1", f.now())});
  EXPECT_THAT(f.Get(), ElementsAre("http://a.example/1"));
  EXPECT_EQ(f.Count(), 1u);
}

TEST(UrlFrontierPutGetTest, AcknowledgesWithTheClientIdOrTheUrl) {
  TestFrontier f("ack_ids");
  auto ctx = Context();
  auto stream = f.stub().PutURLs(ctx.get());
  urlfrontier::URLItem with_id = Discovered("http://a.example/1");
  with_id.set_id("id-1");
  urlfrontier::AckMessage ack;
  ASSERT_TRUE(stream->Write(with_id));
  ASSERT_TRUE(stream->Read(&ack));
  EXPECT_EQ(ack.id(), "id-1");
  ASSERT_TRUE(stream->Write(Discovered("http://a.example/2")));
  ASSERT_TRUE(stream->Read(&ack));
  EXPECT_EQ(ack.id(), "http://a.example/2");
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

TEST(UrlFrontierPutGetTest, SkipsMalformedItemsAndKeepsTheRest) {
  TestFrontier f("malformed");
  urlfrontier::URLItem empty;  // Neither discovered nor known.
  EXPECT_THAT(f.Put({Discovered(""), Discovered("no-host"), empty,
                     Discovered("http://a.example/ok")}),
              ElementsAre(urlfrontier::AckMessage::SKIPPED,
                          urlfrontier::AckMessage::SKIPPED,
                          urlfrontier::AckMessage::SKIPPED,
                          urlfrontier::AckMessage::OK));
  // With an explicit key a URL needs no host.
  EXPECT_THAT(f.Put({Discovered("no-host", "", "q")}),
              ElementsAre(urlfrontier::AckMessage::OK));
  EXPECT_EQ(f.Count(), 2u);
}

TEST(UrlFrontierPutGetTest, KeysQueuesByTheClientKeyOrTheHost) {
  TestFrontier f("keys");
  f.PutOk({Discovered("http://a.example/1"),
           Discovered("http://B.example:81/2"),
           Discovered("http://c.example/3", "", "custom")});
  urlfrontier::Pagination p;
  p.set_include_inactive(true);
  urlfrontier::QueueList queues;
  ASSERT_TRUE(f.stub().ListQueues(Context().get(), p, &queues).ok());
  EXPECT_THAT(queues.values(), ElementsAre("a.example", "b.example", "custom"));
  urlfrontier::GetParams g;
  g.set_key("custom");
  EXPECT_THAT(f.Get(g), ElementsAre("http://c.example/3"));
}

TEST(UrlFrontierPutGetTest, TakesAtMostMaxUrlsPerQueueFromAtMostMaxQueues) {
  TestFrontier f("get_limits");
  f.PutOk({Discovered("http://a.example/1"), Discovered("http://a.example/2"),
           Discovered("http://b.example/1"), Discovered("http://b.example/2"),
           Discovered("http://c.example/1")});
  urlfrontier::GetParams p;
  p.set_max_urls_per_queue(1);
  p.set_max_queues(2);
  EXPECT_THAT(f.Get(p),
              ElementsAre("http://a.example/1", "http://b.example/1"));
  // Round-robin: the next call starts after the last queue served.
  EXPECT_THAT(f.Get(p),
              ElementsAre("http://c.example/1", "http://a.example/2"));
  EXPECT_THAT(f.Get(p), ElementsAre("http://b.example/2"));
}

// The held-out client's scenario: every queued URL handed out and in transit
// for a minute, then one fresh URL: the next GetURLs hands it out, whatever
// is in transit ahead of it in its queue.
TEST(UrlFrontierPutGetTest, HandsOutAFreshUrlPastAQueueFullOfUrlsInTransit) {
  TestFrontier f("fresh_past_transit");
  std::vector<urlfrontier::URLItem> items;
  for (int q = 0; q < 10; ++q) {
    for (int i = 0; i < 100; ++i) {
      items.push_back(Discovered("http://q" + std::to_string(q) + ".example/" +
                                 std::to_string(i)));
    }
  }
  f.PutOk(items);
  urlfrontier::GetParams p;
  p.set_max_urls_per_queue(100);
  p.set_delay_requestable(60);
  EXPECT_EQ(f.Get(p).size(), 1000u);
  EXPECT_THAT(f.Get(p), IsEmpty());
  f.Advance(2);  // Past any queue delay, well inside delay_requestable.
  f.PutOk({Discovered("http://q3.example/fresh")});
  EXPECT_THAT(f.Get(p), ElementsAre("http://q3.example/fresh"));
  EXPECT_THAT(f.Get(p), IsEmpty());
  EXPECT_EQ(f.Stats().inprocess(), 1001u);
  // A minute later they all come back, the fresh one too.
  f.Advance(60);
  p.set_max_urls_per_queue(0);
  EXPECT_EQ(f.Get(p).size(), 1001u);
}

TEST(UrlFrontierPutGetTest, PutDiscoveredSaysWhichItemsOfABatchWereStored) {
  TestFrontier f("put_discovered_stored");
  f.PutOk({Discovered("http://a.example/known")});
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  auto stream = f.sieve_stub().PutDiscovered(&ctx);
  sieve_urlfrontier::DiscoveredBatch batch;
  for (const char* url : {"http://a.example/1", "http://a.example/known",
                          "http://b.example/1", "http://a.example/1", ""}) {
    batch.add_items()->mutable_info()->set_url(url);
  }
  sieve_urlfrontier::BatchAck ack;
  ASSERT_TRUE(stream->Write(batch));
  ASSERT_TRUE(stream->Read(&ack));
  stream->WritesDone();
  ASSERT_TRUE(stream->Finish().ok());
  EXPECT_EQ(ack.added(), 2u);
  EXPECT_THAT(ack.stored(), ElementsAre(true, false, true, false, false));
}

TEST(UrlFrontierPutGetTest, KeepsEveryStateAcrossARestart) {
  TestFrontier f("restart");
  f.PutOk({Discovered("http://a.example/1"), Discovered("http://a.example/2"),
           Known("http://a.example/3", 0),
           Known("http://a.example/4", kStart + 50)});
  ASSERT_THAT(f.Get(),
              UnorderedElementsAre("http://a.example/1", "http://a.example/2"));
  f.Restart();
  EXPECT_EQ(f.Count(), 4u);
  // In transit is not stored: after a restart those URLs are due again.
  EXPECT_THAT(f.Get(),
              UnorderedElementsAre("http://a.example/1", "http://a.example/2"));
  // A known URL is still known: discovering it again changes nothing.
  f.PutOk({Discovered("http://a.example/3")});
  EXPECT_EQ(f.Stats().counts().at("completed"), 1u);
  f.PutOk({Known("http://a.example/1", 0), Known("http://a.example/2", 0)});
  f.Advance(50);
  EXPECT_THAT(f.Get(), ElementsAre("http://a.example/4"));
  EXPECT_EQ(f.Stats().counts().at("completed"), 3u);
}

}  // namespace
}  // namespace sieve::service::testing
