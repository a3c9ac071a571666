// Three `sieve crawl --cluster` processes (the real binary) crawl 24 loopback
// sites (24 hosts: one DemoSite per port) through one redis-server the test
// starts. Checked at the servers: the union of the workers' pages.jsonl is
// exactly the sites, each page requested once, and per-host politeness across
// the workers (never two requests at once, none closer than the delay);
// `sieve cluster status` shows each worker holding a third of the shards.
// Also `sieve cluster seed` into a running crawl (its seeds normalised and
// keyed as the workers' links, with the crawl's settings, and refused with
// others, as a worker with others is), the commands' errors, and
// the same crawl on a Redis Cluster of 3 masters and 3 replicas with `sieve
// cluster status` asked through another node than the workers'.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "frontier/cluster/keys.h"
#include "frontier/cluster/redis_slots.h"
#include "gmock/gmock.h"
#include "tests/crawler/crawl/cluster_crawl_util.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/site_answer_key.h"

namespace sieve {
namespace {

using ::testing::HasSubstr;
using testing_util::ClusterCrawl;
using testing_util::PathOf;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

constexpr double kDelaySeconds = 0.02;

TEST(CrawlClusterTest, ThreeWorkersCrawl24HostsExactlyOnceAndPolitely) {
  SIEVE_SKIP_WITHOUT_REDIS();
  // 3 shards (one a worker; 24 random ports leave a shard without a host
  // with odds 3 (2/3)^24 = 2e-4) and short leases: the workers share the
  // shards within a fraction of a second of starting.
  std::unique_ptr<ClusterCrawl> c = ClusterCrawl::Start(
      "cluster3", {.sites = 24, .delay_seconds = kDelaySeconds});
  ASSERT_NE(c, nullptr);
  const std::vector<std::string> ids = {"w0", "w1", "w2"};
  std::vector<pid_t> pids;
  for (const std::string& id : ids) pids.push_back(c->StartWorker(id));

  // While they crawl: the status command shows three live workers holding a
  // shard each (bounded: until the crawl is over).
  nlohmann::json balanced;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (c->PageRequests() < c->SitePages() - 40 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(50));
    nlohmann::json s = c->TryStatus();
    if (s.is_null()) continue;
    std::set<std::string> holders;
    for (const nlohmann::json& w : s["workers"]) {
      if (w["live"].get<bool>() && w["shards"].get<int>() == 1)
        holders.insert(w["id"].get<std::string>());
    }
    if (holders.size() == 3) {
      balanced = s;
      break;
    }
  }
  EXPECT_FALSE(balanced.is_null())
      << "the status never showed each worker holding one of 3 shards";

  for (size_t w = 0; w < ids.size(); ++w)
    EXPECT_EQ(WaitFor(pids[w]), 0) << c->Log(ids[w]);
  EXPECT_EQ(c->ExpectWholeSites(ids, /*allow_twice=*/false), 0)
      << "pages requested twice";
  for (const std::string& id : ids) {
    EXPECT_GT(ReadPages(c->Out(id)).size(), 0u) << id << " fetched nothing";
  }
  // Politeness across the workers: none closer than the delay.
  for (const std::unique_ptr<DemoSite>& site : c->sites()) {
    std::vector<SiteRequest> requests = site->requests();
    std::sort(requests.begin(), requests.end(),
              [](const SiteRequest& a, const SiteRequest& b) {
                return a.start < b.start;
              });
    for (size_t i = 1; i < requests.size(); ++i) {
      // The delay runs from the end of one response to the start of the
      // next; 2 ms of slack for the two processes' clocks reading apart.
      EXPECT_GE(requests[i].start - requests[i - 1].end,
                absl::Seconds(kDelaySeconds) - absl::Milliseconds(2))
          << site->authority() << " " << requests[i - 1].path << " then "
          << requests[i].path;
    }
  }
  // After: the totals add up; nothing queued, pending or taken over.
  nlohmann::json after = c->Status();
  ASSERT_FALSE(after.is_null());
  size_t records = 0;
  for (const std::string& id : ids) records += ReadPages(c->Out(id)).size();
  EXPECT_EQ(after["pages"].get<size_t>(), records) << after.dump(2);
  EXPECT_EQ(after["queued"].get<int>(), 0);
  EXPECT_EQ(after["pending"].get<int>(), 0);
  EXPECT_EQ(after["reclaimed"].get<int>(), 0);
  EXPECT_EQ(after["live_workers"].get<int>(), 0);
  EXPECT_GE(after["filter"]["estimated_count"].get<double>(),
            static_cast<double>(records) * 0.9);
  EXPECT_GT(after["filter"]["estimated_fp_rate"].get<double>(), 0);
}

TEST(CrawlClusterTest, SeedAddsSitesToARunningCrawl) {
  SIEVE_SKIP_WITHOUT_REDIS();
  // One worker crawls one site (44 pages 0.1 s apart: 4 s at least); a
  // second site, unknown to it, is seeded while it runs. The scope is each
  // worker's, from its own seeds: "domain" takes in every port of 127.0.0.1
  // (an IP address is its own domain).
  std::unique_ptr<ClusterCrawl> c =
      ClusterCrawl::Start("cluster-seed", {.sites = 1,
                                           .delay_seconds = 0.1,
                                           .shards = 4,
                                           .flags = {"--scope", "domain"}});
  ASSERT_NE(c, nullptr);
  auto extra = DemoSite::Start({.pages = 25, .seed = 77});
  ASSERT_TRUE(extra.ok()) << extra.status();
  const std::filesystem::path more = c->dir() / "more.txt";
  std::ofstream(more) << (*extra)->root_url() << "\nnot a url\n";

  const pid_t worker = c->StartWorker("w0");
  // Bounded; the worker is seen live long before its crawl ends.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline) {
    nlohmann::json s = c->TryStatus();
    if (!s.is_null() && s["live_workers"].get<int>() == 1) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  const std::filesystem::path log = c->dir() / "seed.log";
  const std::vector<std::string> seed = {
      "cluster",    "seed",         "--cluster", c->redis().url(),
      "--crawl-id", "cluster-seed", "--seeds",   more.string()};
  std::filesystem::remove(log);
  EXPECT_EQ(WaitFor(StartSieve(seed, log)), 0) << ReadFile(log);
  EXPECT_THAT(ReadFile(log), HasSubstr("queued 1 of 1 seeds"));
  EXPECT_THAT(ReadFile(log), HasSubstr("more.txt:2"));
  // Again: seen before, not queued twice.
  std::filesystem::remove(log);
  EXPECT_EQ(WaitFor(StartSieve(seed, log)), 0) << ReadFile(log);
  EXPECT_THAT(ReadFile(log), HasSubstr("queued 0 of 1 seeds"));
  EXPECT_EQ(WaitFor(worker), 0) << c->Log("w0");

  std::set<std::string> extra_pages;
  for (const nlohmann::json& page : ReadPages(c->Out("w0"))) {
    const std::string url = page["url"];
    if (url.starts_with((*extra)->root_url())) extra_pages.insert(PathOf(url));
  }
  EXPECT_EQ(extra_pages.size(),
            testing_util::Expected((*extra)->graph()).fetched.size());
}

// The requests of all `sites` by start, each closer than `delay` to the one
// before it (or overlapping it) named: hosts that share one politeness key
// never see that.
std::vector<std::string> TooClose(const std::vector<const DemoSite*>& sites,
                                  absl::Duration delay) {
  std::vector<std::pair<SiteRequest, std::string>> requests;
  for (const DemoSite* site : sites) {
    for (SiteRequest& r : site->requests())
      requests.emplace_back(std::move(r), site->authority());
  }
  std::sort(requests.begin(), requests.end(), [](const auto& a, const auto& b) {
    return a.first.start < b.first.start;
  });
  std::vector<std::string> close;
  for (size_t i = 1; i < requests.size(); ++i) {
    // 2 ms of slack, as above.
    if (requests[i].first.start - requests[i - 1].first.end <
        delay - absl::Milliseconds(2))
      close.push_back(absl::StrCat(requests[i - 1].second,
                                   requests[i - 1].first.path, " then ",
                                   requests[i].second, requests[i].first.path));
  }
  return close;
}

TEST(CrawlClusterTest, SeedIsNormalisedAndKeyedAsTheWorkersLinks) {
  SIEVE_SKIP_WITHOUT_REDIS();
  // The crawl strips the query parameter x (url.strip_query_params) and keys
  // politeness by registrable domain: every loopback site (127.0.0.1, its own
  // domain) shares one delay. `sieve cluster seed`, given the crawl's
  // --config and --politeness-key, must do the same: site A's root with ?x=1
  // is A's root, seen already (not fetched again), and a second site B joins
  // A's politeness key (never closer to an A request than the delay). Seeds
  // normalised with the default options and keyed by authority were queued
  // as new and fetched in a slot of their own.
  constexpr double kDelay = 0.2;
  std::unique_ptr<ClusterCrawl> c = ClusterCrawl::Start(
      "cluster-seed-keys",
      {.sites = 1,
       .pages = 6,
       .delay_seconds = kDelay,
       .shards = 4,
       .config_extra = "[url]\nstrip_query_params = [\"x\"]\n",
       .flags = {"--scope", "domain", "--politeness-key", "registrable_domain",
                 "--sitemaps", "off"}});
  ASSERT_NE(c, nullptr);
  const DemoSite& a = *c->sites()[0];
  auto b = DemoSite::Start({.pages = 2, .seed = 78});
  ASSERT_TRUE(b.ok()) << b.status();
  const std::filesystem::path more = c->dir() / "more.txt";
  std::ofstream(more) << a.root_url() << "?x=1\n" << (*b)->root_url() << "\n";

  const pid_t worker = c->StartWorker("w0");
  // Bounded: A's root (its first page, after robots.txt) is fetched within
  // a second of the start, seconds before A's pages at 0.2 s apart are.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  auto root_fetched = [&] {
    for (const SiteRequest& r : a.requests())
      if (r.path == "/") return true;
    return false;
  };
  while (!root_fetched() && absl::Now() < deadline)
    absl::SleepFor(absl::Milliseconds(20));
  ASSERT_TRUE(root_fetched()) << c->Log("w0");
  const std::filesystem::path log = c->dir() / "seed.log";
  EXPECT_EQ(WaitFor(StartSieve(
                {"cluster", "seed", "--cluster", c->redis().url(), "--crawl-id",
                 "cluster-seed-keys", "--seeds", more.string(), "--config",
                 (c->dir() / "cluster.toml").string(), "--politeness-key",
                 "registrable_domain"},
                log)),
            0)
      << ReadFile(log);
  EXPECT_THAT(ReadFile(log), HasSubstr("queued 1 of 2 seeds"));
  EXPECT_EQ(WaitFor(worker), 0) << c->Log("w0");

  for (const SiteRequest& r : a.requests())
    EXPECT_THAT(r.path, ::testing::Not(HasSubstr("x=1")))
        << "the seed was not normalised as the crawl normalises";
  EXPECT_GT((*b)->requests().size(), 1u) << "the seeded site was not crawled";
  EXPECT_THAT(TooClose({&a, b->get()}, absl::Seconds(kDelay)),
              ::testing::IsEmpty())
      << "the seed was not keyed as the crawl keys its links";
}

TEST(CrawlClusterTest, WorkerAndSeedWithOtherUrlOrKeySettingsAreRefused) {
  SIEVE_SKIP_WITHOUT_REDIS();
  // The first worker stores the crawl's settings for URL normalisation and
  // host keys; a worker or a seed command with others would put one host
  // under two keys (two workers at once) and one URL in two spellings, so
  // each is refused with the settings that differ, and nothing is queued.
  std::unique_ptr<ClusterCrawl> c = ClusterCrawl::Start(
      "cluster-settings",
      {.sites = 1,
       .pages = 4,
       .config_extra = "[url]\ndrop_www = true\n",
       .flags = {"--politeness-key", "registrable_domain"}});
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(WaitFor(c->StartWorker("w0")), 0) << c->Log("w0");

  // Another key: refused before it fetches anything.
  const size_t requests = c->sites()[0]->requests().size();
  const std::filesystem::path out = c->dir() / "w1";
  const std::filesystem::path log = c->dir() / "w1.log";
  const int other_key = WaitFor(StartSieve(
      {"crawl", "--config", (c->dir() / "cluster.toml").string(), "--cluster",
       c->url(), "--crawl-id", "cluster-settings", "--worker-id", "w1",
       "--seeds", (c->dir() / "seeds.txt").string(), "--out", out.string(),
       "--politeness-key", "host", "--max-run-time", "30"},
      log));
  EXPECT_EQ(other_key, 1) << ReadFile(log);
  EXPECT_THAT(ReadFile(log), HasSubstr("politeness.key = \"host\""));
  EXPECT_THAT(ReadFile(log),
              HasSubstr("politeness.key = \"registrable_domain\""));
  EXPECT_EQ(c->sites()[0]->requests().size(), requests);

  // A seed command without the crawl's url.drop_www: refused, nothing queued.
  const std::filesystem::path more = c->dir() / "more.txt";
  std::ofstream(more) << "http://www.example.test/\n";
  const std::filesystem::path seed_log = c->dir() / "seed.log";
  auto seed = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "cluster",          "seed",    "--cluster",  c->url(), "--crawl-id",
        "cluster-settings", "--seeds", more.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    std::filesystem::remove(seed_log);  // StartSieve appends.
    return WaitFor(StartSieve(args, seed_log));
  };
  EXPECT_EQ(seed({"--politeness-key", "registrable_domain"}), 1)
      << ReadFile(seed_log);
  EXPECT_THAT(ReadFile(seed_log), HasSubstr("url.drop_www = true"));
  EXPECT_EQ(c->Status()["queued"].get<int>(), 0);
  // With the crawl's settings it is taken.
  EXPECT_EQ(seed({"--config", (c->dir() / "cluster.toml").string(),
                  "--politeness-key", "registrable_domain"}),
            0)
      << ReadFile(seed_log);
  EXPECT_THAT(ReadFile(seed_log), HasSubstr("queued 1 of 1 seeds"));
}

TEST(CrawlClusterTest, TwoWorkersTogetherKeepTheCrawlWideRate) {
  SIEVE_SKIP_WITHOUT_REDIS();
  // politeness.max_requests_per_second is the crawl's, not each worker's:
  // two workers at 5 per second start no more than 5 requests in any second
  // at the servers (+1: a request reaches its server a little after its slot,
  // so two may arrive closer than 1/rate). Each worker alone keeping 5 made
  // 10. 12 sites (two shards, each a worker's; 12 random ports leave a shard
  // without a host with odds 2 / 2^12), 2 pages and a robots.txt each: 36
  // requests, 7 s at the rate.
  constexpr int kRate = 5;
  std::unique_ptr<ClusterCrawl> c = ClusterCrawl::Start(
      "cluster-rate",
      {.sites = 12,
       .shards = 2,
       .flags = {"--max-requests-per-second", absl::StrCat(kRate),
                 "--max-pages-per-host", "2"}});
  ASSERT_NE(c, nullptr);
  const std::vector<std::string> ids = {"w0", "w1"};
  std::vector<pid_t> pids;
  for (const std::string& id : ids) pids.push_back(c->StartWorker(id));
  for (size_t w = 0; w < ids.size(); ++w)
    EXPECT_EQ(WaitFor(pids[w]), 0) << c->Log(ids[w]);
  for (const std::string& id : ids) {
    EXPECT_GT(ReadPages(c->Out(id)).size(), 0u) << id << " fetched nothing";
  }
  std::vector<absl::Time> starts;
  for (const std::unique_ptr<DemoSite>& site : c->sites()) {
    for (const SiteRequest& r : site->requests()) starts.push_back(r.start);
  }
  EXPECT_LE(testing_util::MostStartsInASecond(starts), kRate + 1)
      << "the workers together went past the crawl-wide rate";
}

uint64_t SummaryReclaimed(const ClusterCrawl& c, const std::string& id) {
  nlohmann::json summary = nlohmann::json::parse(
      ReadFile(c.Out(id) / "summary.json"), nullptr, false);
  EXPECT_FALSE(summary.is_discarded()) << id << ": no summary.json";
  if (summary.is_discarded()) return 0;
  return summary["frontier"]["reclaimed"].get<uint64_t>();
}

TEST(CrawlClusterTest, StatusReadsACrawlOnARedisClusterThroughAnyNode) {
  SIEVE_SKIP_WITHOUT_REDIS_CLUSTER();
  // Three workers pointed at node 0 of 3 masters + 3 replicas; the status
  // command at the last node (a replica): the crawl's keys are on all three
  // masters, so the status must follow the slot map to read them.
  constexpr int kShards = 6;
  std::unique_ptr<ClusterCrawl> c =
      ClusterCrawl::Start("cluster-rc", {.sites = 24,
                                         .delay_seconds = kDelaySeconds,
                                         .shards = kShards,
                                         .cluster_masters = 3});
  ASSERT_NE(c, nullptr);
  absl::StatusOr<cluster::ClusterKeys> keys =
      cluster::ClusterKeys::ForCrawl("cluster-rc");
  ASSERT_TRUE(keys.ok()) << keys.status();
  std::vector<std::string> crawl_keys = {keys->Meta(), keys->Stats()};
  for (uint32_t s = 0; s < kShards; ++s) crawl_keys.push_back(keys->Queue(s));
  std::set<int> masters;
  for (const std::string& key : crawl_keys) {
    absl::StatusOr<int> m = c->cluster().MasterOf(cluster::KeySlot(key));
    ASSERT_TRUE(m.ok()) << m.status();
    masters.insert(*m);
  }
  ASSERT_EQ(masters.size(), 3u) << "the crawl's keys are not on every master";

  const std::vector<std::string> ids = {"w0", "w1", "w2"};
  std::vector<pid_t> pids;
  for (const std::string& id : ids) pids.push_back(c->StartWorker(id));
  // While they crawl: three live workers, pages recorded, shards held.
  nlohmann::json during;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (c->PageRequests() < c->SitePages() - 40 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(50));
    nlohmann::json s = c->TryStatus();
    if (s.is_null() || s["live_workers"].get<int>() != 3 ||
        s["pages"].get<int>() == 0)
      continue;
    during = s;
    break;
  }
  ASSERT_FALSE(during.is_null())
      << "the status never showed three live workers recording pages";
  EXPECT_EQ(during["shards"].get<int>(), kShards);
  EXPECT_EQ(during["workers"].size(), 3u);
  int held = 0;
  for (const nlohmann::json& w : during["workers"])
    held += w["shards"].get<int>();
  EXPECT_GT(held, 0) << during.dump(2);

  for (size_t w = 0; w < ids.size(); ++w)
    EXPECT_EQ(WaitFor(pids[w]), 0) << c->Log(ids[w]);
  EXPECT_EQ(c->ExpectWholeSites(ids, /*allow_twice=*/false), 0)
      << "pages requested twice";
  // After: the figures are the workers' (records, summary.json).
  nlohmann::json after = c->Status();
  ASSERT_FALSE(after.is_null());
  size_t records = 0;
  uint64_t reclaimed = 0;
  for (const std::string& id : ids) {
    records += ReadPages(c->Out(id)).size();
    reclaimed += SummaryReclaimed(*c, id);
  }
  EXPECT_EQ(after["pages"].get<size_t>(), records) << after.dump(2);
  EXPECT_EQ(after["live_workers"].get<int>(), 0);
  ASSERT_EQ(after["workers"].size(), 3u);
  for (size_t w = 0; w < ids.size(); ++w) {
    EXPECT_EQ(after["workers"][w]["id"], ids[w]);
    EXPECT_EQ(after["workers"][w]["pages"].get<size_t>(),
              ReadPages(c->Out(ids[w])).size());
    EXPECT_EQ(after["workers"][w]["reclaimed"].get<uint64_t>(),
              SummaryReclaimed(*c, ids[w]));
  }
  EXPECT_EQ(after["reclaimed"].get<uint64_t>(), reclaimed);
  EXPECT_EQ(after["queued"].get<int>(), 0);
  EXPECT_EQ(after["pending"].get<int>(), 0);
  EXPECT_GE(after["filter"]["estimated_count"].get<double>(),
            static_cast<double>(records) * 0.9);
  // The table says the same.
  const std::string table = c->StatusTable();
  EXPECT_THAT(table,
              HasSubstr(absl::StrCat("crawl cluster-rc: ", kShards,
                                     " shards, 0 live workers (3 ever)")));
  EXPECT_THAT(table, ::testing::ContainsRegex(
                         absl::StrCat("pages recorded +", records, "\n")));
  EXPECT_THAT(table, ::testing::ContainsRegex(absl::StrCat(
                         "taken over [(]maybe twice[)] +", reclaimed, "\n")));
}

TEST(CrawlClusterTest, StatusAndSeedFailClearlyWithoutACrawlOrFlags) {
  SIEVE_SKIP_WITHOUT_REDIS();
  auto redis = testing::RedisServer::Start();
  ASSERT_TRUE(redis.ok()) << redis.status();
  const std::filesystem::path dir = testing_util::FreshDir("cluster-errors");
  const std::filesystem::path log = dir / "log.txt";
  auto run = [&](const std::vector<std::string>& args) {
    std::filesystem::remove(log);  // StartSieve appends.
    return WaitFor(StartSieve(args, log));
  };
  const std::string url = (*redis)->url();
  EXPECT_EQ(run({"cluster", "status", "--cluster", url, "--crawl-id", "none"}),
            1);
  EXPECT_THAT(ReadFile(log), HasSubstr("no crawl \"none\""));
  EXPECT_EQ(run({"cluster", "status", "--crawl-id", "x"}), 2);
  EXPECT_THAT(ReadFile(log), HasSubstr("needs --cluster URL"));
  EXPECT_EQ(run({"cluster", "seed", "--cluster", url, "--crawl-id", "x"}), 2);
  EXPECT_THAT(ReadFile(log), HasSubstr("needs --seeds FILE"));
  EXPECT_EQ(run({"cluster", "restart"}), 2);
  EXPECT_THAT(ReadFile(log), HasSubstr("status or seed"));
  // Nothing listens there: refused within the connect timeout.
  EXPECT_EQ(run({"cluster", "status", "--cluster", "redis://127.0.0.1:1",
                 "--crawl-id", "x"}),
            1);
}

}  // namespace
}  // namespace sieve
