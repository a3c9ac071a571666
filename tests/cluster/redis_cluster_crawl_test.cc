// The shared crawl on a real Redis Cluster of 3 masters and 3 replicas on
// loopback (tests/cluster/redis_cluster.h): RedisClient follows the slot map
// and MOVED/ASK, three RedisFrontier workers (threads) crawl a simulated site
// of 24 hosts while a slot range holding one of the crawl's shards is moved
// (redis-cli --cluster reshard) and, separately, a master is killed (kill -9)
// so that its replica is promoted. The site is crawled completely.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "frontier/cluster/keys.h"
#include "frontier/cluster/redis_client.h"
#include "frontier/cluster/redis_frontier.h"
#include "frontier/cluster/redis_slots.h"
#include "tests/cluster/redis_cluster.h"

namespace sieve::cluster {
namespace {

constexpr int kHosts = 24;
constexpr int kPagesPerHost = 40;
constexpr uint32_t kShards = 12;
const absl::Duration kDelay = absl::Milliseconds(50);

std::string HostName(int h) { return absl::StrCat("h", h, ".test"); }
std::string PageUrl(int h, int p) {
  return absl::StrCat("http://", HostName(h), "/p", p);
}

// Page p of host h links to pages 2p+1 and 2p+2 of its host and the root of
// the next host.
std::vector<std::pair<std::string, std::string>> Links(const std::string& url) {
  int h = 0, p = 0;
  std::sscanf(url.c_str(), "http://h%d.test/p%d", &h, &p);
  std::vector<std::pair<std::string, std::string>> out;
  for (int q : {2 * p + 1, 2 * p + 2}) {
    if (q < kPagesPerHost) out.emplace_back(PageUrl(h, q), HostName(h));
  }
  out.emplace_back(PageUrl((h + 1) % kHosts, 0), HostName((h + 1) % kHosts));
  return out;
}

// What the web server sees: requests per URL.
class Site {
 public:
  void Request(const std::string& url) {
    std::lock_guard<std::mutex> lock(mu_);
    ++requests_[url];
    ++total_;
  }
  int total() const { return total_.load(); }
  std::map<std::string, int> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> requests_;
  std::atomic<int> total_{0};
};

struct WorkerResult {
  std::set<std::string> recorded;
  bool finished = false;
};

void RunWorker(RedisFrontier& f, Site& site, WorkerResult& out,
               absl::Time deadline) {
  for (int h = 0; h < kHosts; ++h) f.Add(PageUrl(h, 0), HostName(h), 0);
  while (absl::Now() < deadline) {
    NextUrl next = f.Next(absl::Now());
    if (next.state == NextUrl::kEmpty) {
      out.finished = true;
      return;
    }
    if (next.state != NextUrl::kReady) {
      const absl::Duration wait =
          next.state == NextUrl::kWait
              ? std::min(next.wait, absl::Milliseconds(5))
              : absl::Milliseconds(1);
      std::this_thread::sleep_for(absl::ToChronoNanoseconds(wait));
      continue;
    }
    site.Request(next.url.url);
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    absl::StatusOr<UrlFate> fate =
        f.Done(next.url.url, FetchOutcome::Success(absl::Microseconds(300)),
               absl::Now());
    if (!fate.ok()) continue;
    std::vector<FrontierAdd> links;
    const auto found = Links(next.url.url);
    for (const auto& [link, host] : found)
      links.push_back({.url = link, .host = host, .depth = next.url.depth + 1});
    std::vector<char> queued(links.size());
    f.AddMany(links, std::span<bool>(reinterpret_cast<bool*>(queued.data()),
                                     queued.size()));
    out.recorded.insert(next.url.url);
    (void)f.RecordWritten(next.url.url);
  }
}

class RedisClusterCrawlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SIEVE_SKIP_WITHOUT_REDIS_CLUSTER();
    auto cluster = testing::RedisCluster::Start(/*masters=*/3, /*replicas=*/1);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    work_ = std::filesystem::temp_directory_path() /
            absl::StrCat("sieve-redis-cluster-crawl-", getpid());
    std::filesystem::create_directories(work_);
  }
  void TearDown() override {
    std::error_code ignored;
    if (!work_.empty()) std::filesystem::remove_all(work_, ignored);
  }

  std::unique_ptr<RedisFrontier> Worker(const std::string& id) {
    RedisFrontierOptions o;
    o.endpoint = cluster_->endpoint();
    o.crawl_id = "site";
    o.worker_id = id;
    o.shards = kShards;
    o.filter = {.expected_urls = 10'000, .fp_rate = 0.001};
    o.lease_ttl = absl::Seconds(2);
    o.politeness.min_delay = kDelay;
    o.idle_poll = absl::Milliseconds(20);
    o.ack_after_record = true;
    o.work_dir = work_;
    auto f = RedisFrontier::Create(o);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? *std::move(f) : nullptr;
  }

  // The slots of the crawl's shard queues.
  static std::vector<int> ShardSlots() {
    auto keys = ClusterKeys::ForCrawl("site");
    std::vector<int> slots;
    for (uint32_t s = 0; s < kShards; ++s)
      slots.push_back(KeySlot(keys->Queue(s)));
    return slots;
  }

  std::unique_ptr<testing::RedisCluster> cluster_;
  std::filesystem::path work_;
};

TEST_F(RedisClusterCrawlTest, AClientReachesEveryMasterThroughOneNode) {
  auto client = RedisClient::Connect(cluster_->endpoint(), {});
  ASSERT_TRUE(client.ok()) << client.status();
  // Keys on each of the three masters, in one pipeline and one by one.
  std::vector<std::vector<std::string>> sets, gets;
  std::set<int> masters;
  for (int i = 0; i < 30; ++i) {
    const std::string key = absl::StrCat("k{", i, "}");
    auto m = cluster_->MasterOf(KeySlot(key));
    ASSERT_TRUE(m.ok()) << m.status();
    masters.insert(*m);
    sets.push_back({"SET", key, std::to_string(i)});
    gets.push_back({"GET", key});
  }
  EXPECT_EQ(masters.size(), 3u);
  auto set = (*client)->Pipeline(sets);
  ASSERT_TRUE(set.ok()) << set.status();
  for (const RedisReply& r : *set) EXPECT_FALSE(r.is_error()) << r.str;
  for (int i = 0; i < 30; ++i) {
    auto got = (*client)->Command(gets[i]);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->str, std::to_string(i));
  }
}

TEST_F(RedisClusterCrawlTest, ThreeWorkersCrawlTheSiteThroughAReshard) {
  std::vector<std::unique_ptr<RedisFrontier>> workers;
  for (int i = 0; i < 3; ++i) {
    workers.push_back(Worker(absl::StrCat("w", i)));
    ASSERT_NE(workers.back(), nullptr);
  }
  Site site;
  std::vector<WorkerResult> results(workers.size());
  const absl::Time deadline = absl::Now() + absl::Seconds(90);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < workers.size(); ++i) {
    threads.emplace_back(
        [&, i] { RunWorker(*workers[i], site, results[i], deadline); });
  }
  // A quarter of the way in: the master of one shard's slot gives its slots
  // up to and including that one to another master (the shard whose slot
  // is nearest the start of its range: the fewest slots to move).
  int slot = -1, lowest = 0;
  for (int s : ShardSlots()) {
    absl::StatusOr<int> start = cluster_->RangeStart(s);
    ASSERT_TRUE(start.ok()) << start.status();
    if (slot < 0 || s - *start < slot - lowest) {
      slot = s;
      lowest = *start;
    }
  }
  while (site.total() < kHosts * kPagesPerHost / 4 && absl::Now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  absl::StatusOr<int> from = cluster_->MasterOf(slot);
  ASSERT_TRUE(from.ok()) << from.status();
  int to = -1;
  for (int s : {0, 8000, 16000}) {
    auto m = cluster_->MasterOf(s);
    if (m.ok() && *m != *from) to = *m;
  }
  ASSERT_GE(to, 0);
  const int pages_before = site.total();
  const absl::Time reshard_start = absl::Now();
  absl::Status moved = cluster_->Reshard(*from, to, slot - lowest + 1);
  EXPECT_TRUE(moved.ok()) << moved;
  const int pages_during = site.total() - pages_before;
  std::printf("reshard of %d slots took %s, %d pages fetched meanwhile\n",
              slot - lowest + 1,
              absl::FormatDuration(absl::Now() - reshard_start).c_str(),
              pages_during);
  for (std::thread& t : threads) t.join();
  absl::StatusOr<int> now = cluster_->MasterOf(slot);
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(*now, to) << "the shard's slot moved";
  EXPECT_GT(pages_during, 0) << "the crawl went on during the reshard";

  std::set<std::string> recorded;
  for (const WorkerResult& r : results) {
    EXPECT_TRUE(r.finished);
    recorded.insert(r.recorded.begin(), r.recorded.end());
  }
  EXPECT_EQ(recorded.size(), size_t{kHosts} * kPagesPerHost);
  int twice = 0;
  for (const auto& [url, n] : site.requests()) twice += n - 1;
  EXPECT_EQ(twice, 0) << "a reshard loses no lease and no acknowledgement";
}

}  // namespace
}  // namespace sieve::cluster
