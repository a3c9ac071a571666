// The shared crawl on a real Redis Cluster of 3 masters and 3 replicas on
// loopback (tests/cluster/redis_cluster.h): RedisClient follows the slot map
// and MOVED/ASK, three RedisFrontier workers (threads) crawl a simulated site
// of 24 hosts while a slot range holding one of the crawl's shards is moved
// (redis-cli --cluster reshard), or while the master of one of its shards is
// killed (kill -9) and its replica takes over, or both in one crawl (the
// master that took the range is then killed). The site is crawled
// completely, each page once through the reshard; through the failover, the
// pages fetched twice are counted and at most those in flight meanwhile.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
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
#include "tests/cluster/tree_web.h"
#include "tests/common/temp_dir.h"

namespace sieve::cluster {
namespace {

using tree_web::HostName;
using tree_web::kHosts;
using tree_web::kPagesPerHost;
using tree_web::Links;
using tree_web::PageUrl;

constexpr uint32_t kShards = 12;
const absl::Duration kDelay = absl::Milliseconds(50);

// What the web server sees: requests per URL.
class Site {
 public:
  void Request(const std::string& url) {
    std::lock_guard<std::mutex> lock(mu_);
    ++requests_[url];
    ++total_;
    ++in_flight_;
  }
  // The worker acknowledged a page fetched (its RecordWritten returned).
  void Acknowledged() { --in_flight_; }
  int total() const { return total_.load(); }
  // Pages fetched and not yet acknowledged.
  int in_flight() const { return in_flight_.load(); }
  std::map<std::string, int> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> requests_;
  std::atomic<int> total_{0};
  std::atomic<int> in_flight_{0};
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
    if (!fate.ok()) {
      site.Acknowledged();
      continue;
    }
    std::vector<FrontierAdd> links;
    const auto found = Links(next.url.url);
    for (const auto& [link, host] : found)
      links.push_back({.url = link, .host = host, .depth = next.url.depth + 1});
    std::vector<char> queued(links.size());
    f.AddMany(links, std::span<bool>(reinterpret_cast<bool*>(queued.data()),
                                     queued.size()));
    out.recorded.insert(next.url.url);
    (void)f.RecordWritten(next.url.url);
    site.Acknowledged();
  }
}

class RedisClusterCrawlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SIEVE_SKIP_WITHOUT_REDIS_CLUSTER();
    auto cluster = testing::RedisCluster::Start(/*masters=*/3, /*replicas=*/1);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    work_ = sieve::test::FreshDir(sieve::test::CurrentTestName());
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

  // Three workers crawl the site on threads (for at most 60 s) while
  // `meanwhile` runs on the test's thread; then every page is recorded by
  // some worker and each worker finished. Returns the pages requested more
  // than once.
  int CrawlWhile(const std::function<void(Site&, absl::Time)>& meanwhile) {
    std::vector<std::unique_ptr<RedisFrontier>> workers;
    for (int i = 0; i < 3; ++i) {
      workers.push_back(Worker(absl::StrCat("w", i)));
      if (workers.back() == nullptr) return -1;
    }
    Site site;
    std::vector<WorkerResult> results(workers.size());
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < workers.size(); ++i) {
      threads.emplace_back(
          [&, i] { RunWorker(*workers[i], site, results[i], deadline); });
    }
    meanwhile(site, deadline);
    for (std::thread& t : threads) t.join();
    reclaimed_ = 0;
    for (const auto& w : workers) reclaimed_ += w->reclaimed();
    std::set<std::string> recorded;
    for (const WorkerResult& r : results) {
      EXPECT_TRUE(r.finished);
      recorded.insert(r.recorded.begin(), r.recorded.end());
    }
    EXPECT_EQ(recorded.size(), size_t{kHosts} * kPagesPerHost);
    int twice = 0;
    for (const auto& [url, n] : site.requests()) twice += n - 1;
    return twice;
  }

  static void WaitForPages(Site& site, int pages, absl::Time deadline) {
    while (site.total() < pages && absl::Now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

  // A shard's slot and the first slot of the range it belongs to.
  struct SlotRange {
    int slot = -1;
    int lowest = 0;
  };
  // The shard whose slot is nearest the start of its range: the fewest
  // slots to move with it. slot -1 (and a test failure) on error.
  SlotRange ShardNearestItsRangeStart() {
    SlotRange best;
    for (int s : ShardSlots()) {
      absl::StatusOr<int> start = cluster_->RangeStart(s);
      EXPECT_TRUE(start.ok()) << start.status();
      if (!start.ok()) return {};
      if (best.slot < 0 || s - *start < best.slot - best.lowest)
        best = {.slot = s, .lowest = *start};
    }
    return best;
  }

  struct Resharded {
    int to = -1;  // The master that took the slots; -1 if none did.
    int pages_during = 0;
  };
  // The master of range.slot gives the slots of its range up to and
  // including that one to another master (not `avoid` if there is a
  // choice), with redis-cli --cluster reshard, while the crawl goes on.
  Resharded Reshard(Site& site, const SlotRange& range, int avoid = -1) {
    Resharded out;
    absl::StatusOr<int> from = cluster_->MasterOf(range.slot);
    EXPECT_TRUE(from.ok()) << from.status();
    if (!from.ok()) return out;
    for (int s : {0, 8000, 16000}) {
      absl::StatusOr<int> m = cluster_->MasterOf(s);
      if (m.ok() && *m != *from && (out.to < 0 || out.to == avoid)) out.to = *m;
    }
    EXPECT_GE(out.to, 0) << "no other master";
    if (out.to < 0) return out;
    const int slots = range.slot - range.lowest + 1;
    const int pages_before = site.total();
    const absl::Time start = absl::Now();
    absl::Status moved = cluster_->Reshard(*from, out.to, slots);
    EXPECT_TRUE(moved.ok()) << moved;
    out.pages_during = site.total() - pages_before;
    std::printf("reshard of %d slots took %s, %d pages fetched meanwhile\n",
                slots, absl::FormatDuration(absl::Now() - start).c_str(),
                out.pages_during);
    if (!moved.ok()) out.to = -1;
    return out;
  }

  // A master holding some of the crawl's shards, not node 0 (the one the
  // workers were pointed at); *slot is the slot of one of those shards.
  // -1 (and a test failure) if there is none.
  int MasterOfSomeShard(int* slot) {
    int victim = -1;
    for (int at : ShardSlots()) {
      absl::StatusOr<int> m = cluster_->MasterOf(at);
      EXPECT_TRUE(m.ok()) << m.status();
      if (!m.ok()) return -1;
      if (*m == 0 || (victim >= 0 && *m != victim)) continue;
      victim = *m;
      *slot = at;
    }
    EXPECT_GE(victim, 0) << "no master but node 0 holds a shard";
    return victim;
  }

  struct FailedOver {
    int promoted_to = -1;  // The replica now serving the slots; -1: none.
    int in_flight = 0;     // Pages fetched and not acknowledged at the kill.
    int during = 0;        // Pages fetched from the kill to the promotion.
  };
  // kill -9 of the master at node `victim`, then waits (until `deadline`)
  // for another node to serve `slot`, one of its slots.
  FailedOver KillAndWaitForItsReplica(Site& site, int victim, int slot,
                                      absl::Time deadline) {
    FailedOver out;
    const int before = site.total();
    out.in_flight = site.in_flight();
    cluster_->node(victim).Kill();
    const absl::Time killed = absl::Now();
    while (absl::Now() < deadline) {
      absl::StatusOr<int> m = cluster_->MasterOf(slot);
      if (m.ok() && *m != victim) {
        out.promoted_to = *m;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    out.during = site.total() - before;
    std::printf(
        "failover: the replica (node %d) serves the slots %s after the "
        "kill; %d pages fetched and not acknowledged at the kill, %d "
        "fetched until the promotion\n",
        out.promoted_to, absl::FormatDuration(absl::Now() - killed).c_str(),
        out.in_flight, out.during);
    return out;
  }

  // After a CrawlWhile through `failover`: the pages fetched twice are at
  // most those in flight during the failure: fetched and not acknowledged
  // when the master died, and fetched before its replica took over (a page
  // of a live master's shard too: its links to the dead master's shards
  // wait in AddMany, and its worker's leases may lapse meanwhile); and each
  // was counted as taken over.
  void ExpectFetchedTwiceBoundedBy(const FailedOver& failover, int twice) {
    EXPECT_GE(failover.promoted_to, 0)
        << "the killed master's replica took its place";
    std::printf("pages fetched twice: %d, entries taken over: %llu\n", twice,
                static_cast<unsigned long long>(reclaimed_));
    EXPECT_LE(twice, failover.in_flight + failover.during);
    EXPECT_LE(static_cast<uint64_t>(twice), reclaimed_)
        << "pages fetched twice and not counted as taken over";
  }

  std::unique_ptr<testing::RedisCluster> cluster_;
  std::filesystem::path work_;
  // Entries the workers of the last CrawlWhile took over from another.
  uint64_t reclaimed_ = 0;
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

TEST_F(RedisClusterCrawlTest, APipelineReachesTheLiveMastersWhileOneIsDown) {
  // The client's first node (the first of its pipelines) is killed: the
  // call fails, and the other masters have run their commands all the same.
  auto client = RedisClient::Connect(cluster_->endpoint(), {});
  ASSERT_TRUE(client.ok()) << client.status();
  std::vector<std::vector<std::string>> sets;
  std::vector<std::string> keys;
  for (int i = 0; i < 30; ++i) {
    keys.push_back(absl::StrCat("k{", i, "}"));
    sets.push_back({"SET", keys.back(), "old"});
  }
  ASSERT_TRUE((*client)->Pipeline(sets).ok());
  std::vector<bool> on_node0;
  for (const std::string& key : keys) {
    absl::StatusOr<int> m = cluster_->MasterOf(KeySlot(key));
    ASSERT_TRUE(m.ok()) << m.status();
    on_node0.push_back(*m == 0);
  }
  cluster_->node(0).Kill();
  for (auto& set : sets) set[2] = "new";
  EXPECT_FALSE((*client)->Pipeline(sets).ok());
  auto other = RedisClient::Connect(cluster_->node(1).endpoint(), {});
  ASSERT_TRUE(other.ok()) << other.status();
  int checked = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (on_node0[i]) continue;
    auto got = (*other)->Command({"GET", keys[i]});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->str, "new") << keys[i];
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST_F(RedisClusterCrawlTest, ANodeThatStopsAnsweringIsNotWaitedForAgain) {
  // The client is pointed at a master that then stops answering (SIGSTOP:
  // connections are accepted, nothing is answered, as a machine gone dead).
  // The first command to it waits its command_timeout; later calls do not
  // wait for it again (the slot map is read from another node, a command
  // for its slots fails at once until its back-off passes), so a worker
  // is told to wait instead of being blocked a timeout per call.
  std::string key_there, key_elsewhere;
  int paused = -1;
  for (int i = 0; i < 100 && key_elsewhere.empty(); ++i) {
    const std::string key = absl::StrCat("k{", i, "}");
    absl::StatusOr<int> m = cluster_->MasterOf(KeySlot(key));
    ASSERT_TRUE(m.ok()) << m.status();
    if (paused < 0) {
      paused = *m;
      key_there = key;
    } else if (*m != paused) {
      key_elsewhere = key;
    }
  }
  ASSERT_FALSE(key_elsewhere.empty());
  RedisClientOptions o;
  o.connect_timeout = absl::Seconds(1);
  o.command_timeout = absl::Seconds(1);
  o.reconnect_deadline = absl::ZeroDuration();
  auto client = RedisClient::Connect(cluster_->node(paused).endpoint(), o);
  ASSERT_TRUE(client.ok()) << client.status();
  for (const std::string& key : {key_there, key_elsewhere}) {
    auto set = (*client)->Command({"SET", key, "v"});
    ASSERT_TRUE(set.ok()) << set.status();
  }
  cluster_->node(paused).Pause();
  absl::Time start = absl::Now();
  auto first = (*client)->Command({"GET", key_there});
  EXPECT_FALSE(first.ok());
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(900));
  start = absl::Now();
  auto elsewhere = (*client)->Command({"GET", key_elsewhere});
  const absl::Duration took_elsewhere = absl::Now() - start;
  start = absl::Now();
  auto again = (*client)->Command({"GET", key_there});
  const absl::Duration took_again = absl::Now() - start;
  cluster_->node(paused).Resume();
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.status();
  EXPECT_EQ(elsewhere->str, "v");
  EXPECT_LT(took_elsewhere, absl::Milliseconds(500))
      << "the slot map was read again through the node that stopped";
  EXPECT_LT(took_again, absl::Milliseconds(500))
      << "a command for the stopped node waited for it again";
}

TEST_F(RedisClusterCrawlTest, ThreeWorkersCrawlTheSiteThroughAReshard) {
  const SlotRange range = ShardNearestItsRangeStart();
  ASSERT_GE(range.slot, 0);
  Resharded moved;
  const int twice = CrawlWhile([&](Site& site, absl::Time deadline) {
    // A quarter of the way in.
    WaitForPages(site, kHosts * kPagesPerHost / 4, deadline);
    moved = Reshard(site, range);
  });
  ASSERT_GE(moved.to, 0);
  absl::StatusOr<int> now = cluster_->MasterOf(range.slot);
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(*now, moved.to) << "the shard's slot moved";
  EXPECT_GT(moved.pages_during, 0) << "the crawl went on during the reshard";
  EXPECT_EQ(twice, 0) << "a reshard loses no lease and no acknowledgement";
}

TEST_F(RedisClusterCrawlTest, LeasesOnTheLiveMastersAreKeptThroughAFailover) {
  // The master of the crawl-wide keys (heartbeats, stats) is killed: the
  // worker keeps renewing its leases on the other masters meanwhile, so
  // after the failover it holds those shards under the same leases (not
  // lapsed and taken again with a new fencing token).
  std::unique_ptr<RedisFrontier> w = Worker("w0");
  ASSERT_NE(w, nullptr);
  for (int i = 0; i < 100 && w->held_shards().size() < kShards; ++i) {
    (void)w->Next(absl::Now());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(w->held_shards().size(), kShards);
  auto keys = ClusterKeys::ForCrawl("site");
  ASSERT_TRUE(keys.ok());
  const int crawl_slot = KeySlot(keys->Meta());
  absl::StatusOr<int> victim = cluster_->MasterOf(crawl_slot);
  ASSERT_TRUE(victim.ok()) << victim.status();
  auto reader =
      RedisClient::Connect(cluster_->node(*victim == 0 ? 1 : 0).endpoint(), {});
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::map<uint32_t, std::string> leases;  // Shards on the live masters.
  for (uint32_t s = 0; s < kShards; ++s) {
    absl::StatusOr<int> m = cluster_->MasterOf(KeySlot(keys->Lease(s)));
    ASSERT_TRUE(m.ok()) << m.status();
    if (*m == *victim) continue;
    auto value = (*reader)->Command({"GET", keys->Lease(s)});
    ASSERT_TRUE(value.ok()) << value.status();
    leases[s] = value->str;
  }
  ASSERT_FALSE(leases.empty());
  cluster_->node(*victim).Kill();
  // The worker's loop runs through the failover and a second past it.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  absl::Time until = deadline;
  while (absl::Now() < until) {
    (void)w->Next(absl::Now());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    absl::StatusOr<int> m = cluster_->MasterOf(crawl_slot);
    if (until == deadline && m.ok() && *m != *victim)
      until = absl::Now() + absl::Seconds(1);
  }
  ASSERT_NE(until, deadline) << "no replica took the killed master's place";
  for (const auto& [s, before] : leases) {
    auto value = (*reader)->Command({"GET", keys->Lease(s)});
    ASSERT_TRUE(value.ok()) << value.status();
    EXPECT_EQ(value->str, before) << "shard " << s << "'s lease lapsed";
  }
}

TEST_F(RedisClusterCrawlTest, ThreeWorkersCrawlTheSiteThroughAFailover) {
  int slot = -1;
  const int victim = MasterOfSomeShard(&slot);
  ASSERT_GE(victim, 0);
  FailedOver failover;
  const int twice = CrawlWhile([&](Site& site, absl::Time deadline) {
    // A quarter of the way in.
    WaitForPages(site, kHosts * kPagesPerHost / 4, deadline);
    failover = KillAndWaitForItsReplica(site, victim, slot, deadline);
  });
  ExpectFetchedTwiceBoundedBy(failover, twice);
}

TEST_F(RedisClusterCrawlTest,
       ThreeWorkersCrawlTheSiteThroughAReshardAndAFailover) {
  // One crawl: a quarter of the way in, a slot range holding one of its
  // shards moves to another master (not node 0, the workers' node); half
  // way in, that master is killed: the slots it just took are served by its
  // replica.
  const SlotRange range = ShardNearestItsRangeStart();
  ASSERT_GE(range.slot, 0);
  Resharded moved;
  FailedOver failover;
  const int twice = CrawlWhile([&](Site& site, absl::Time deadline) {
    WaitForPages(site, kHosts * kPagesPerHost / 4, deadline);
    moved = Reshard(site, range, /*avoid=*/0);
    if (moved.to < 0) return;
    absl::StatusOr<int> now = cluster_->MasterOf(range.slot);
    EXPECT_TRUE(now.ok() && *now == moved.to) << "the shard's slot moved";
    WaitForPages(site, kHosts * kPagesPerHost / 2, deadline);
    failover = KillAndWaitForItsReplica(site, moved.to, range.slot, deadline);
  });
  ASSERT_GE(moved.to, 0);
  EXPECT_GT(moved.pages_during, 0) << "the crawl went on during the reshard";
  ExpectFetchedTwiceBoundedBy(failover, twice);
}

}  // namespace
}  // namespace sieve::cluster
