// The bookkeeping methods through the real server: crawls as namespaces,
// DeleteQueue/DeleteCrawl, ListURLs/CountURLs with filters, GetStats,
// ListQueues, GetURLStatus, PurgeURLs, ListNodes, SetLogLevel, and Sieve's
// PutDiscovered.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spdlog/spdlog.h"
#include "tests/frontier/service/test_frontier.h"

namespace sieve::service::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

std::vector<std::string> ListUrls(TestFrontier& f,
                                  urlfrontier::ListUrlParams p) {
  auto ctx = Context();
  auto reader = f.stub().ListURLs(ctx.get(), p);
  std::vector<std::string> out;
  urlfrontier::URLItem item;
  while (reader->Read(&item)) {
    out.push_back(item.has_known() ? item.known().info().url()
                                   : item.discovered().info().url());
  }
  EXPECT_TRUE(reader->Finish().ok());
  return out;
}

TEST(UrlFrontierAdminTest, KeepsCrawlsApart) {
  TestFrontier f("crawls");
  f.PutOk({Discovered("http://a.example/1", "one"),
           Discovered("http://a.example/1", "two"),
           Discovered("http://a.example/2", "")});
  urlfrontier::StringList crawls;
  ASSERT_TRUE(
      f.stub().ListCrawls(Context().get(), urlfrontier::Local(), &crawls).ok());
  EXPECT_THAT(crawls.values(), ElementsAre("DEFAULT", "one", "two"));
  EXPECT_THAT(f.GetCrawl("one"), ElementsAre("http://a.example/1"));
  // The same URL in another crawl is another URL.
  EXPECT_THAT(f.GetCrawl("two"), ElementsAre("http://a.example/1"));
  EXPECT_THAT(f.GetCrawl("DEFAULT"), ElementsAre("http://a.example/2"));
  f.PutOk({Known("http://a.example/1", 0, "one")});
  urlfrontier::URLItem status;
  ASSERT_TRUE(f.Status("http://a.example/1", &status, "two").ok());
  EXPECT_TRUE(status.has_discovered());
  EXPECT_EQ(f.Count("one"), 1u);
  EXPECT_EQ(f.Count(""), 1u);
}

TEST(UrlFrontierAdminTest, GetUrlsWithAnyCrawlIdServesEveryCrawl) {
  TestFrontier f("any_crawl");
  f.PutOk({Discovered("http://a.example/1", "one"),
           Discovered("http://a.example/2", "two")});
  urlfrontier::GetParams p;
  p.mutable_anycrawlid();
  EXPECT_THAT(f.Get(p),
              UnorderedElementsAre("http://a.example/1", "http://a.example/2"));
}

TEST(UrlFrontierAdminTest, DeleteQueueAndDeleteCrawlReturnWhatTheyRemoved) {
  TestFrontier f("delete");
  f.PutOk({Discovered("http://a.example/1"), Discovered("http://a.example/2"),
           Known("http://a.example/3", 0), Discovered("http://b.example/1"),
           Discovered("http://a.example/1", "other"),
           Discovered("http://b.example/1", "other")});
  urlfrontier::QueueWithinCrawlParams q;
  q.set_key("a.example");
  urlfrontier::Long removed;
  ASSERT_TRUE(f.stub().DeleteQueue(Context().get(), q, &removed).ok());
  EXPECT_EQ(removed.value(), 3u);
  EXPECT_EQ(f.Count(), 1u);
  EXPECT_THAT(f.Get(), ElementsAre("http://b.example/1"));
  urlfrontier::DeleteCrawlMessage d;
  d.set_value("other");
  ASSERT_TRUE(f.stub().DeleteCrawl(Context().get(), d, &removed).ok());
  EXPECT_EQ(removed.value(), 2u);
  EXPECT_EQ(f.Count("other"), 0u);
  EXPECT_THAT(f.GetCrawl("other"), IsEmpty());
  // A deleted URL may be discovered again.
  f.PutOk({Discovered("http://a.example/1")});
  EXPECT_THAT(f.Get(), ElementsAre("http://a.example/1"));
}

TEST(UrlFrontierAdminTest, ListsAndCountsUrlsWithFilters) {
  TestFrontier f("list_count");
  f.PutOk({Discovered("http://a.example/Shop/1"),
           Discovered("http://a.example/shop/2"),
           Discovered("http://a.example/blog/1"),
           Discovered("http://b.example/shop/3")});
  EXPECT_EQ(f.Count(), 4u);
  EXPECT_EQ(f.Count("", "a.example"), 3u);
  EXPECT_EQ(f.Count("", "", "shop"), 2u);
  urlfrontier::CountUrlParams c;
  c.set_filter("shop");
  c.set_ignorecase(true);
  urlfrontier::Long n;
  ASSERT_TRUE(f.stub().CountURLs(Context().get(), c, &n).ok());
  EXPECT_EQ(n.value(), 3u);

  urlfrontier::ListUrlParams p;
  p.set_key("a.example");
  EXPECT_THAT(ListUrls(f, p),
              ElementsAre("http://a.example/Shop/1", "http://a.example/blog/1",
                          "http://a.example/shop/2"));
  p.set_start(1);
  p.set_size(1);
  EXPECT_THAT(ListUrls(f, p), ElementsAre("http://a.example/blog/1"));
  urlfrontier::ListUrlParams filtered;
  filtered.set_filter("SHOP");
  filtered.set_ignorecase(true);
  EXPECT_THAT(ListUrls(f, filtered),
              ElementsAre("http://a.example/Shop/1", "http://a.example/shop/2",
                          "http://b.example/shop/3"));
}

TEST(UrlFrontierAdminTest, GetStatsCountsQueuedInProcessCompletedAndQueues) {
  TestFrontier f("stats");
  f.PutOk({Discovered("http://a.example/1"), Discovered("http://a.example/2"),
           Discovered("http://b.example/1"), Known("http://c.example/1", 0),
           Known("http://d.example/1", kStart + 100)});
  urlfrontier::Stats s = f.Stats();
  EXPECT_EQ(s.crawlid(), "DEFAULT");
  EXPECT_EQ(s.size(), 4u);  // d is queued for later.
  EXPECT_EQ(s.inprocess(), 0u);
  EXPECT_EQ(s.numberofqueues(), 2u);  // a and b have URLs due now.
  EXPECT_EQ(s.counts().at("completed"), 1u);
  urlfrontier::GetParams p;
  p.set_key("a.example");
  p.set_max_urls_per_queue(1);
  ASSERT_EQ(f.Get(p).size(), 1u);
  s = f.Stats();
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s.inprocess(), 1u);
  s = f.Stats("a.example");
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(s.inprocess(), 1u);
  EXPECT_EQ(s.numberofqueues(), 1u);
}

TEST(UrlFrontierAdminTest, ListQueuesPagesActiveOrAllQueues) {
  TestFrontier f("queues");
  f.PutOk({Discovered("http://a.example/1"), Discovered("http://b.example/1"),
           Discovered("http://c.example/1"), Known("http://d.example/1", 0)});
  urlfrontier::Pagination p;
  urlfrontier::QueueList q;
  ASSERT_TRUE(f.stub().ListQueues(Context().get(), p, &q).ok());
  EXPECT_THAT(q.values(), ElementsAre("a.example", "b.example", "c.example"));
  EXPECT_EQ(q.total(), 3u);
  p.set_include_inactive(true);
  p.set_start(1);
  p.set_size(2);
  ASSERT_TRUE(f.stub().ListQueues(Context().get(), p, &q).ok());
  EXPECT_THAT(q.values(), ElementsAre("b.example", "c.example"));
  EXPECT_EQ(q.total(), 4u);
  EXPECT_EQ(q.start(), 1u);
  EXPECT_EQ(q.size(), 2u);
}

TEST(UrlFrontierAdminTest, GetUrlStatusSaysNotFoundForAnUnknownUrl) {
  TestFrontier f("status");
  urlfrontier::URLItem item;
  EXPECT_EQ(f.Status("http://a.example/none", &item).error_code(),
            grpc::StatusCode::NOT_FOUND);
  urlfrontier::URLItem with_meta = Discovered("http://a.example/1");
  (*with_meta.mutable_discovered()->mutable_info()->mutable_metadata())["src"]
      .add_values("http://a.example/");
  f.PutOk({with_meta});
  ASSERT_TRUE(f.Status("http://a.example/1", &item).ok());
  EXPECT_EQ(item.discovered().info().metadata().at("src").values(0),
            "http://a.example/");
  // GetURLs returns the metadata too.
  auto ctx = Context();
  auto reader = f.stub().GetURLs(ctx.get(), urlfrontier::GetParams());
  urlfrontier::URLInfo info;
  ASSERT_TRUE(reader->Read(&info));
  EXPECT_EQ(info.metadata().at("src").values(0), "http://a.example/");
  EXPECT_EQ(info.crawlid(), "DEFAULT");
  EXPECT_FALSE(reader->Read(&info));
  EXPECT_TRUE(reader->Finish().ok());
}

TEST(UrlFrontierAdminTest, PurgeUrlsRemovesUrlsOlderThanTheGivenDays) {
  TestFrontier f("purge");
  f.PutOk({Discovered("http://a.example/old")});
  f.Advance(3 * 86400);
  f.PutOk({Discovered("http://a.example/new")});
  // Updating a URL keeps its creation date.
  f.PutOk({Known("http://a.example/old", f.now() + 10)});
  urlfrontier::PurgeUrlParams p;
  p.set_days(2);
  urlfrontier::Long n;
  ASSERT_TRUE(f.stub().PurgeURLs(Context().get(), p, &n).ok());
  EXPECT_EQ(n.value(), 1u);
  EXPECT_EQ(f.Count(), 1u);
  f.Advance(100);
  EXPECT_THAT(f.Get(), ElementsAre("http://a.example/new"));
}

TEST(UrlFrontierAdminTest, ListNodesNamesTheServerAndSetLogLevelApplies) {
  TestFrontier f("nodes");
  urlfrontier::StringList nodes;
  ASSERT_TRUE(
      f.stub().ListNodes(Context().get(), urlfrontier::Empty(), &nodes).ok());
  EXPECT_THAT(nodes.values(), ElementsAre("127.0.0.1:0"));
  urlfrontier::LogLevelParams l;
  l.set_level(urlfrontier::LogLevelParams::WARN);
  urlfrontier::Empty empty;
  ASSERT_TRUE(f.stub().SetLogLevel(Context().get(), l, &empty).ok());
  EXPECT_EQ(spdlog::get_level(), spdlog::level::warn);
  l.set_level(urlfrontier::LogLevelParams::INFO);
  ASSERT_TRUE(f.stub().SetLogLevel(Context().get(), l, &empty).ok());
  EXPECT_EQ(spdlog::get_level(), spdlog::level::info);
}

TEST(UrlFrontierAdminTest, PutDiscoveredAddsOnlyUnknownUrlsBatchByBatch) {
  TestFrontier f("put_discovered");
  f.PutOk({Discovered("http://a.example/known")});
  auto ctx = Context();
  auto stream = f.sieve_stub().PutDiscovered(ctx.get());
  sieve_urlfrontier::DiscoveredBatch batch;
  batch.set_id("b1");
  for (const char* url : {"http://a.example/known", "http://a.example/1",
                          "http://a.example/1", "http://b.example/2", ""}) {
    batch.add_items()->mutable_info()->set_url(url);
  }
  sieve_urlfrontier::BatchAck ack;
  ASSERT_TRUE(stream->Write(batch));
  ASSERT_TRUE(stream->Read(&ack));
  EXPECT_EQ(ack.id(), "b1");
  EXPECT_EQ(ack.status(), urlfrontier::AckMessage::OK);
  EXPECT_EQ(ack.added(), 2u);
  EXPECT_EQ(ack.known(), 2u);
  EXPECT_EQ(ack.skipped(), 1u);
  batch.set_id("b2");
  ASSERT_TRUE(stream->Write(batch));
  ASSERT_TRUE(stream->Read(&ack));
  EXPECT_EQ(ack.added(), 0u);
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_EQ(f.Count(), 3u);
  EXPECT_THAT(f.Get(),
              UnorderedElementsAre("http://a.example/known",
                                   "http://a.example/1", "http://b.example/2"));
}

}  // namespace
}  // namespace sieve::service::testing
