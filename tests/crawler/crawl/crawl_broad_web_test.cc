// A broad web in miniature, through the `sieve` binary: 200 HTTPS hosts
// h0000.web.test ... h0199.web.test, each on its own loopback address given
// by a real DNS server (dnsmasq) on 127.0.0.1, all served by one server with a
// certificate from a CA the test makes. It runs in a network namespace the
// test creates (`unshare --net --mount`, root only; /etc/resolv.conf is
// bind-mounted inside it only), so nothing outside is touched. Checked at the
// server and in summary.json: every page once, no two requests to one host
// closer than the delay, at most 2 connections per host on average, TLS
// sessions resumed, at most 2 DNS lookups per host.
#include <httplib.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
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
#include "tests/fetch/test_pki.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using testing_util::FreshDir;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

constexpr int kHosts = 200;
constexpr int kPagesPerHost = 5;  // "/" and /p/1.html ... /p/4.html.
constexpr double kDelaySeconds = 0.2;

std::string HostName(int i) { return absl::StrFormat("h%04d.web.test", i); }

struct Request {
  std::string host;
  std::string path;
  absl::Time start;
  absl::Time end;
};

// One HTTPS server on 0.0.0.0:443 inside the namespace answering every host:
// "/" links the host's four pages and the next host's "/", each page links
// "/" and the next page. robots.txt is 404 (everything allowed).
class BroadWebServer {
 public:
  explicit BroadWebServer(const fetch_test::TestPki& pki)
      : server_(pki.cert.c_str(), pki.key.c_str()) {
    // One thread per open connection (cpp-httplib): the crawler keeps one
    // per host.
    server_.new_task_queue = [] { return new httplib::ThreadPool(2 * kHosts); };
    server_.set_keep_alive_timeout(30);
    // A connection carries 3 requests (nginx's keepalive_requests, made
    // small): each host's 6 requests need a second connection, which should
    // resume the first one's TLS session.
    server_.set_keep_alive_max_count(3);
    server_.set_tcp_nodelay(true);
    server_.Get(
        ".*", [this](const httplib::Request& req, httplib::Response& res) {
          const absl::Time start = absl::Now();
          std::string host = req.get_header_value("Host");
          host = host.substr(0, host.find(':'));
          if (req.path == "/robots.txt") {
            res.status = 404;
          } else {
            const int self = std::atoi(host.c_str() + 1);
            std::string body = "<html><body>";
            if (req.path == "/") {
              for (int p = 1; p < kPagesPerHost; ++p)
                absl::StrAppend(&body, "<a href=\"/p/", p, ".html\">p</a>");
              absl::StrAppend(&body, "<a href=\"https://",
                              HostName((self + 1) % kHosts), "/\">next</a>");
            } else {
              const int p = std::atoi(req.path.c_str() + 3);
              absl::StrAppend(&body, "<a href=\"/\">home</a><a href=\"/p/",
                              p % (kPagesPerHost - 1) + 1, ".html\">next</a>");
            }
            res.set_content(body + "</body></html>", "text/html");
          }
          std::lock_guard<std::mutex> lock(mu_);
          requests_.push_back({host, req.path, start, absl::Now()});
        });
    if (!server_.bind_to_port("0.0.0.0", 443)) std::abort();
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) absl::SleepFor(absl::Milliseconds(1));
  }
  ~BroadWebServer() {
    server_.stop();
    thread_.join();
  }
  std::vector<Request> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  httplib::SSLServer server_;
  std::thread thread_;
  std::mutex mu_;
  std::vector<Request> requests_;
};

// Inside the namespace: loopback up, resolv.conf pointing at dnsmasq.
void RunInNamespace() {
  const fs::path dir = FreshDir("broad_web");
  ASSERT_TRUE(test::UseLoopbackResolver(dir));
  std::vector<std::string> records = {"--log-queries"};
  for (int i = 0; i < kHosts; ++i) {
    records.push_back(absl::StrCat("--address=/", HostName(i), "/127.1.",
                                   i / 250, ".", i % 250 + 1));
  }
  test::Dnsmasq dns(dir, records, 53);
  ASSERT_TRUE(dns.ok());
  fetch_test::TestPki pki;
  ASSERT_TRUE(fetch_test::MakeTestPki(dir, &pki, "DNS:*.web.test"));
  std::vector<Request> requests;
  nlohmann::json summary;
  {
    BroadWebServer server(pki);
    {
      std::ofstream seeds(dir / "seeds.txt");
      for (int i = 0; i < kHosts; ++i)
        seeds << "https://" << HostName(i) << "/\n";
    }
    const fs::path log = dir / "sieve.log";
    const int code = WaitFor(
        StartSieve({"crawl", "--seeds", (dir / "seeds.txt").string(), "--out",
                    (dir / "out").string(), "--ca-bundle", pki.ca, "--delay",
                    absl::StrCat(kDelaySeconds), "--sitemaps", "off"},
                   log));
    EXPECT_EQ(code, 0) << ReadFile(log);
    requests = server.requests();
    summary = nlohmann::json::parse(ReadFile(dir / "out" / "summary.json"));
  }

  // Every page once, recorded once.
  std::map<std::string, int> asked;
  std::map<std::string, std::vector<Request>> by_host;
  for (const Request& r : requests) {
    ++asked[r.host + r.path];
    by_host[r.host].push_back(r);
  }
  EXPECT_EQ(asked.size(), size_t{kHosts} * (kPagesPerHost + 1));  // + robots.
  for (const auto& [url, n] : asked) EXPECT_EQ(n, 1) << url;
  const std::vector<nlohmann::json> pages = ReadPages(dir / "out");
  EXPECT_EQ(pages.size(), size_t{kHosts} * kPagesPerHost);
  for (const nlohmann::json& page : pages)
    EXPECT_EQ(page["status"], 200) << page.dump();

  // Polite at the server: a host's next request starts at least the delay
  // after its previous answer (robots.txt included).
  int violations = 0;
  for (auto& [host, list] : by_host) {
    std::sort(list.begin(), list.end(), [](const Request& a, const Request& b) {
      return a.start < b.start;
    });
    for (size_t i = 1; i < list.size(); ++i) {
      if (list[i].start - list[i - 1].end <
          absl::Seconds(kDelaySeconds) - absl::Milliseconds(5)) {
        ++violations;
        ADD_FAILURE() << host << list[i].path << " came "
                      << (list[i].start - list[i - 1].end) << " after "
                      << list[i - 1].path;
      }
    }
  }
  EXPECT_EQ(violations, 0);

  const nlohmann::json& fetch = summary["fetch"];
  std::cout << "fetch counters: " << fetch.dump() << "\n";
  EXPECT_LE(fetch["connections_opened"].get<double>() / kHosts, 2.0)
      << fetch.dump();
  EXPECT_LE(fetch["dns_lookups"].get<double>() / kHosts, 2.0) << fetch.dump();
  EXPECT_EQ(fetch["tls_full_handshakes"].get<int>() +
                fetch["tls_resumed_handshakes"].get<int>(),
            fetch["connections_opened"].get<int>())
      << fetch.dump();
  // Every connection after a host's first resumed its session.
  EXPECT_GT(fetch["tls_resumed_handshakes"].get<int>(), 0) << fetch.dump();
  EXPECT_EQ(fetch["tls_resumed_handshakes"].get<int>(),
            fetch["connections_opened"].get<int>() - kHosts)
      << fetch.dump();
  // What the DNS server was asked (A and AAAA are separate questions).
  const int dns_queries = dns.Questions();
  std::cout << "DNS queries at dnsmasq: " << dns_queries << " for " << kHosts
            << " hosts\n";
  EXPECT_LE(dns_queries, 4 * kHosts);
}

TEST(CrawlBroadWebTest, TwoHundredHttpsHostsPoliteWithConnectionsAndDnsKept) {
  if (test::InNetworkNamespace()) {
    RunInNamespace();
    return;
  }
  const test::NamespaceRun run =
      test::RerunInNetworkNamespace({"dnsmasq", "openssl"});
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  EXPECT_EQ(run.code, 0) << "the crawl inside the namespace failed (see above)";
}

}  // namespace
}  // namespace sieve
