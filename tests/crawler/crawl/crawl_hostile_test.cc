// A crawl of hostile pages on 127.0.0.1: an endless body, a 1 byte/s trickle, a
// connection closed mid-body, an invalid gzip body, binary bytes served as
// text/html and 10 MB of links. None may stop or hang the crawl; each is
// recorded.
#include <httplib.h>

#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"

namespace sieve {
namespace {

using testing_util::CrawlInProcess;
using testing_util::FastConfig;
using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadPages;

class HostileServer {
 public:
  HostileServer() {
    server_.set_tcp_nodelay(true);
    // cpp-httplib answers "Accept-Encoding: br" with brotli at its slowest
    // quality (seconds for 10 MB): offer it gzip only. A test-server shortcut,
    // not something the crawler relies on.
    server_.set_pre_routing_handler(
        [](const httplib::Request& req, httplib::Response&) {
          auto& headers = const_cast<httplib::Request&>(req).headers;
          if (headers.count("Accept-Encoding") > 0) {
            headers.erase("Accept-Encoding");
            headers.emplace("Accept-Encoding", "gzip");
          }
          return httplib::Server::HandlerResponse::Unhandled;
        });
    server_.Get("/", [](const httplib::Request&, httplib::Response& res) {
      std::string body = "<html><body>";
      for (const char* path : {"/endless", "/trickle", "/reset", "/badgzip",
                               "/binary", "/links10mb", "/ok.html"}) {
        absl::StrAppend(&body, "<a href=\"", path, "\">x</a>");
      }
      res.set_content(body + "</body></html>", "text/html");
    });
    server_.Get("/ok.html", [](const httplib::Request&,
                               httplib::Response& res) {
      res.set_content("<html><a href=\"/ok2.html\">ok</a></html>", "text/html");
    });
    server_.Get("/ok2.html",
                [](const httplib::Request&, httplib::Response& res) {
                  res.set_content("<html>fine</html>", "text/html");
                });
    // Bodies are made before the crawl, and random where they must not compress
    // (the server gzips text/html for a client that accepts it).
    std::mt19937 gen(42);
    random_chunk_.resize(64 << 10);
    for (char& c : random_chunk_) c = static_cast<char>('a' + gen() % 26);
    binary_.resize(256 << 10);
    for (char& c : binary_) c = static_cast<char>(gen());
    links_ = "<html><body>";
    for (int i = 0; links_.size() < (10u << 20) - 64; ++i) {
      absl::StrAppend(&links_, "<a href=\"/l/", i, "\">", i, "</a>\n");
    }
    links_ += "</body></html>";
    server_.Get("/endless", [this](const httplib::Request&,
                                   httplib::Response& res) {
      // Not text/*: cpp-httplib would gzip it, and its compressor stalls an
      // endless stream.
      res.set_chunked_content_provider(
          "application/octet-stream", [this](size_t, httplib::DataSink& sink) {
            return !stopping_.load() &&
                   sink.write(random_chunk_.data(), random_chunk_.size());
          });
    });
    server_.Get(
        "/trickle", [this](const httplib::Request&, httplib::Response& res) {
          res.set_chunked_content_provider(
              "text/html", [this](size_t offset, httplib::DataSink& sink) {
                if (stopping_.load() || offset > 60) return false;
                absl::SleepFor(absl::Seconds(1));
                return sink.write("<", 1);
              });
        });
    server_.Get("/reset", [](const httplib::Request&, httplib::Response& res) {
      // Promises 100 kB, sends 10 bytes, closes the connection.
      res.set_content_provider(100'000, "text/html",
                               [](size_t, size_t, httplib::DataSink& sink) {
                                 sink.write("<html><bod", 10);
                                 return false;
                               });
    });
    server_.Get("/badgzip", [](const httplib::Request&,
                               httplib::Response& res) {
      res.set_header("Content-Encoding", "gzip");
      res.set_content(
          std::string("\x1f\x8b\x08\x00garbage that is not deflate data", 36),
          "text/html");
    });
    server_.Get("/binary",
                [this](const httplib::Request&, httplib::Response& res) {
                  res.set_content(binary_, "text/html");
                });
    server_.Get("/links10mb",
                [this](const httplib::Request&, httplib::Response& res) {
                  res.set_content(links_, "text/html");
                });
    server_.Get(R"(/l/\d+)",
                [](const httplib::Request&, httplib::Response& res) {
                  res.set_content("<html>leaf</html>", "text/html");
                });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) absl::SleepFor(absl::Milliseconds(1));
  }
  ~HostileServer() {
    stopping_.store(true);
    server_.stop();
    thread_.join();
  }
  std::string root() const {
    return absl::StrCat("http://127.0.0.1:", port_, "/");
  }

 private:
  httplib::Server server_;
  std::atomic<bool> stopping_{false};
  std::string random_chunk_;
  std::string binary_;
  std::string links_;
  int port_ = 0;
  std::thread thread_;
};

TEST(CrawlHostileTest, HostilePagesAreRecordedAndNeverHangTheCrawl) {
  HostileServer server;
  const auto out = FreshDir("hostile");
  CrawlConfig config = FastConfig(out);
  config.fetch.timeout =
      10;  // The bounds below, not the total timeout, must end each case.
  config.fetch.low_speed_limit = 100;
  config.fetch.low_speed_time = 5;  // Generous: the server gzips 10 MB first.
  config.fetch.max_body_bytes = 12 << 20;
  config.crawl.max_outlinks_per_page = 100;
  const absl::Time start = absl::Now();
  absl::StatusOr<CrawlSummary> summary =
      CrawlInProcess(config, {server.root()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->stop_reason, StopReason::kFinished);
  EXPECT_LT(absl::Now() - start, absl::Seconds(60));

  std::map<std::string, nlohmann::json> by_path;
  for (const nlohmann::json& page : ReadPages(out))
    by_path[PathOf(page["url"])] = page;
  for (const char* path : {"/", "/endless", "/trickle", "/reset", "/badgzip",
                           "/binary", "/links10mb", "/ok.html", "/ok2.html"}) {
    EXPECT_TRUE(by_path.contains(path)) << path << " not recorded";
  }
  EXPECT_EQ(by_path["/endless"]["truncated"], true);
  EXPECT_EQ(by_path["/endless"]["bytes"], 12 << 20);
  EXPECT_EQ(by_path["/trickle"]["error"], "timeout");
  EXPECT_FALSE(by_path["/reset"]["error"].is_null())
      << by_path["/reset"].dump();
  EXPECT_FALSE(by_path["/badgzip"]["error"].is_null())
      << by_path["/badgzip"].dump();
  EXPECT_EQ(by_path["/binary"]["status"], 200);
  EXPECT_TRUE(by_path["/binary"]["error"].is_null());
  // 10 MB of links: parsed, every link counted, only max_outlinks_per_page
  // followed.
  EXPECT_GT(by_path["/links10mb"]["links_found"].get<int>(), 100'000);
  EXPECT_EQ(by_path["/links10mb"]["links_new"], 100);
  EXPECT_EQ(ReadPages(out).size(), 9u + 100u);
}

}  // namespace
}  // namespace sieve
