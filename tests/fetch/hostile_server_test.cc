// Servers that try to hold a transfer forever. Each case must end within its
// configured bound plus one second, with the right error kind.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fetch/fetcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using fetch_test::Connection;
using fetch_test::FetchOne;
using fetch_test::RawServer;
using fetch_test::TestOptions;
using testing::HasSubstr;

constexpr absl::Duration kSlack = absl::Seconds(1);

struct Timed {
  FetchResponse response;
  absl::Duration elapsed;
};

Timed FetchTimed(const FetchOptions& options, const std::string& url) {
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Fetcher::Create(options);
  if (!fetcher.ok()) return {};
  const absl::Time start = absl::Now();
  FetchResponse response = FetchOne(**fetcher, {.id = 1, .url = url});
  return {std::move(response), absl::Now() - start};
}

TEST(HostileServerTest, ANeverAnsweringServerFailsAtTheTotalTimeout) {
  RawServer server([](Connection& c) {
    std::string head;
    c.ReadRequestHead(&head);
    c.WaitForClose();  // Read the request, then say nothing.
  });
  FetchOptions options = TestOptions();
  options.total_timeout = absl::Seconds(1);
  options.low_speed_limit = 0;  // So that the total timeout is what fires.
  const Timed t = FetchTimed(options, server.Url("/"));
  EXPECT_EQ(t.response.error, FetchError::kTimeout) << t.response.error_message;
  EXPECT_THAT(t.response.error_message, HasSubstr("timed out"));
  EXPECT_GE(t.elapsed, options.total_timeout - absl::Milliseconds(50));
  EXPECT_LT(t.elapsed, options.total_timeout + kSlack);
}

// A listening socket that never accepts, its backlog already full: the kernel
// drops further SYNs, so connect() hangs like it does against a host that has
// gone dark.
TEST(HostileServerTest, ASilentHostFailsAtTheConnectTimeout) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), length), 0);
  ASSERT_EQ(listen(listener, 0), 0);
  ASSERT_EQ(
      getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  std::vector<int> fillers;
  for (int i = 0; i < 4;
       ++i) {  // Fill the accept queue; later connects stay in SYN_SENT.
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    connect(fd, reinterpret_cast<sockaddr*>(&address), length);
    fillers.push_back(fd);
  }
  absl::SleepFor(absl::Milliseconds(100));
  FetchOptions options = TestOptions();
  options.connect_timeout = absl::Seconds(1);
  options.total_timeout = absl::Seconds(10);
  const Timed t = FetchTimed(
      options, absl::StrCat("http://127.0.0.1:", ntohs(address.sin_port), "/"));
  for (int fd : fillers) close(fd);
  close(listener);
  EXPECT_EQ(t.response.error, FetchError::kTimeout) << t.response.error_message;
  EXPECT_THAT(t.response.error_message, HasSubstr("onnect"));
  EXPECT_GE(t.elapsed, options.connect_timeout - absl::Milliseconds(50));
  EXPECT_LT(t.elapsed, options.connect_timeout + kSlack);
}

TEST(HostileServerTest, ATrickleIsAbortedByTheLowSpeedLimit) {
  RawServer server([](Connection& c) {
    std::string head;
    if (!c.ReadRequestHead(&head)) return;
    if (!c.Send("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")) return;
    while (c.Sleep(absl::Seconds(1)) && c.Send("x")) {  // 1 byte/s.
    }
  });
  FetchOptions options = TestOptions();
  options.total_timeout = absl::Seconds(30);
  options.low_speed_limit = 100;
  options.low_speed_time = absl::Seconds(1);
  const Timed t = FetchTimed(options, server.Url("/"));
  EXPECT_EQ(t.response.error, FetchError::kTimeout) << t.response.error_message;
  EXPECT_THAT(t.response.error_message, HasSubstr("too slow"));
  EXPECT_EQ(t.response.status, 200);
  EXPECT_LT(t.elapsed, options.low_speed_time + kSlack);
}

TEST(HostileServerTest, AnEndlessBodyIsCutAtMaxBodyBytesAndMarkedTruncated) {
  RawServer server([](Connection& c) {
    std::string head;
    if (!c.ReadRequestHead(&head)) return;
    // No Content-Length: the body runs until the connection closes, which it
    // never does.
    if (!c.Send("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: "
                "close\r\n\r\n")) {
      return;
    }
    const std::string chunk(16 * 1024, 'a');
    while (c.Send(chunk)) {
    }
  });
  FetchOptions options = TestOptions();
  options.total_timeout = absl::Seconds(2);
  options.max_body_bytes = 100'000;
  const Timed t = FetchTimed(options, server.Url("/"));
  ASSERT_TRUE(t.response.ok()) << t.response.error_message;
  EXPECT_TRUE(t.response.truncated);
  EXPECT_EQ(t.response.body.size(), 100'000u);
  EXPECT_EQ(t.response.body, std::string(100'000, 'a'));
  EXPECT_EQ(t.response.status, 200);
  EXPECT_LT(t.elapsed, options.total_timeout + kSlack);
}

TEST(HostileServerTest, AResetConnectionIsReported) {
  RawServer server([](Connection& c) {
    std::string head;
    if (c.ReadRequestHead(&head)) c.ResetOnClose();
  });
  FetchOptions options = TestOptions();
  options.total_timeout = absl::Seconds(2);
  const Timed t = FetchTimed(options, server.Url("/"));
  EXPECT_EQ(t.response.error, FetchError::kReset) << t.response.error_message;
  EXPECT_FALSE(t.response.error_message.empty());
  EXPECT_LT(t.elapsed, options.total_timeout + kSlack);
}

TEST(HostileServerTest, AResetInTheMiddleOfTheBodyIsReported) {
  RawServer server([](Connection& c) {
    std::string head;
    if (!c.ReadRequestHead(&head)) return;
    c.Send("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial");
    c.Sleep(absl::Milliseconds(50));
    c.ResetOnClose();
  });
  FetchOptions options = TestOptions();
  options.total_timeout = absl::Seconds(2);
  const Timed t = FetchTimed(options, server.Url("/"));
  EXPECT_EQ(t.response.error, FetchError::kReset) << t.response.error_message;
  EXPECT_LT(t.elapsed, options.total_timeout + kSlack);
}

TEST(HostileServerTest, AnEmptyReplyIsReported) {
  RawServer server([](Connection& c) {
    std::string head;
    c.ReadRequestHead(&head);  // Then close without a byte.
  });
  const Timed t = FetchTimed(TestOptions(), server.Url("/"));
  EXPECT_EQ(t.response.error, FetchError::kReset) << t.response.error_message;
}

TEST(HostileServerTest, GarbageInsteadOfHttpIsAProtocolError) {
  RawServer server([](Connection& c) {
    std::string head;
    if (c.ReadRequestHead(&head)) c.Send("SSH-2.0-OpenSSH_9.2\r\n\r\n");
  });
  const Timed t = FetchTimed(TestOptions(), server.Url("/"));
  EXPECT_EQ(t.response.error, FetchError::kProtocol)
      << t.response.error_message;
}

// Retrying is the Frontier's decision: the Fetcher reports the reset at once.
TEST(HostileServerTest, AResetIsReportedWithoutARetry) {
  RawServer server([](Connection& c) {
    std::string head;
    if (c.ReadRequestHead(&head)) c.ResetOnClose();
  });
  const Timed t = FetchTimed(TestOptions(), server.Url("/"));
  EXPECT_EQ(t.response.error, FetchError::kReset) << t.response.error_message;
  EXPECT_EQ(server.accepted(), 1);
}

}  // namespace
}  // namespace sieve
