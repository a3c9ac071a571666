// Tests of render/devtools_client.h against a scripted peer on a socket pair
// (no browser): answers by id, events by session, bounded waits, EOF.
#include "render/devtools_client.h"

#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace sieve {
namespace {

using nlohmann::json;

class DevToolsClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    peer_ = pair[1];
    client_ = std::make_unique<DevToolsClient>(pair[0]);
  }
  void TearDown() override {
    client_.reset();
    if (peer_ >= 0) close(peer_);
  }
  // The next NUL-ended message the client sent.
  json ReadMessage() {
    std::string message;
    char c;
    while (read(peer_, &c, 1) == 1 && c != '\0') message.push_back(c);
    return json::parse(message);
  }
  void Send(const json& message) {
    std::string bytes = message.dump();
    bytes.push_back('\0');
    ASSERT_EQ(write(peer_, bytes.data(), bytes.size()),
              static_cast<ssize_t>(bytes.size()));
  }

  int peer_ = -1;
  std::unique_ptr<DevToolsClient> client_;
};

TEST_F(DevToolsClientTest, ACallGetsTheResultWithItsId) {
  std::thread peer([this] {
    json request = ReadMessage();
    EXPECT_EQ(request["method"], "Browser.getVersion");
    EXPECT_FALSE(request.contains("sessionId"));
    // An unrelated answer and an event first: neither may satisfy the call.
    Send({{"id", 999}, {"result", {{"product", "wrong"}}}});
    Send({{"method", "Target.targetCreated"}, {"params", json::object()}});
    Send({{"id", request["id"]}, {"result", {{"product", "HeadlessChrome"}}}});
  });
  absl::StatusOr<json> result =
      client_->Call("Browser.getVersion", nullptr, "", absl::Seconds(10));
  peer.join();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)["product"], "HeadlessChrome");
}

TEST_F(DevToolsClientTest, AProtocolErrorIsAnErrorWithTheBrowsersMessage) {
  std::thread peer([this] {
    json request = ReadMessage();
    EXPECT_EQ(request["sessionId"], "S1");
    Send({{"id", request["id"]},
          {"error", {{"code", -32601}, {"message", "wasn't found"}}}});
  });
  absl::StatusOr<json> result =
      client_->Call("No.such", json::object(), "S1", absl::Seconds(10));
  peer.join();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("wasn't found"), std::string::npos);
}

TEST_F(DevToolsClientTest, ACallThatGetsNoAnswerTimesOut) {
  absl::StatusOr<json> result =
      client_->Call("Page.enable", nullptr, "", absl::Milliseconds(50));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST_F(DevToolsClientTest, EventsGoToTheQueueOfTheirSubscribedSession) {
  client_->Subscribe("A");
  Send({{"method", "Page.loadEventFired"}, {"sessionId", "B"}});  // dropped
  Send({{"method", "Fetch.requestPaused"},
        {"sessionId", "A"},
        {"params", {{"requestId", "r1"}}}});
  absl::StatusOr<DevToolsEvent> event =
      client_->NextEvent("A", absl::Now() + absl::Seconds(10));
  ASSERT_TRUE(event.ok()) << event.status();
  EXPECT_EQ(event->method, "Fetch.requestPaused");
  EXPECT_EQ(event->params["requestId"], "r1");
  EXPECT_EQ(client_->NextEvent("A", absl::Now() + absl::Milliseconds(50))
                .status()
                .code(),
            absl::StatusCode::kDeadlineExceeded);
}

TEST_F(DevToolsClientTest, TheBrowserClosingWakesEveryWaiterAtOnce) {
  client_->Subscribe("A");
  std::thread closer([this] {
    ReadMessage();  // the call went out; now the "browser" dies
    close(peer_);
    peer_ = -1;
  });
  const absl::Time start = absl::Now();
  absl::StatusOr<json> result =
      client_->Call("Page.enable", nullptr, "A", absl::Seconds(30));
  closer.join();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(
      client_->NextEvent("A", absl::Now() + absl::Seconds(30)).status().code(),
      absl::StatusCode::kUnavailable);
  EXPECT_LT(absl::Now() - start, absl::Seconds(20));  // not the 30 s bound
  EXPECT_TRUE(client_->closed());
  // Later calls fail at once; a write to the closed socket raises no SIGPIPE.
  EXPECT_EQ(client_->Post("Page.enable", nullptr, "").code(),
            absl::StatusCode::kUnavailable);
}

TEST_F(DevToolsClientTest, AMessageSplitAcrossReadsIsReassembled) {
  std::thread peer([this] {
    json request = ReadMessage();
    std::string bytes = json({{"id", request["id"]},
                              {"result", {{"v", std::string(200000, 'x')}}}})
                            .dump();
    bytes.push_back('\0');
    for (size_t at = 0; at < bytes.size(); at += 7000) {
      size_t n = std::min<size_t>(7000, bytes.size() - at);
      ASSERT_EQ(write(peer_, bytes.data() + at, n), static_cast<ssize_t>(n));
    }
  });
  absl::StatusOr<json> result =
      client_->Call("Big.one", nullptr, "", absl::Seconds(10));
  peer.join();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)["v"].get<std::string>().size(), 200000u);
}

}  // namespace
}  // namespace sieve
