// `sieve frontier serve` as a user runs it: the real binary as a child
// process. Killed with SIGKILL in the middle of a PutURLs stream and started
// again on the same --data, it still has every put it acknowledged; SIGTERM
// stops it cleanly.
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"
#include "urlfrontier.grpc.pb.h"

namespace {

namespace fs = std::filesystem;

// One `sieve frontier serve` child; its stdout gives the port.
class ServerProcess {
 public:
  explicit ServerProcess(const fs::path& data) {
    int out[2];
    if (pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      const std::string data_flag = "--data=" + data.string();
      execl(SIEVE_BINARY, SIEVE_BINARY, "frontier", "serve",
            "--listen=127.0.0.1:0", data_flag.c_str(), "--queue-delay=0",
            "--log-level=warn", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    out_ = out[0];
    port_ = ReadPort();
  }
  ~ServerProcess() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) close(out_);
  }

  int port() const { return port_; }
  // Sends `sig` and waits (at most 20 s) for the exit; the wait status, or
  // -1 if the child did not exit in time.
  int Stop(int sig) {
    kill(pid_, sig);
    for (int i = 0; i < 2000; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        return status;
      }
      usleep(10'000);
    }
    return -1;
  }

 private:
  // "listening on 127.0.0.1:PORT\n", waited for at most 20 s.
  int ReadPort() {
    std::string line;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (line.find('\n') == std::string::npos &&
           std::chrono::steady_clock::now() < deadline) {
      pollfd p{.fd = out_, .events = POLLIN, .revents = 0};
      if (poll(&p, 1, 200) <= 0) continue;
      char buf[256];
      const ssize_t n = read(out_, buf, sizeof(buf));
      if (n <= 0) break;
      line.append(buf, static_cast<size_t>(n));
    }
    const size_t colon = line.rfind(':');
    if (line.rfind("listening on ", 0) != 0 || colon == std::string::npos)
      return 0;
    return std::stoi(line.substr(colon + 1));
  }

  pid_t pid_ = -1;
  int out_ = -1;
  int port_ = 0;
  bool reaped_ = false;
};

std::unique_ptr<urlfrontier::URLFrontier::Stub> Connect(int port) {
  return urlfrontier::URLFrontier::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
}

void SetDeadline(grpc::ClientContext& ctx) {
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
}

urlfrontier::URLItem Item(int i) {
  urlfrontier::URLItem item;
  const std::string url =
      "http://h" + std::to_string(i % 7) + ".example/page/" + std::to_string(i);
  if (i % 3 == 0) {
    // Known items too: an update must survive as well as a new URL.
    item.mutable_known()->mutable_info()->set_url(url);
    item.mutable_known()->set_refetchable_from_date(0);
  } else {
    item.mutable_discovered()->mutable_info()->set_url(url);
  }
  return item;
}

// A data directory the server is to create: DIR/data of a fresh DIR.
fs::path FreshDir(const std::string& name) {
  return sieve::test::FreshDir(name) / "data";
}

TEST(FrontierServeTest, KeepsEveryAcknowledgedPutAfterAKillMidStream) {
  const fs::path data = FreshDir("kill9");
  std::vector<int> acked;
  {
    ServerProcess server(data);
    ASSERT_NE(server.port(), 0) << "the server did not report its port";
    auto stub = Connect(server.port());
    grpc::ClientContext ctx;
    SetDeadline(ctx);
    auto stream = stub->PutURLs(&ctx);
    urlfrontier::AckMessage ack;
    for (int i = 0; i < 3000; ++i) {
      ASSERT_TRUE(stream->Write(Item(i)));
      ASSERT_TRUE(stream->Read(&ack));
      ASSERT_EQ(ack.status(), urlfrontier::AckMessage::OK);
      acked.push_back(i);
    }
    // More items in flight, unacknowledged, when the server dies.
    for (int i = 3000; i < 3200; ++i) stream->Write(Item(i));
    const int status = server.Stop(SIGKILL);
    ASSERT_TRUE(WIFSIGNALED(status));
    ASSERT_EQ(WTERMSIG(status), SIGKILL);
    ctx.TryCancel();
  }
  ServerProcess again(data);
  ASSERT_NE(again.port(), 0);
  auto stub = Connect(again.port());
  for (int i : acked) {
    const urlfrontier::URLItem want = Item(i);
    urlfrontier::URLStatusRequest r;
    r.set_url(want.has_known() ? want.known().info().url()
                               : want.discovered().info().url());
    grpc::ClientContext ctx;
    SetDeadline(ctx);
    urlfrontier::URLItem got;
    const grpc::Status s = stub->GetURLStatus(&ctx, r, &got);
    ASSERT_TRUE(s.ok()) << r.url() << ": " << s.error_message();
    EXPECT_EQ(got.has_known(), want.has_known()) << r.url();
  }
  urlfrontier::CountUrlParams c;
  urlfrontier::Long n;
  grpc::ClientContext ctx;
  SetDeadline(ctx);
  ASSERT_TRUE(stub->CountURLs(&ctx, c, &n).ok());
  EXPECT_GE(n.value(), acked.size());
  EXPECT_LE(n.value(), 3200u);
  EXPECT_EQ(again.Stop(SIGTERM), 0);
}

TEST(FrontierServeTest, StopsCleanlyOnSigterm) {
  ServerProcess server(FreshDir("sigterm"));
  ASSERT_NE(server.port(), 0);
  const int status = server.Stop(SIGTERM);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(FrontierServeTest, StopsCleanlyOnSigint) {
  ServerProcess server(FreshDir("sigint"));
  ASSERT_NE(server.port(), 0);
  const int status = server.Stop(SIGINT);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
