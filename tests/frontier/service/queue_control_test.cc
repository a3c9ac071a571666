// Queue controls through the real server: BlockQueueUntil, SetDelay,
// SetCrawlLimit, SetActive/GetActive.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/frontier/service/test_frontier.h"

namespace sieve::service::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(UrlFrontierQueueControlTest, BlockQueueUntilHoldsTheQueueUntilThatSecond) {
  TestFrontier f("block");
  f.PutOk({Discovered("http://a.example/1"), Discovered("http://b.example/1")});
  urlfrontier::BlockQueueParams b;
  b.set_key("a.example");
  b.set_time(kStart + 60);
  urlfrontier::Empty empty;
  ASSERT_TRUE(f.stub().BlockQueueUntil(Context().get(), b, &empty).ok());
  EXPECT_THAT(f.Get(), ElementsAre("http://b.example/1"));
  f.PutOk({Known("http://b.example/1", 0)});
  f.Advance(59);
  EXPECT_THAT(f.Get(), IsEmpty());
  f.Advance(1);
  EXPECT_THAT(f.Get(), ElementsAre("http://a.example/1"));
}

TEST(UrlFrontierQueueControlTest, BlockQueueUntilZeroUnblocks) {
  TestFrontier f("unblock");
  f.PutOk({Discovered("http://a.example/1")});
  urlfrontier::BlockQueueParams b;
  b.set_key("a.example");
  b.set_time(kStart + 1000);
  urlfrontier::Empty empty;
  ASSERT_TRUE(f.stub().BlockQueueUntil(Context().get(), b, &empty).ok());
  EXPECT_THAT(f.Get(), IsEmpty());
  b.set_time(0);
  ASSERT_TRUE(f.stub().BlockQueueUntil(Context().get(), b, &empty).ok());
  EXPECT_THAT(f.Get(), ElementsAre("http://a.example/1"));
}

TEST(UrlFrontierQueueControlTest, SetDelaySpacesTheAnswersOfOneQueue) {
  TestFrontier f("delay");
  f.PutOk({Discovered("http://a.example/1"), Discovered("http://a.example/2"),
           Discovered("http://b.example/1"), Discovered("http://b.example/2")});
  urlfrontier::QueueDelayParams d;
  d.set_key("a.example");
  d.set_delay_requestable(5);
  urlfrontier::Empty empty;
  ASSERT_TRUE(f.stub().SetDelay(Context().get(), d, &empty).ok());
  urlfrontier::GetParams p;
  p.set_max_urls_per_queue(1);
  EXPECT_THAT(f.Get(p),
              ElementsAre("http://a.example/1", "http://b.example/1"));
  // b has no delay; a waits 5 s after its last answer.
  EXPECT_THAT(f.Get(p), ElementsAre("http://b.example/2"));
  f.Advance(4);
  EXPECT_THAT(f.Get(p), IsEmpty());
  f.Advance(1);
  EXPECT_THAT(f.Get(p), ElementsAre("http://a.example/2"));
}

TEST(UrlFrontierQueueControlTest, SetDelayWithoutKeySetsTheCrawlDefault) {
  TestFrontier f("delay_default");
  f.PutOk({Discovered("http://a.example/1"), Discovered("http://a.example/2")});
  urlfrontier::QueueDelayParams d;
  d.set_delay_requestable(3);
  urlfrontier::Empty empty;
  ASSERT_TRUE(f.stub().SetDelay(Context().get(), d, &empty).ok());
  urlfrontier::GetParams p;
  p.set_max_urls_per_queue(1);
  EXPECT_THAT(f.Get(p), ElementsAre("http://a.example/1"));
  f.Advance(2);
  EXPECT_THAT(f.Get(p), IsEmpty());
  f.Advance(1);
  EXPECT_THAT(f.Get(p), ElementsAre("http://a.example/2"));
}

TEST(UrlFrontierQueueControlTest, SetCrawlLimitCapsTheUrlsAQueueHandsOut) {
  TestFrontier f("limit");
  std::vector<urlfrontier::URLItem> items;
  for (int i = 0; i < 5; ++i)
    items.push_back(Discovered("http://a.example/" + std::to_string(i)));
  f.PutOk(items);
  urlfrontier::CrawlLimitParams l;
  l.set_key("a.example");
  l.set_limit(3);
  urlfrontier::Empty empty;
  ASSERT_TRUE(f.stub().SetCrawlLimit(Context().get(), l, &empty).ok());
  std::vector<std::string> first = f.Get();
  ASSERT_EQ(first.size(), 3u);
  for (const std::string& url : first) f.PutOk({Known(url, 0)});
  f.Advance(3600);
  EXPECT_THAT(f.Get(), IsEmpty());
  EXPECT_EQ(f.Stats("a.example").size(), 2u);
}

TEST(UrlFrontierQueueControlTest,
     AnInactiveFrontierHandsOutNothingButTakesPuts) {
  TestFrontier f("active");
  urlfrontier::Active a;
  a.set_state(false);
  urlfrontier::Empty empty;
  ASSERT_TRUE(f.stub().SetActive(Context().get(), a, &empty).ok());
  urlfrontier::Boolean state;
  ASSERT_TRUE(
      f.stub().GetActive(Context().get(), urlfrontier::Local(), &state).ok());
  EXPECT_FALSE(state.state());
  f.PutOk({Discovered("http://a.example/1")});
  EXPECT_THAT(f.Get(), IsEmpty());
  a.set_state(true);
  ASSERT_TRUE(f.stub().SetActive(Context().get(), a, &empty).ok());
  ASSERT_TRUE(
      f.stub().GetActive(Context().get(), urlfrontier::Local(), &state).ok());
  EXPECT_TRUE(state.state());
  EXPECT_THAT(f.Get(), ElementsAre("http://a.example/1"));
}

}  // namespace
}  // namespace sieve::service::testing
