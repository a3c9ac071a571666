// tests/frontier/service/test_frontier.h: a FrontierServer on 127.0.0.1 (a
// free port) with a clock the test sets, and a small client that makes every
// call with a deadline.
#ifndef SIEVE_TESTS_FRONTIER_SERVICE_TEST_FRONTIER_H_
#define SIEVE_TESTS_FRONTIER_SERVICE_TEST_FRONTIER_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "frontier/service/frontier_server.h"
#include "gtest/gtest.h"
#include "sieve_frontier.grpc.pb.h"
#include "tests/common/temp_dir.h"
#include "urlfrontier.grpc.pb.h"

namespace sieve::service::testing {

inline constexpr int64_t kStart = 1'700'000'000;  // The fake clock's start.

// A fresh directory under the test's temp dir.
inline std::filesystem::path FreshDir(const std::string& name) {
  return test::FreshDir("urlfrontier/" + name);
}

inline std::unique_ptr<grpc::ClientContext> Context() {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() +
                    std::chrono::seconds(20));
  return ctx;
}

inline urlfrontier::URLItem Discovered(const std::string& url,
                                       const std::string& crawl = "",
                                       const std::string& key = "") {
  urlfrontier::URLItem item;
  urlfrontier::URLInfo* info = item.mutable_discovered()->mutable_info();
  info->set_url(url);
  info->set_crawlid(crawl);
  info->set_key(key);
  return item;
}

inline urlfrontier::URLItem Known(const std::string& url, uint64_t refetch,
                                  const std::string& crawl = "",
                                  const std::string& key = "") {
  urlfrontier::URLItem item;
  urlfrontier::URLInfo* info = item.mutable_known()->mutable_info();
  info->set_url(url);
  info->set_crawlid(crawl);
  info->set_key(key);
  item.mutable_known()->set_refetchable_from_date(refetch);
  return item;
}

class TestFrontier {
 public:
  explicit TestFrontier(const std::string& name, bool fresh = true)
      : dir_(fresh ? FreshDir(name)
                   : test::ProcessTempDir() / "urlfrontier" / name) {
    Start();
  }

  void Start() {
    FrontierServerOptions o;
    o.listen = "127.0.0.1:0";
    o.core.data_dir = dir_;
    o.core.expected_urls = 10'000;
    o.core.default_queue_delay = 0;
    o.core.default_delay_requestable = 30;
    o.core.clock = [this] { return absl::FromUnixSeconds(now_.load()); };
    absl::StatusOr<std::unique_ptr<FrontierServer>> s =
        FrontierServer::Start(std::move(o));
    ASSERT_TRUE(s.ok()) << s.status();
    server_ = *std::move(s);
    channel_ =
        grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()),
                            grpc::InsecureChannelCredentials());
    stub_ = urlfrontier::URLFrontier::NewStub(channel_);
    sieve_stub_ = sieve_urlfrontier::SieveFrontier::NewStub(channel_);
  }
  // Stops the server and starts a new one on the same directory.
  void Restart() {
    stub_.reset();
    sieve_stub_.reset();
    channel_.reset();
    server_->Shutdown(absl::Seconds(1));
    server_->Wait();
    server_.reset();
    Start();
  }

  void Advance(int64_t seconds) { now_ += seconds; }
  absl::Time time() const { return absl::FromUnixSeconds(now_.load()); }
  std::string target() const {
    return "127.0.0.1:" + std::to_string(server_->port());
  }
  int64_t now() const { return now_; }
  urlfrontier::URLFrontier::Stub& stub() { return *stub_; }
  const std::filesystem::path& dir() const { return dir_; }

  // PutURLs of `items` on one stream; the acks' statuses in order.
  std::vector<urlfrontier::AckMessage::Status> Put(
      const std::vector<urlfrontier::URLItem>& items) {
    auto ctx = Context();
    auto stream = stub_->PutURLs(ctx.get());
    std::vector<urlfrontier::AckMessage::Status> out;
    urlfrontier::AckMessage ack;
    for (const urlfrontier::URLItem& item : items) {
      EXPECT_TRUE(stream->Write(item));
      EXPECT_TRUE(stream->Read(&ack));
      out.push_back(ack.status());
    }
    stream->WritesDone();
    EXPECT_TRUE(stream->Finish().ok());
    return out;
  }
  void PutOk(const std::vector<urlfrontier::URLItem>& items) {
    for (auto s : Put(items)) EXPECT_EQ(s, urlfrontier::AckMessage::OK);
  }

  std::vector<std::string> Get(urlfrontier::GetParams params = {}) {
    auto ctx = Context();
    auto reader = stub_->GetURLs(ctx.get(), params);
    std::vector<std::string> urls;
    urlfrontier::URLInfo info;
    while (reader->Read(&info)) urls.push_back(info.url());
    EXPECT_TRUE(reader->Finish().ok());
    return urls;
  }
  std::vector<std::string> GetCrawl(const std::string& crawl) {
    urlfrontier::GetParams p;
    p.set_crawlid(crawl);
    return Get(p);
  }

  urlfrontier::Stats Stats(const std::string& key = "",
                           const std::string& crawl = "") {
    urlfrontier::QueueWithinCrawlParams p;
    p.set_key(key);
    p.set_crawlid(crawl);
    urlfrontier::Stats out;
    EXPECT_TRUE(stub_->GetStats(Context().get(), p, &out).ok());
    return out;
  }

  uint64_t Count(const std::string& crawl = "", const std::string& key = "",
                 const std::string& filter = "") {
    urlfrontier::CountUrlParams p;
    p.set_crawlid(crawl);
    p.set_key(key);
    if (!filter.empty()) p.set_filter(filter);
    urlfrontier::Long out;
    EXPECT_TRUE(stub_->CountURLs(Context().get(), p, &out).ok());
    return out.value();
  }

  grpc::Status Status(const std::string& url, urlfrontier::URLItem* out,
                      const std::string& crawl = "") {
    urlfrontier::URLStatusRequest r;
    r.set_url(url);
    r.set_crawlid(crawl);
    return stub_->GetURLStatus(Context().get(), r, out);
  }

  sieve_urlfrontier::SieveFrontier::Stub& sieve_stub() { return *sieve_stub_; }

 private:
  std::filesystem::path dir_;
  std::atomic<int64_t> now_{kStart};
  std::unique_ptr<FrontierServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<urlfrontier::URLFrontier::Stub> stub_;
  std::unique_ptr<sieve_urlfrontier::SieveFrontier::Stub> sieve_stub_;
};

}  // namespace sieve::service::testing

#endif  // SIEVE_TESTS_FRONTIER_SERVICE_TEST_FRONTIER_H_
