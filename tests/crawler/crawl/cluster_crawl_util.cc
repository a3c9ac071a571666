#include "tests/crawler/crawl/cluster_crawl_util.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/site_answer_key.h"

namespace sieve::testing_util {

std::unique_ptr<ClusterCrawl> ClusterCrawl::Start(const std::string& name,
                                                  ClusterCrawlOptions options) {
  std::unique_ptr<ClusterCrawl> c(new ClusterCrawl());
  c->options_ = options;
  c->crawl_id_ = name;
  if (options.cluster_masters > 0) {
    auto cluster = testing::RedisCluster::Start(options.cluster_masters,
                                                /*replicas=*/1);
    EXPECT_TRUE(cluster.ok()) << cluster.status();
    if (!cluster.ok()) return nullptr;
    c->cluster_ = *std::move(cluster);
  } else {
    auto redis =
        testing::RedisServer::Start({.appendonly = options.appendonly});
    EXPECT_TRUE(redis.ok()) << redis.status();
    if (!redis.ok()) return nullptr;
    c->redis_ = *std::move(redis);
  }
  c->dir_ = FreshDir(name);
  std::ofstream(c->dir_ / "cluster.toml")
      << "[cluster]\nshards = " << options.shards
      << "\nlease_seconds = " << options.lease_seconds << "\n"
      << options.config_extra << "\n";
  std::ofstream seeds(c->dir_ / "seeds.txt");
  for (int i = 0; i < options.sites; ++i) {
    auto site = DemoSite::Start({.pages = options.pages,
                                 .seed = static_cast<uint64_t>(i + 1),
                                 .slow_page_delay = absl::Milliseconds(100)});
    EXPECT_TRUE(site.ok()) << site.status();
    if (!site.ok()) return nullptr;
    seeds << (*site)->root_url() << "\n";
    c->sites_.push_back(*std::move(site));
  }
  return c;
}

pid_t ClusterCrawl::StartWorker(const std::string& id) {
  std::vector<std::string> args = {"crawl",
                                   "--config",
                                   (dir_ / "cluster.toml").string(),
                                   "--cluster",
                                   url(),
                                   "--crawl-id",
                                   crawl_id_,
                                   "--worker-id",
                                   id,
                                   "--seeds",
                                   (dir_ / "seeds.txt").string(),
                                   "--out",
                                   Out(id).string(),
                                   "--delay",
                                   absl::StrCat(options_.delay_seconds),
                                   "--per-host-connections",
                                   "1",
                                   "--expected-urls",
                                   "100000",
                                   "--max-run-time",
                                   "120",
                                   "--log-level",
                                   "info"};
  args.insert(args.end(), options_.flags.begin(), options_.flags.end());
  return StartSieve(args, dir_ / absl::StrCat(id, ".log"));
}

std::string ClusterCrawl::url() const {
  return cluster_ != nullptr ? cluster_->url() : redis_->url();
}

std::string ClusterCrawl::StatusUrl() const {
  if (cluster_ == nullptr) return redis_->url();
  return absl::StrCat("redis://127.0.0.1:",
                      cluster_->node(cluster_->size() - 1).port());
}

std::string ClusterCrawl::Log(const std::string& id) const {
  return ReadFile(dir_ / absl::StrCat(id, ".log"));
}

nlohmann::json ClusterCrawl::Status() {
  nlohmann::json j = TryStatus();
  EXPECT_FALSE(j.is_null()) << ReadFile(dir_ / "status.json");
  return j;
}

nlohmann::json ClusterCrawl::TryStatus() {
  const std::filesystem::path out = dir_ / "status.json";
  std::filesystem::remove(out);  // StartSieve appends.
  const int code =
      WaitFor(StartSieve({"cluster", "status", "--cluster", StatusUrl(),
                          "--crawl-id", crawl_id_, "--json"},
                         out));
  if (code != 0) return nlohmann::json();
  nlohmann::json j = nlohmann::json::parse(ReadFile(out), nullptr, false);
  return j.is_discarded() ? nlohmann::json() : j;
}

std::string ClusterCrawl::StatusTable() {
  const std::filesystem::path out = dir_ / "status.txt";
  std::filesystem::remove(out);  // StartSieve appends.
  const int code = WaitFor(StartSieve(
      {"cluster", "status", "--cluster", StatusUrl(), "--crawl-id", crawl_id_},
      out));
  EXPECT_EQ(code, 0) << ReadFile(out);
  return code == 0 ? ReadFile(out) : "";
}

size_t ClusterCrawl::PageRequests() const {
  size_t n = 0;
  for (const std::unique_ptr<DemoSite>& site : sites_) {
    for (const SiteRequest& r : site->requests()) n += r.path != "/robots.txt";
  }
  return n;
}

size_t ClusterCrawl::SitePages() const {
  size_t n = 0;
  for (const std::unique_ptr<DemoSite>& site : sites_)
    n += Expected(site->graph()).fetched.size();
  return n;
}

std::vector<nlohmann::json> ReadCompletePages(
    const std::filesystem::path& out) {
  const std::string text = ReadFile(out / "pages.jsonl");
  std::vector<nlohmann::json> pages;
  size_t start = 0;
  for (size_t end = text.find('\n'); end != std::string::npos;
       start = end + 1, end = text.find('\n', start)) {
    const std::string line = text.substr(start, end - start);
    nlohmann::json page = nlohmann::json::parse(line, nullptr, false);
    EXPECT_FALSE(page.is_discarded()) << "bad pages.jsonl line: " << line;
    if (!page.is_discarded()) pages.push_back(std::move(page));
  }
  return pages;
}

int ClusterCrawl::ExpectWholeSites(const std::vector<std::string>& workers,
                                   bool allow_twice) {
  // authority -> path -> records, over all workers.
  std::map<std::string, std::map<std::string, int>> recorded;
  for (const std::string& w : workers) {
    for (const nlohmann::json& page : ReadCompletePages(Out(w))) {
      const std::string url = page["url"];
      const std::string authority = url.substr(7, url.find('/', 7) - 7);
      ++recorded[authority][PathOf(url)];
    }
  }
  int twice = 0;
  for (const std::unique_ptr<DemoSite>& site : sites_) {
    const ExpectedCrawl expected = Expected(site->graph());
    const std::map<std::string, int>& got = recorded[site->authority()];
    EXPECT_EQ(got.size(), expected.fetched.size()) << site->authority();
    for (const auto& [path, n] : got) {
      if (!allow_twice) {
        EXPECT_EQ(n, 1) << site->authority() << path << " recorded " << n;
      }
      EXPECT_TRUE(expected.fetched.contains(path)) << "unexpected " << path;
    }
    std::map<std::string, int> requested;
    for (const SiteRequest& r : site->requests()) {
      if (r.path != "/robots.txt") ++requested[r.path];
    }
    for (const auto& [path, n] : requested) twice += n - 1;
    EXPECT_EQ(site->max_concurrent(), 1) << site->authority();
  }
  return twice;
}

}  // namespace sieve::testing_util
