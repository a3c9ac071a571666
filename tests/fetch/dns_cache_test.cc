// The crawl's DNS cache against a real DNS server: dnsmasq on a port of
// 127.0.0.1 the test picks (no root needed), its log counting the questions
// it was asked. A record's TTL is kept within [min_ttl, max_ttl], a name
// that does not exist is asked once however many URLs it has, and the
// Fetcher goes on with other hosts while one name takes long to resolve.
#include "fetch/dns_cache.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "fetch/fetcher.h"
#include "gtest/gtest.h"
#include "tests/common/dnsmasq.h"
#include "tests/common/temp_dir.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

// A UDP socket on 127.0.0.1 that is never read: a DNS server that does not
// answer.
class SilentUdp {
 public:
  SilentUdp() {
    fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      ADD_FAILURE() << "cannot bind a UDP port on 127.0.0.1";
    }
    port_ = ntohs(a.sin_port);
  }
  ~SilentUdp() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

using test::Dnsmasq;

bool HaveDnsmasq() { return test::HaveCommand("dnsmasq"); }

TEST(DnsCacheTest, TtlIsKeptWithinBoundsAndFailuresAreCached) {
  if (!HaveDnsmasq()) GTEST_SKIP() << "needs dnsmasq (dnsmasq-base)";
  Dnsmasq dns(test::FreshDir("ttl"), {"--local=/test/", "--log-queries",
                                      "--host-record=low.test,127.0.0.2,1",
                                      "--host-record=high.test,127.0.0.3,100"});
  ASSERT_TRUE(dns.ok());
  DnsOptions options;
  options.servers = {dns.server()};
  options.min_ttl = absl::Seconds(2);
  options.max_ttl = absl::Seconds(3);
  options.negative_ttl = absl::Seconds(60);
  absl::StatusOr<std::unique_ptr<DnsCache>> cache = DnsCache::Create(options);
  ASSERT_TRUE(cache.ok()) << cache.status();
  const absl::Time start = absl::Now();

  DnsAnswer low = (*cache)->Resolve("low.test", absl::Seconds(5));
  ASSERT_EQ(low.state, DnsAnswer::kResolved) << low.error;
  EXPECT_EQ(low.addresses, std::vector<std::string>{"127.0.0.2"});
  DnsAnswer high = (*cache)->Resolve("HIGH.test.", absl::Seconds(5));
  ASSERT_EQ(high.state, DnsAnswer::kResolved) << high.error;
  EXPECT_EQ(high.addresses, std::vector<std::string>{"127.0.0.3"});
  for (int i = 0; i < 50; ++i) {
    DnsAnswer nx = (*cache)->Resolve("nx.test", absl::Seconds(5));
    EXPECT_EQ(nx.state, DnsAnswer::kFailed);
    EXPECT_NE(nx.error.find("nx.test"), std::string::npos) << nx.error;
  }
  EXPECT_EQ(dns.Asked("A", "nx.test"), 1);  // 50 asks, one question.
  EXPECT_EQ((*cache)->stats().negative_hits, 50u);

  // At 1.5 s: low.test's TTL of 1 s was raised to min_ttl, 2 s.
  absl::SleepFor(start + absl::Milliseconds(1500) - absl::Now());
  EXPECT_EQ((*cache)->Resolve("low.test", absl::Seconds(5)).state,
            DnsAnswer::kResolved);
  EXPECT_EQ(dns.Asked("A", "low.test"), 1);
  // At 3.5 s: high.test's TTL of 100 s was cut to max_ttl, 3 s.
  absl::SleepFor(start + absl::Milliseconds(3500) - absl::Now());
  EXPECT_EQ((*cache)->Resolve("high.test", absl::Seconds(5)).state,
            DnsAnswer::kResolved);
  // dnsmasq may write its log line a moment after it answered (under load,
  // more than Asked's 50 ms): wait for the line, up to 3 s.
  for (int i = 0; i < 60 && dns.Asked("A", "high.test") < 2; ++i) {
  }
  EXPECT_EQ(dns.Asked("A", "high.test"), 2);
  EXPECT_EQ(dns.Asked("A", "nx.test"), 1);  // Still within negative_ttl.
  EXPECT_EQ((*cache)->stats().lookups, 4u);
}

TEST(DnsCacheTest, IpLiteralsAreNotLookedUp) {
  absl::StatusOr<std::unique_ptr<DnsCache>> cache = DnsCache::Create({});
  ASSERT_TRUE(cache.ok()) << cache.status();
  EXPECT_EQ((*cache)->Lookup("127.0.0.1").addresses,
            std::vector<std::string>{"127.0.0.1"});
  EXPECT_EQ((*cache)->Lookup("[::1]").addresses,
            std::vector<std::string>{"::1"});
  EXPECT_EQ((*cache)->stats().lookups, 0u);
  EXPECT_FALSE(DnsCache::IsIpLiteral("example.com"));
}

TEST(DnsCacheTest, BadOptionsAreRefused) {
  EXPECT_FALSE(DnsCache::Create(
                   {.min_ttl = absl::Seconds(10), .max_ttl = absl::Seconds(5)})
                   .ok());
  EXPECT_FALSE(DnsCache::Create({.tries = 0}).ok());
  EXPECT_FALSE(DnsCache::Create({.servers = {"not an address"}}).ok());
}

// Past max_entries the least recently used name is dropped, one at a time:
// the names still in use keep their answers (before, a full cache dropped
// every answer at once, and a crawl over more hosts than the budget asked
// them all again).
TEST(DnsCacheTest, PastItsBudgetTheLeastRecentlyUsedNameIsEvicted) {
  if (!HaveDnsmasq()) GTEST_SKIP() << "needs dnsmasq (dnsmasq-base)";
  Dnsmasq dns(test::FreshDir("lru"),
              {"--local=/test/", "--log-queries", "--address=/test/127.0.0.5"});
  ASSERT_TRUE(dns.ok());
  DnsOptions options;
  options.servers = {dns.server()};
  options.max_entries = 4;
  absl::StatusOr<std::unique_ptr<DnsCache>> cache = DnsCache::Create(options);
  ASSERT_TRUE(cache.ok()) << cache.status();
  auto resolve = [&](const std::string& name) {
    return (*cache)->Resolve(name, absl::Seconds(5)).state;
  };
  for (const char* name : {"n0.test", "n1.test", "n2.test", "n3.test"})
    ASSERT_EQ(resolve(name), DnsAnswer::kResolved) << name;
  ASSERT_EQ(resolve("n0.test"), DnsAnswer::kResolved);  // n1 is now oldest.
  ASSERT_EQ(resolve("n4.test"), DnsAnswer::kResolved);
  EXPECT_EQ((*cache)->Peek("n1.test").state, DnsAnswer::kPending);  // Gone.
  for (const char* name : {"n0.test", "n2.test", "n3.test", "n4.test"})
    EXPECT_EQ((*cache)->Peek(name).state, DnsAnswer::kResolved) << name;
  EXPECT_EQ(dns.Asked("A", "n0.test"), 1);
  // 100 more names: the cache never holds more than its budget.
  for (int i = 5; i < 105; ++i)
    ASSERT_EQ(resolve(absl::StrCat("n", i, ".test")), DnsAnswer::kResolved);
  EXPECT_EQ((*cache)->size(), 4u);
}

TEST(FetcherDnsTest, ASlowLookupHoldsUpNoOtherHostAndDeadNamesAreAskedOnce) {
  if (!HaveDnsmasq()) GTEST_SKIP() << "needs dnsmasq (dnsmasq-base)";
  SilentUdp silent;  // slow.test's server: dnsmasq forwards and waits.
  Dnsmasq dns(
      test::FreshDir("fetch"),
      {"--local=/test/", "--log-queries", "--host-record=fast.test,127.0.0.1",
       absl::StrCat("--server=/slow.test/127.0.0.1#", silent.port())});
  ASSERT_TRUE(dns.ok());
  fetch_test::HttpServer server;
  server.server().Get(".*", [](const httplib::Request&, httplib::Response& r) {
    r.set_content("ok", "text/plain");
  });
  server.Start();
  FetchOptions options = fetch_test::TestOptions();
  options.private_address_hosts = {"fast.test"};
  options.dns.servers = {dns.server()};
  options.dns.timeout = absl::Seconds(2);
  options.dns.tries = 1;
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Fetcher::Create(options);
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();

  const absl::Time start = absl::Now();
  const std::string port = absl::StrCat(server.port());
  (*fetcher)->Submit({.id = 1, .url = "http://slow.test:" + port + "/"});
  (*fetcher)->Submit({.id = 2, .url = "http://fast.test:" + port + "/"});
  for (int i = 0; i < 20; ++i) {
    (*fetcher)->Submit({.id = 100 + static_cast<uint64_t>(i),
                        .url = absl::StrCat("http://nx.test:", port, "/", i)});
  }
  absl::Time fast_done, slow_done;
  int dead = 0;
  std::vector<FetchResponse> responses;
  while ((*fetcher)->in_flight() > 0 &&
         absl::Now() - start < absl::Seconds(20)) {
    for (FetchResponse& r : (*fetcher)->Poll(absl::Seconds(1))) {
      if (r.id == 1) slow_done = absl::Now();
      if (r.id == 2) fast_done = absl::Now();
      responses.push_back(std::move(r));
    }
  }
  for (const FetchResponse& r : responses) {
    if (r.id == 1) {
      EXPECT_EQ(r.error, FetchError::kDns) << r.error_message;
    } else if (r.id == 2) {
      EXPECT_TRUE(r.ok()) << r.error_message;
      EXPECT_EQ(r.body, "ok");
    } else {
      ++dead;
      EXPECT_EQ(r.error, FetchError::kDns) << r.error_message;
    }
  }
  EXPECT_EQ(dead, 20);
  // fast.test came back while slow.test was still being looked up, which
  // took about dns.timeout and ended, bounded.
  EXPECT_LT(fast_done - start, absl::Seconds(1));
  EXPECT_GT(slow_done - start, absl::Seconds(1.5));
  EXPECT_LT(slow_done - start, absl::Seconds(5));
  // 20 URLs of a name that does not exist, and 5 more after its answer
  // came: one question.
  for (int i = 0; i < 5; ++i) {
    (*fetcher)->Submit({.id = 200 + static_cast<uint64_t>(i),
                        .url = absl::StrCat("http://nx.test:", port, "/x", i)});
  }
  for (const FetchResponse& r : fetch_test::PollUntilIdle(**fetcher))
    EXPECT_EQ(r.error, FetchError::kDns) << r.error_message;
  EXPECT_EQ(dns.Asked("A", "nx.test"), 1);
  EXPECT_EQ((*fetcher)->counters().dns_lookups, 3u);
}

// The addresses the DnsCache gives curl for a transfer (CURLOPT_RESOLVE) stay
// in curl's own DNS cache only while that host has transfers running: the
// next transfer started takes them out (fetch/internal/curl_dns_entries.h),
// so the walk libcurl makes over that cache after every transfer stays
// short. Seen from outside: a redirect curl follows to a host whose
// transfers are done makes curl look the name up itself (counted in
// dns_lookups), where before it found the host's old entry.
TEST(FetcherDnsTest, CurlKeepsAHostsAddressesOnlyWhileItsTransfersRun) {
  if (!HaveDnsmasq()) GTEST_SKIP() << "needs dnsmasq (dnsmasq-base)";
  Dnsmasq dns(
      test::FreshDir("curl_entries"),
      {"--local=/test/", "--log-queries", "--host-record=a.test,127.0.0.1",
       "--host-record=localhost,127.0.0.1"});
  ASSERT_TRUE(dns.ok());
  fetch_test::HttpServer server;
  server.server().Get("/", [](const httplib::Request&, httplib::Response& r) {
    r.set_header("Connection", "close");  // The redirect needs a new one.
    r.set_content("ok", "text/plain");
  });
  server.server().Get(
      "/away", [&server](const httplib::Request&, httplib::Response& r) {
        r.set_redirect(absl::StrCat("http://localhost:", server.port(), "/"));
      });
  server.Start();
  const std::string port = absl::StrCat(server.port());
  FetchOptions options = fetch_test::TestOptions();
  options.private_address_hosts = {"a.test", "localhost"};
  options.dns.servers = {dns.server()};
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Fetcher::Create(options);
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();

  // localhost through the DnsCache: curl is given its addresses.
  FetchResponse r = fetch_test::FetchOne(
      **fetcher, {.id = 1, .url = "http://localhost:" + port + "/"});
  ASSERT_TRUE(r.ok()) << r.error_message;
  // Another host's transfer starts once localhost's are done.
  r = fetch_test::FetchOne(**fetcher,
                           {.id = 2, .url = "http://a.test:" + port + "/"});
  ASSERT_TRUE(r.ok()) << r.error_message;
  const uint64_t lookups = (*fetcher)->counters().dns_lookups;
  // a.test redirects to localhost, and curl follows: localhost is no longer
  // in curl's cache, so curl resolves it (libcurl knows "localhost" itself:
  // nothing is asked of any server).
  r = fetch_test::FetchOne(
      **fetcher,
      {.id = 3, .url = "http://a.test:" + port + "/away", .max_redirects = 1});
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.body, "ok");
  EXPECT_EQ((*fetcher)->counters().dns_lookups, lookups + 1);
}

}  // namespace
}  // namespace sieve
