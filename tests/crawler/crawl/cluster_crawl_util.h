// tests/crawler/crawl/cluster_crawl_util.h: a shared crawl through the real
// binary for the cluster tests: loopback DemoSites (one host each), a
// redis-server of the test's own (or a Redis Cluster of its own,
// tests/cluster/redis_cluster.h), `sieve crawl --cluster` workers, `sieve
// cluster status`, and the checks made at the servers.
#ifndef SIEVE_TESTS_CRAWLER_CRAWL_CLUSTER_CRAWL_UTIL_H_
#define SIEVE_TESTS_CRAWLER_CRAWL_CLUSTER_CRAWL_UTIL_H_

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "crawler/demo/demo_site.h"
#include "nlohmann/json.hpp"
#include "tests/cluster/redis_cluster.h"
#include "tests/cluster/redis_server.h"
#include "tests/crawler/crawl/crawl_test_util.h"

namespace sieve::testing_util {

struct ClusterCrawlOptions {
  int sites = 24;
  int pages = 25;
  double delay_seconds = 0.02;
  double lease_seconds = 0.6;
  int shards = 3;
  bool appendonly = false;
  // Extra lines of the workers' config file.
  std::string config_extra{};
  // Extra flags of every worker.
  std::vector<std::string> flags{};
  // Above 0: a Redis Cluster of that many masters with one replica each
  // (the workers pointed at its node 0, the status command at its last
  // node) instead of one redis-server.
  int cluster_masters = 0;
};

class ClusterCrawl {
 public:
  // Starts the sites and redis-server; writes seeds.txt and cluster.toml
  // under a fresh directory `name`. Fails the test (and returns null) if one
  // cannot start.
  static std::unique_ptr<ClusterCrawl> Start(const std::string& name,
                                             ClusterCrawlOptions options);

  // Starts worker `id` (output in DIR/<id>, log in DIR/<id>.log).
  pid_t StartWorker(const std::string& id);
  std::string Log(const std::string& id) const;
  std::filesystem::path Out(const std::string& id) const { return dir_ / id; }

  // Runs `sieve cluster status --json`; null JSON (and a test failure) if
  // it fails.
  nlohmann::json Status();
  // The same without the failure (the crawl may not exist yet).
  nlohmann::json TryStatus();
  // Runs `sieve cluster status` (the table); its output, or "" (and a test
  // failure) if it fails.
  std::string StatusTable();

  // Requests of the sites' pages (robots.txt not counted) so far.
  size_t PageRequests() const;
  // Pages in the sites (the answer key).
  size_t SitePages() const;

  // The union of the workers' pages.jsonl is exactly the sites (a page may be
  // recorded more than once only if `allow_twice`), no host ever had two
  // requests at once. Returns the requests beyond one per page.
  int ExpectWholeSites(const std::vector<std::string>& workers,
                       bool allow_twice);

  // The one redis-server (REQUIRES: cluster_masters == 0).
  testing::RedisServer& redis() { return *redis_; }
  // The Redis Cluster (REQUIRES: cluster_masters > 0).
  testing::RedisCluster& cluster() { return *cluster_; }
  // The URL the workers are given.
  std::string url() const;
  const std::filesystem::path& dir() const { return dir_; }
  const std::vector<std::unique_ptr<DemoSite>>& sites() const { return sites_; }

 private:
  // The URL of the status command: the last node of a cluster.
  std::string StatusUrl() const;

  ClusterCrawlOptions options_{};
  std::unique_ptr<testing::RedisServer> redis_;
  std::unique_ptr<testing::RedisCluster> cluster_;
  std::vector<std::unique_ptr<DemoSite>> sites_;
  std::filesystem::path dir_;
  std::string crawl_id_;
};

// The records of DIR/pages.jsonl, but an unterminated last line: a worker
// SIGKILLed while writing leaves one (its URL was not acknowledged; another
// worker fetches it again). Every complete line must parse.
std::vector<nlohmann::json> ReadCompletePages(const std::filesystem::path& out);

}  // namespace sieve::testing_util

#endif  // SIEVE_TESTS_CRAWLER_CRAWL_CLUSTER_CRAWL_UTIL_H_
