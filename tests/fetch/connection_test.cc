// What a Fetcher's connections cost, counted (fetch/fetch_counters.h): a
// connection kept and reused, a new TLS connection resuming its host's session,
// idle connections kept for more hosts than libcurl's default cache holds, DNS
// answers reused (tests/fetch/dns_cache_test.cc). Servers on 127.0.0.1; the TLS one has a certificate from a CA
// the test makes (tests/fetch/test_pki.h).
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "fetch/fetcher.h"
#include "fetch/open_file_limit.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"
#include "tests/fetch/test_pki.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using fetch_test::FetchOne;
using fetch_test::TestOptions;

// A cpp-httplib server (HTTP, or HTTPS when given a certificate) answering
// "ok" for every path.
class OkServer {
 public:
  explicit OkServer(const fetch_test::TestPki* pki = nullptr,
                    int requests_per_connection = 100) {
    if (pki != nullptr) {
      server_ = std::make_unique<httplib::SSLServer>(pki->cert.c_str(),
                                                     pki->key.c_str());
      scheme_ = "https";
    } else {
      server_ = std::make_unique<httplib::Server>();
    }
    server_->set_keep_alive_max_count(requests_per_connection);
    server_->Get(".*", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok", "text/plain");
    });
    port_ = server_->bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    while (!server_->is_running()) absl::SleepFor(absl::Milliseconds(1));
  }
  ~OkServer() {
    server_->stop();
    thread_.join();
  }
  std::string Url(const std::string& path) const {
    return absl::StrCat(scheme_, "://127.0.0.1:", port_, path);
  }
  int port() const { return port_; }

 private:
  std::unique_ptr<httplib::Server> server_;
  std::string scheme_ = "http";
  int port_ = 0;
  std::thread thread_;
};

class ConnectionTest : public testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = test::FreshDir(test::CurrentTestName()).string();
    if (!fetch_test::MakeTestPki(dir, &pki_))
      GTEST_SKIP() << "the openssl command is missing or failed in " << dir;
  }

  std::unique_ptr<Fetcher> MakeFetcher(FetchOptions options) {
    options.ca_bundle = pki_.ca;
    absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
        Fetcher::Create(std::move(options));
    EXPECT_TRUE(fetcher.ok()) << fetcher.status();
    return fetcher.ok() ? std::move(*fetcher) : nullptr;
  }

  fetch_test::TestPki pki_;
};

TEST_F(ConnectionTest, OneTlsConnectionServesAHostsRequestsInTurn) {
  OkServer server(&pki_);
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(TestOptions());
  for (int i = 0; i < 5; ++i) {
    const FetchResponse r =
        FetchOne(*fetcher, {.id = 1, .url = server.Url(absl::StrCat("/", i))});
    ASSERT_TRUE(r.ok()) << r.error_message;
  }
  const FetchCounters& c = fetcher->counters();
  EXPECT_EQ(c.connections_opened, 1u);
  EXPECT_EQ(c.connections_reused, 4u);
  EXPECT_EQ(c.tls_full_handshakes, 1u);
  EXPECT_EQ(c.tls_resumed_handshakes, 0u);
  EXPECT_EQ(c.dns_lookups, 0u);  // 127.0.0.1 is no name to look up.
}

TEST_F(ConnectionTest, ANewConnectionResumesTheHostsTlsSession) {
  OkServer server(&pki_, /*requests_per_connection=*/1);  // Closes each.
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(TestOptions());
  for (int i = 0; i < 4; ++i) {
    const FetchResponse r =
        FetchOne(*fetcher, {.id = 1, .url = server.Url(absl::StrCat("/", i))});
    ASSERT_TRUE(r.ok()) << r.error_message;
  }
  const FetchCounters& c = fetcher->counters();
  EXPECT_EQ(c.connections_opened, 4u);
  EXPECT_EQ(c.tls_full_handshakes, 1u);
  EXPECT_EQ(c.tls_resumed_handshakes, 3u);
}

TEST_F(ConnectionTest, IdleConnectionsAreKeptForMoreHostsThanTransfers) {
  // Six hosts (servers) taken in turn, one transfer at a time, as a crawl
  // takes hosts waiting out their delay. libcurl's default cache would keep
  // 4 connections per transfer in its multi handle: the fifth host evicts the
  // first.
  std::vector<std::unique_ptr<OkServer>> hosts;
  for (int i = 0; i < 6; ++i) hosts.push_back(std::make_unique<OkServer>());
  FetchOptions options = TestOptions();
  options.max_concurrent_transfers = 1;
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  EXPECT_GE(fetcher->max_idle_connections(), 6);
  for (int round = 0; round < 3; ++round) {
    for (const auto& host : hosts) {
      const FetchResponse r =
          FetchOne(*fetcher, {.id = 1, .url = host->Url("/")});
      ASSERT_TRUE(r.ok()) << r.error_message;
    }
  }
  EXPECT_EQ(fetcher->counters().connections_opened, 6u);
  EXPECT_EQ(fetcher->counters().connections_reused, 12u);
}

TEST_F(ConnectionTest, AHostDueBackAfterAnIdleConnectionLivesDoesNotKeepIt) {
  // FetchRequest::next_request_in: a host not due again within the 118 s an
  // idle connection lives leaves no connection open; one due soon keeps it.
  OkServer server;
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(TestOptions());
  const absl::Duration due[] = {absl::Minutes(5), absl::InfiniteDuration(),
                                absl::Seconds(1), absl::ZeroDuration(),
                                absl::ZeroDuration()};
  for (const absl::Duration next : due) {
    const FetchResponse r = FetchOne(
        *fetcher, {.id = 1, .url = server.Url("/"), .next_request_in = next});
    ASSERT_TRUE(r.ok()) << r.error_message;
  }
  // The first two close theirs; the third opens one the last two reuse.
  EXPECT_EQ(fetcher->counters().connections_opened, 3u);
  EXPECT_EQ(fetcher->counters().connections_reused, 2u);
}

TEST_F(ConnectionTest,
       HostsPastTheCapTakingTurnsLeaveTheFirstOnesTheirConnections) {
  // Three hosts in turn, room for two idle connections. Closing the one idle
  // longest (libcurl's own CURLMOPT_MAXCONNECTS) closes the connection of the
  // host due next each time: no reuse at all. The first two hosts keep theirs;
  // the third's is closed after each of its transfers.
  std::vector<std::unique_ptr<OkServer>> hosts;
  for (int i = 0; i < 3; ++i) hosts.push_back(std::make_unique<OkServer>());
  FetchOptions options = TestOptions();
  options.max_idle_connections = 2;
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  EXPECT_EQ(fetcher->max_idle_connections(), 2);
  for (int round = 0; round < 3; ++round) {
    for (const auto& host : hosts) {
      ASSERT_TRUE(FetchOne(*fetcher, {.id = 1, .url = host->Url("/")}).ok());
      absl::SleepFor(absl::Milliseconds(5));  // Distinct idle times.
    }
  }
  EXPECT_EQ(fetcher->counters().connections_opened, 2u + 3u);
  EXPECT_EQ(fetcher->counters().connections_reused, 4u);
  EXPECT_EQ(fetcher->idle_connections(), 2u);
}

TEST_F(ConnectionTest, HostsSpreadOverSeveralMultiHandlesKeepTheirConnections) {
  // Past kIdleConnectionsPerMulti idle connections the hosts are spread over
  // several multi handles (fetch/internal/curl_multis.h); each host's
  // connection is found again in its own, whether the hosts are taken in turn
  // or all at once.
  std::vector<std::unique_ptr<OkServer>> hosts;
  for (int i = 0; i < 16; ++i) hosts.push_back(std::make_unique<OkServer>());
  FetchOptions options = TestOptions();
  options.max_idle_connections =
      2 * fetch_internal::kIdleConnectionsPerMulti + 1;
  options.max_concurrent_transfers = 16;
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  EXPECT_EQ(fetcher->multi_handles(), 3);
  for (const auto& host : hosts) {  // In turn.
    ASSERT_TRUE(FetchOne(*fetcher, {.id = 1, .url = host->Url("/")}).ok());
  }
  for (int round = 0; round < 2; ++round) {  // All at once.
    for (const auto& host : hosts) {
      fetcher->Submit({.id = 1, .url = host->Url("/")});
    }
    size_t done = 0;
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (fetcher->in_flight() > 0 && absl::Now() < deadline) {
      for (const FetchResponse& r : fetcher->Poll(absl::Seconds(1))) {
        ASSERT_TRUE(r.ok()) << r.error_message;
        ++done;
      }
    }
    ASSERT_EQ(done, hosts.size());
  }
  EXPECT_EQ(fetcher->counters().connections_opened, 16u);
  EXPECT_EQ(fetcher->counters().connections_reused, 32u);
  EXPECT_EQ(fetcher->idle_connections(), 16u);
}

TEST_F(ConnectionTest, OneMultiHandleServesUpToItsShareOfIdleConnections) {
  FetchOptions options = TestOptions();
  options.max_idle_connections = fetch_internal::kIdleConnectionsPerMulti;
  EXPECT_EQ(MakeFetcher(options)->multi_handles(), 1);
  options.max_idle_connections = fetch_internal::kIdleConnectionsPerMulti + 1;
  EXPECT_EQ(MakeFetcher(options)->multi_handles(), 2);
}

// Client connections from this process to `ports` that are open (TCP
// ESTABLISHED, from /proc/net/tcp: the servers live in this process too, so
// their side is told apart by the remote port).
size_t OpenClientConnections(const std::vector<int>& ports) {
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  std::getline(tcp, line);  // Header.
  size_t open = 0;
  while (std::getline(tcp, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    const int port =
        std::stoi(remote.substr(remote.find(':') + 1), nullptr, 16);
    if (state == "01" && absl::c_linear_search(ports, port)) ++open;
  }
  return open;
}

TEST_F(ConnectionTest, MoreHostsThanTheCapLeaveAtMostTheCapOpen) {
  std::vector<std::unique_ptr<OkServer>> hosts;
  std::vector<int> ports;
  for (int i = 0; i < 8; ++i) {
    hosts.push_back(std::make_unique<OkServer>());
    ports.push_back(hosts.back()->port());
  }
  FetchOptions options = TestOptions();
  options.max_idle_connections = 3;
  options.max_concurrent_transfers = 4;
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(options);
  for (int round = 0; round < 2; ++round) {
    for (const auto& host : hosts) {
      fetcher->Submit({.id = 1, .url = host->Url("/")});
    }
    while (fetcher->in_flight() > 0) {
      for (const FetchResponse& r : fetcher->Poll(absl::Seconds(1))) {
        ASSERT_TRUE(r.ok()) << r.error_message;
      }
    }
  }
  EXPECT_LE(fetcher->idle_connections(), 3u);
  // Closed sockets leave ESTABLISHED at once; the kept ones stay.
  EXPECT_LE(OpenClientConnections(ports), 3u);
  EXPECT_GE(OpenClientConnections(ports), 1u);  // Some are kept.
}

TEST_F(ConnectionTest, TheDefaultIdleCapStaysSmallWhateverTheOpenFileLimit) {
  // sieve crawl raises its open-file limit to the hard limit, which may be
  // far more than the connections worth their memory (~36 KB each over
  // HTTPS): the cap is the smaller of the default and half that limit.
  RaiseOpenFileLimit();
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(TestOptions());
  EXPECT_LE(fetcher->max_idle_connections(), kDefaultMaxIdleConnections);
  EXPECT_GE(fetcher->max_idle_connections(),
            std::min<int64_t>(kDefaultMaxIdleConnections,
                              CurrentOpenFileLimit() / 2));
}

TEST_F(ConnectionTest, TheDefaultKeepsAConnectionPerHostOfTenThousand) {
  // A crawl of 10,000 hosts in rotation reuses each host's connection
  // (docs/benchmarks.md, "Several multi handles"), spread over multi handles
  // of kIdleConnectionsPerMulti.
  RaiseOpenFileLimit();
  if (CurrentOpenFileLimit() < 20000)
    GTEST_SKIP() << "the open-file limit is " << CurrentOpenFileLimit()
                 << ", under 20,000: the default cap is half of it";
  std::unique_ptr<Fetcher> fetcher = MakeFetcher(TestOptions());
  EXPECT_GE(fetcher->max_idle_connections(), 10000);
  EXPECT_EQ(fetcher->multi_handles(),
            (fetcher->max_idle_connections() +
             fetch_internal::kIdleConnectionsPerMulti - 1) /
                fetch_internal::kIdleConnectionsPerMulti);
}

TEST(FetchOptionsDefaultsTest,
     DnsAnswersLiveTheirTtlBetweenFiveMinutesAndAnHour) {
  EXPECT_EQ(FetchOptions{}.dns.min_ttl, absl::Minutes(5));
  EXPECT_EQ(FetchOptions{}.dns.max_ttl, absl::Hours(1));
  EXPECT_EQ(FetchOptions{}.dns.negative_ttl, absl::Minutes(1));
}

}  // namespace
}  // namespace sieve
