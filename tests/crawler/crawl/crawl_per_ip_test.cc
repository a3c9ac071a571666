// Per-IP politeness through the `sieve` binary: 20 host names n00.ip.test ...
// n19.ip.test that a real DNS server (dnsmasq on 127.0.0.1) maps to one
// address, 127.0.0.1, served by one server that logs when each request came
// and went. It runs in a network namespace the test creates (`unshare --net
// --mount`, root only; /etc/resolv.conf is bind-mounted inside it only), so
// nothing outside is touched. Checked at the server:
//   - politeness.key = ip: no request to the address starts sooner than the
//     delay after the previous one ended;
//   - the default, politeness.key = host: the same crawl does come closer
//     (20 hosts in parallel), so the first check can fail;
//   - politeness.max_requests_per_second: no two requests start closer than
//     1 / rate.
#include <httplib.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/common/dnsmasq.h"
#include "tests/crawler/crawl/crawl_test_util.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using testing_util::FreshDir;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

constexpr int kHosts = 20;
constexpr double kDelaySeconds = 0.08;
constexpr double kRate = 25;  // Requests per second, for the rate cap run.
const absl::Duration kSlack = absl::Milliseconds(5);

std::string HostName(int i) { return absl::StrFormat("n%02d.ip.test", i); }

struct Request {
  std::string host;
  std::string path;
  absl::Time start;
  absl::Time end;
};

// One HTTP server on 127.0.0.1:80 answering every host: "/" links
// "/a.html", which links "/"; robots.txt is 404.
class OneAddressServer {
 public:
  OneAddressServer() {
    server_.new_task_queue = [] { return new httplib::ThreadPool(2 * kHosts); };
    server_.Get(
        ".*", [this](const httplib::Request& req, httplib::Response& res) {
          const absl::Time start = absl::Now();
          if (req.path == "/robots.txt") {
            res.status = 404;
          } else {
            res.set_content(req.path == "/"
                                ? "<html><body><a href=\"/a.html\">a</a></body>"
                                : "<html><body><a href=\"/\">home</a></body>",
                            "text/html");
          }
          std::string host = req.get_header_value("Host");
          std::lock_guard<std::mutex> lock(mu_);
          requests_.push_back({host, req.path, start, absl::Now()});
        });
    if (!server_.bind_to_port("127.0.0.1", 80)) std::abort();
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) absl::SleepFor(absl::Milliseconds(1));
  }
  ~OneAddressServer() {
    server_.stop();
    thread_.join();
  }
  // The requests so far, by start, and forgets them.
  std::vector<Request> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Request> out = std::move(requests_);
    requests_.clear();
    std::sort(out.begin(), out.end(), [](const Request& a, const Request& b) {
      return a.start < b.start;
    });
    return out;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  std::mutex mu_;
  std::vector<Request> requests_;
};

// Requests that started sooner than `gap` after the previous one ended.
int CloserThanAfterEnd(const std::vector<Request>& r, absl::Duration gap) {
  int n = 0;
  absl::Time last_end = absl::InfinitePast();  // Of the requests before.
  for (const Request& request : r) {
    n += request.start - last_end < gap - kSlack ? 1 : 0;
    last_end = std::max(last_end, request.end);
  }
  return n;
}

// The most requests that started within one second of each other.
int MostStartsInASecond(const std::vector<Request>& r) {
  std::vector<absl::Time> starts;
  for (const Request& request : r) starts.push_back(request.start);
  return testing_util::MostStartsInASecond(std::move(starts));
}

// Crawls the 20 hosts with `flags` added; returns the server's requests.
std::vector<Request> Crawl(const fs::path& dir, const std::string& name,
                           const std::vector<std::string>& flags,
                           OneAddressServer& server) {
  std::vector<std::string> args = {"crawl",
                                   "--seeds",
                                   (dir / "seeds.txt").string(),
                                   "--out",
                                   (dir / name).string(),
                                   "--delay",
                                   absl::StrCat(kDelaySeconds),
                                   "--sitemaps",
                                   "off"};
  args.insert(args.end(), flags.begin(), flags.end());
  const fs::path log = dir / (name + ".log");
  const int code = WaitFor(StartSieve(args, log));
  EXPECT_EQ(code, 0) << ReadFile(log);
  EXPECT_EQ(ReadPages(dir / name).size(), size_t{2 * kHosts}) << ReadFile(log);
  std::vector<Request> requests = server.Take();
  EXPECT_EQ(requests.size(), size_t{3 * kHosts});  // robots.txt, /, /a.html.
  return requests;
}

void RunInNamespace() {
  const fs::path dir = FreshDir("per_ip");
  ASSERT_TRUE(test::UseLoopbackResolver(dir));
  test::Dnsmasq dns(dir, {"--address=/ip.test/127.0.0.1"}, 53);
  ASSERT_TRUE(dns.ok());
  {
    std::ofstream seeds(dir / "seeds.txt");
    for (int i = 0; i < kHosts; ++i) seeds << "http://" << HostName(i) << "/\n";
  }
  {
    OneAddressServer server;
    const absl::Duration delay = absl::Seconds(kDelaySeconds);

    const std::vector<Request> by_ip =
        Crawl(dir, "ip", {"--politeness-key", "ip"}, server);
    EXPECT_EQ(CloserThanAfterEnd(by_ip, delay), 0)
        << "requests to 127.0.0.1 closer than the delay with key = ip";

    const std::vector<Request> by_host = Crawl(dir, "host", {}, server);
    const int close = CloserThanAfterEnd(by_host, delay);
    std::cout << "key = host: " << close << " of " << by_host.size()
              << " requests to 127.0.0.1 came closer than the delay\n";
    EXPECT_GT(close, kHosts) << "20 hosts in parallel should overlap";

    const std::vector<Request> capped =
        Crawl(dir, "rate", {"--max-requests-per-second", absl::StrCat(kRate)},
              server);
    // The cap spaces the requests as the loop starts them; one may reach the
    // server later than the next (its name still resolving, its connection
    // opening, a loaded machine's scheduling), never sooner. So two starts at
    // the server may be closer than 1 / rate, but no second holds more than
    // the rate, give or take that one late request (without the cap the 60
    // requests come within one second), and the crawl's span holds them all
    // at the rate.
    const absl::Duration interval = absl::Seconds(1 / kRate);
    EXPECT_LE(MostStartsInASecond(capped), static_cast<int>(kRate) + 1)
        << "more than max_requests_per_second requests in one second";
    ASSERT_FALSE(capped.empty());
    EXPECT_GE(capped.back().start - capped.front().start + kSlack,
              interval * static_cast<double>(capped.size() - 1))
        << "more requests than max_requests_per_second allows";
  }
}

TEST(CrawlPerIpTest, HostsOnOneAddressShareTheDelayWithKeyIp) {
  if (test::InNetworkNamespace()) {
    RunInNamespace();
    return;
  }
  const test::NamespaceRun run = test::RerunInNetworkNamespace({"dnsmasq"});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  EXPECT_EQ(run.code, 0)
      << "the crawls inside the namespace failed (see above)";
}

}  // namespace
}  // namespace sieve
