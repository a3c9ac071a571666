// The per-registrable-domain budget (crawl.domain_budget,
// crawler/policy/domain_budget.h) through the `sieve` binary, on a small web
// of many hosts: dnsmasq on a port of 127.0.0.1 (no root needed) answers every
// name under .test with 127.0.0.1, and the crawl asks it (fetch.dns_servers);
// one HTTP server answers for every host by its Host header.
//   - trap.test is a wildcard domain: each host's page links to 3 new hosts,
//     without end. It gets no more than its budget.
//   - popular.test is linked from 10 other domains: it gets more than the
//     trap's budget (all its 60 pages).
//   - seed.test is the seed's domain: exempt, all its pages are fetched.
// summary.json shows every memory budget's use and limit. With a page cap per
// host, the hosts that reached it are parked past crawl.parked_hosts_in_memory
// on disk, and keep their cap there (issue 36).
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/common/dnsmasq.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using testing_util::FreshDir;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

constexpr int kReferrers = 10;
constexpr int kPopularPages = 60;
constexpr int kSeedPages = 40;
constexpr int kBase = 20;
constexpr int kPerReferrer = 10;

std::string Page(const std::vector<std::string>& links) {
  std::string html = "<html><body>";
  for (const std::string& l : links)
    absl::StrAppend(&html, "<a href=\"", l, "\">x</a>\n");
  return html + "</body></html>";
}

// The web: answers by Host header. popular.test's root waits until every
// referring page was served (and a moment more for their links to be
// parsed), so its budget has grown when its own links are judged.
class SmallWeb {
 public:
  SmallWeb() {
    // One request per connection: idle keep-alive connections to this one
    // server, one per host, would hold its few threads (32 s -> 2.6 s).
    http_.server().set_keep_alive_max_count(1);
    http_.server().Get(".*", [this](const httplib::Request& req,
                                    httplib::Response& res) {
      std::string host = req.get_header_value("Host");
      host = host.substr(0, host.find(':'));
      const std::string port = absl::StrCat(":", http_.port());
      auto url = [&](const std::string& h, const std::string& path) {
        return absl::StrCat("http://", h, port, path);
      };
      if (req.path == "/robots.txt") {
        res.status = 404;
        return;
      }
      std::vector<std::string> links;
      if (host == "www.seed.test" && req.path == "/") {
        links.push_back(url("h0.trap.test", "/"));
        links.push_back(url("other.seed.test", "/"));
        for (int i = 0; i < kReferrers; ++i)
          links.push_back(url(absl::StrCat("www.ref", i, ".test"), "/"));
        for (int i = 1; i <= kSeedPages; ++i)
          links.push_back(url(host, absl::StrCat("/s/", i)));
      } else if (absl::EndsWith(host, ".trap.test")) {
        const int n = std::atoi(host.c_str() + 1);
        for (int k = 1; k <= 3; ++k)
          links.push_back(url(absl::StrCat("h", 3 * n + k, ".trap.test"), "/"));
      } else if (absl::StartsWith(host, "www.ref")) {
        ++referrers_served_;
        links.push_back(url("www.popular.test", "/"));
      } else if (host == "www.popular.test" && req.path == "/") {
        for (int i = 0; i < 100 && referrers_served_ < kReferrers; ++i)
          absl::SleepFor(absl::Milliseconds(100));
        absl::SleepFor(absl::Milliseconds(500));
        for (int i = 1; i < kPopularPages; ++i)
          links.push_back(url(host, absl::StrCat("/p/", i)));
      }
      res.set_content(Page(links), "text/html");
    });
    http_.Start();
  }
  std::string SeedUrl() const {
    return absl::StrCat("http://www.seed.test:", http_.port(), "/");
  }

 private:
  fetch_test::HttpServer http_;
  std::atomic<int> referrers_served_{0};
};

// Pages fetched per registrable domain (the last two labels of the host).
int PagesOf(const std::vector<nlohmann::json>& pages,
            const std::string& domain) {
  return static_cast<int>(
      std::count_if(pages.begin(), pages.end(), [&](const nlohmann::json& p) {
        std::string host = p.at("url").get<std::string>();
        host = host.substr(7, host.find(':', 7) - 7);
        return host == domain || absl::EndsWith(host, "." + domain);
      }));
}

TEST(CrawlDomainBudgetTest, AWildcardDomainGetsItsBudgetALinkedOneMore) {
  if (!test::HaveCommand("dnsmasq"))
    GTEST_SKIP() << "needs dnsmasq (dnsmasq-base)";
  const fs::path dir = FreshDir("domain_budget");
  // Every name under .test is 127.0.0.1.
  test::Dnsmasq dns(dir, {"--address=/test/127.0.0.1"});
  ASSERT_TRUE(dns.ok());
  SmallWeb web;
  {
    std::ofstream config(dir / "crawl.toml");
    config << "[fetch]\ndns_servers = [\"" << dns.server()
           << "\"]\nallow_private_addresses = true\n";
  }
  const int code = WaitFor(StartSieve(
      {"crawl",
       web.SeedUrl(),
       "--config",
       (dir / "crawl.toml").string(),
       "--out",
       (dir / "out").string(),
       "--scope",
       "any",
       "--delay",
       "0",
       "--max-pages",
       "400",
       "--domain-budget",
       absl::StrCat(kBase),
       "--set",
       absl::StrCat("crawl.domain_budget_per_referrer=", kPerReferrer),
       "--set",
       "crawl.parser_threads=2",
       "--set",
       "fetch.timeout=5"},
      dir / "log.txt"));
  ASSERT_EQ(code, 0) << ReadFile(dir / "log.txt");
  const std::vector<nlohmann::json> pages = ReadPages(dir / "out");
  // The trap's budget: base + one referring domain (seed.test); its own
  // links to its own new hosts earn nothing.
  const int trap = PagesOf(pages, "trap.test");
  EXPECT_GT(trap, 0);
  EXPECT_LE(trap, kBase + kPerReferrer * 1);
  // Linked from seed.test and 10 ref domains: 20 + 11 x 10 = 130 > 60.
  EXPECT_EQ(PagesOf(pages, "popular.test"), kPopularPages);
  // The seeds' domain is exempt: its 41 pages and its other host.
  EXPECT_EQ(PagesOf(pages, "seed.test"), kSeedPages + 2);
  // The trap's links past its budget are in skipped.jsonl, nobody else's.
  std::ifstream skipped(dir / "out" / "skipped.jsonl");
  int trap_skipped = 0;
  for (std::string line; std::getline(skipped, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.at("reason") != "domain_budget") continue;
    EXPECT_TRUE(absl::StrContains(j.at("url").get<std::string>(), ".trap.test"))
        << line;
    ++trap_skipped;
  }
  EXPECT_GT(trap_skipped, 0);
  // summary.json shows each memory budget's use and limit.
  const nlohmann::json summary =
      nlohmann::json::parse(ReadFile(dir / "out" / "summary.json"));
  const nlohmann::json& budgets = summary.at("budgets");
  for (const char* name :
       {"sieve_queue", "sieve_filter", "host_queues", "active_hosts",
        "parked_hosts", "robots_cache", "robots_cache_bytes", "dns_cache",
        "domain_budget"}) {
    ASSERT_TRUE(budgets.contains(name)) << name;
    EXPECT_GT(budgets[name].at("limit").get<uint64_t>(), 0u) << name;
    EXPECT_LE(budgets[name].at("used").get<uint64_t>(),
              budgets[name].at("limit").get<uint64_t>())
        << name;
  }
  // The filter's first stage, in RAM (sieve.filter_memory_mb: 256 MiB).
  EXPECT_GT(budgets["sieve_filter"].at("used").get<uint64_t>(), 1u << 20);
  EXPECT_EQ(budgets["sieve_filter"].at("limit").get<uint64_t>(), 256u << 20);
  EXPECT_EQ(summary.at("filter").at("bytes_on_disk").get<uint64_t>(), 0u);
  // Names: the seed's hosts, the trap's hosts fetched, 10 refs, popular.
  EXPECT_GT(budgets["dns_cache"].at("used").get<uint64_t>(), 10u);
  EXPECT_EQ(budgets["dns_cache"].at("limit").get<uint64_t>(), 65536u);
  // Domains tracked: trap.test, popular.test and the 10 refs.
  EXPECT_GE(budgets["domain_budget"].at("used").get<uint64_t>(), 12u);
}

// A web of endless hosts, each on a domain of its own: host N's root links to
// hosts 3N+1..3N+3 and to 2 more pages of its own.
class EndlessHosts {
 public:
  EndlessHosts() {
    http_.server().set_keep_alive_max_count(1);  // As SmallWeb.
    http_.server().Get(
        ".*", [this](const httplib::Request& req, httplib::Response& res) {
          std::string host = req.get_header_value("Host");
          host = host.substr(0, host.find(':'));
          if (req.path == "/robots.txt") {
            res.status = 404;
            return;
          }
          const int n = std::atoi(host.c_str() + 1);
          std::vector<std::string> links;
          for (int k = 1; k <= 3; ++k) links.push_back(Url(3 * n + k, "/"));
          links.push_back(Url(n, "/a"));
          links.push_back(Url(n, "/b"));
          res.set_content(Page(links), "text/html");
        });
    http_.Start();
  }
  std::string Url(int n, const std::string& path) const {
    return absl::StrCat("http://h", n, ".d", n, ".test:", http_.port(), path);
  }

 private:
  fetch_test::HttpServer http_;
};

TEST(CrawlDomainBudgetTest, HostsParkedPastTheirBudgetKeepTheirPageCapOnDisk) {
  if (!test::HaveCommand("dnsmasq"))
    GTEST_SKIP() << "needs dnsmasq (dnsmasq-base)";
  const fs::path dir = FreshDir("parked_hosts");
  test::Dnsmasq dns(dir, {"--address=/test/127.0.0.1"});
  ASSERT_TRUE(dns.ok());
  EndlessHosts web;
  {
    std::ofstream config(dir / "crawl.toml");
    config << "[fetch]\ndns_servers = [\"" << dns.server()
           << "\"]\nallow_private_addresses = true\n";
  }
  const int code = WaitFor(StartSieve(
      {"crawl", web.Url(0, "/"), "--config", (dir / "crawl.toml").string(),
       "--out", (dir / "out").string(), "--scope", "any", "--delay", "0",
       "--max-pages", "60", "--max-pages-per-host", "1", "--set",
       "crawl.parked_hosts_in_memory=4", "--set", "fetch.timeout=5"},
      dir / "log.txt"));
  ASSERT_EQ(code, 0) << ReadFile(dir / "log.txt");
  // Each host's page cap held, though most hosts were parked on disk when
  // their own pages /a and /b came out of the Sieve.
  std::map<std::string, int> per_host;
  for (const nlohmann::json& p : ReadPages(dir / "out")) {
    std::string host = p.at("url").get<std::string>();
    ++per_host[host.substr(7, host.find(':', 7) - 7)];
  }
  EXPECT_GE(per_host.size(), 60u);  // Fetches in flight at the stop end too.
  for (const auto& [host, count] : per_host) EXPECT_EQ(count, 1) << host;
  const nlohmann::json summary =
      nlohmann::json::parse(ReadFile(dir / "out" / "summary.json"));
  const nlohmann::json& parked = summary.at("budgets").at("parked_hosts");
  EXPECT_EQ(parked.at("limit").get<uint64_t>(), 4u);
  EXPECT_LE(parked.at("used").get<uint64_t>(), 4u);
  // Most of the 60+ hosts: those idle when the crawl stopped (18 to 40 seen).
  EXPECT_GT(summary.at("frontier").at("hosts_parked_on_disk").get<uint64_t>(),
            8u)
      << summary.at("frontier").dump();
}

}  // namespace
}  // namespace sieve
