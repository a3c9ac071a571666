#include "fetch/internal/start_queue.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace sieve::fetch_internal {
namespace {

class StartQueueTest : public testing::Test {
 protected:
  std::unique_ptr<Transfer> Make(uint64_t id, const std::string& url) {
    return std::make_unique<Transfer>(FetchRequest{.id = id, .url = url},
                                      options_, nullptr);
  }
  // Ids of the transfers PopStartable hands out until it returns nullptr.
  std::vector<uint64_t> Drain(StartQueue& queue) {
    std::vector<uint64_t> ids;
    while (std::unique_ptr<Transfer> t = queue.PopStartable()) {
      ids.push_back(t->request().id);
      started_.push_back(std::move(t));
    }
    return ids;
  }

  FetchOptions options_;
  std::vector<std::unique_ptr<Transfer>> started_;
};

TEST(HostKeyTest, LowerCasesTheHostAndDefaultsThePort) {
  EXPECT_EQ(HostKey("http://Example.COM/a"), "example.com:80");
  EXPECT_EQ(HostKey("https://example.com/a"), "example.com:443");
  EXPECT_EQ(HostKey("http://example.com:8080/"), "example.com:8080");
  EXPECT_EQ(HostKey("http://[::1"), "");
}

TEST_F(StartQueueTest, HandsOutInOrderWithoutAPerHostLimit) {
  StartQueue queue(0);
  for (uint64_t id = 1; id <= 4; ++id) queue.Push(Make(id, "http://a/"));
  EXPECT_EQ(Drain(queue), (std::vector<uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(queue.size(), 0u);
}

TEST_F(StartQueueTest, ParksTransfersBehindABusyHostAndLetsOthersPass) {
  StartQueue queue(2);
  queue.Push(Make(1, "http://a/"));
  queue.Push(Make(2, "http://a/"));
  queue.Push(Make(3, "http://a/"));
  queue.Push(Make(4, "http://b/"));
  queue.Push(Make(5, "http://a/"));
  EXPECT_EQ(Drain(queue), (std::vector<uint64_t>{1, 2, 4}));
  EXPECT_EQ(queue.size(), 2u);
  queue.Release("a:80");
  EXPECT_EQ(Drain(queue), (std::vector<uint64_t>{3}));
  queue.Release("a:80");
  queue.Release("a:80");  // Both slots free, one transfer left.
  EXPECT_EQ(Drain(queue), (std::vector<uint64_t>{5}));
  EXPECT_EQ(queue.size(), 0u);
}

TEST_F(StartQueueTest, PutsRetriesFirst) {
  StartQueue queue(1);
  queue.Push(Make(1, "http://a/"));
  queue.PushFront(Make(9, "http://b/"));
  EXPECT_EQ(Drain(queue), (std::vector<uint64_t>{9, 1}));
}

TEST_F(StartQueueTest, ReleasedParkedTransfersStartBeforeNewOnes) {
  StartQueue queue(1);
  queue.Push(Make(1, "http://a/"));
  queue.Push(Make(2, "http://a/"));
  EXPECT_EQ(Drain(queue), (std::vector<uint64_t>{1}));
  queue.Push(Make(3, "http://a/"));
  queue.Release("a:80");
  EXPECT_EQ(Drain(queue), (std::vector<uint64_t>{2}));
  queue.Release("a:80");
  EXPECT_EQ(Drain(queue), (std::vector<uint64_t>{3}));
}

}  // namespace
}  // namespace sieve::fetch_internal
