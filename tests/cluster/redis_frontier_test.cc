// Three RedisFrontier workers (threads, each its own Redis connection) crawl a
// simulated site of 24 hosts through one real redis-server on loopback. The
// "server" is in the test: it records every request, so the test checks what
// a web server would see: each URL once, per-host politeness across workers.
#include "frontier/cluster/redis_frontier.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "tests/cluster/redis_test.h"
#include "tests/cluster/tree_web.h"

namespace sieve::cluster {
namespace {

using tree_web::HostName;
using tree_web::kHosts;
using tree_web::kPagesPerHost;
using tree_web::Links;
using tree_web::PageUrl;

const absl::Duration kDelay = absl::Milliseconds(15);

// What the web server sees.
class Server {
 public:
  void Begin(const std::string& url, const std::string& host) {
    std::lock_guard<std::mutex> lock(mu_);
    const absl::Time now = absl::Now();
    ++requests_[url];
    HostLog& h = hosts_[host];
    if (h.in_flight > 0) ++overlaps_;
    if (h.last_end != absl::InfinitePast() && now - h.last_end < kDelay)
      ++too_close_;
    ++h.in_flight;
  }
  void End(const std::string& host) {
    std::lock_guard<std::mutex> lock(mu_);
    HostLog& h = hosts_[host];
    --h.in_flight;
    h.last_end = absl::Now();
  }
  size_t request_count() {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (const auto& [url, count] : requests_) n += count;
    return n;
  }
  std::map<std::string, int> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  int overlaps() { return overlaps_; }
  int too_close() { return too_close_; }

 private:
  struct HostLog {
    int in_flight = 0;
    absl::Time last_end = absl::InfinitePast();
  };
  std::mutex mu_;
  std::map<std::string, int> requests_;
  std::map<std::string, HostLog> hosts_;
  int overlaps_ = 0;
  int too_close_ = 0;
};

struct WorkerResult {
  std::vector<std::string> pages;
  bool finished = false;
};

// The crawl loop of one worker, one fetch at a time; stops when the frontier
// says the crawl is finished, after `max_pages` pages, or at `deadline`.
void RunWorker(RedisFrontier& f, Server& server, WorkerResult& out,
               absl::Time deadline, size_t max_pages = SIZE_MAX) {
  for (int h = 0; h < kHosts; ++h) f.Add(PageUrl(h, 0), HostName(h), 0);
  while (absl::Now() < deadline && out.pages.size() < max_pages) {
    NextUrl next = f.Next(absl::Now());
    if (next.state == NextUrl::kEmpty) {
      out.finished = true;
      return;
    }
    if (next.state != NextUrl::kReady) {
      absl::Duration wait = next.state == NextUrl::kWait
                                ? std::min(next.wait, absl::Milliseconds(5))
                                : absl::Milliseconds(1);
      std::this_thread::sleep_for(absl::ToChronoNanoseconds(wait));
      continue;
    }
    server.Begin(next.url.url, next.url.host);
    std::this_thread::sleep_for(std::chrono::microseconds(500));
    server.End(next.url.host);
    absl::StatusOr<UrlFate> fate =
        f.Done(next.url.url, FetchOutcome::Success(absl::Microseconds(500)),
               absl::Now());
    ASSERT_TRUE(fate.ok()) << fate.status();
    ASSERT_EQ(*fate, UrlFate::kFinished);
    for (const auto& [link, host] : Links(next.url.url))
      f.Add(link, host, next.url.depth + 1);
    out.pages.push_back(next.url.url);  // The record, written.
    ASSERT_TRUE(f.RecordWritten(next.url.url).ok());
  }
}

class RedisFrontierTest : public ::sieve::testing::RedisTest {
 protected:
  std::unique_ptr<RedisFrontier> Worker(const std::string& id,
                                        uint32_t fetch_slots = 0) {
    RedisFrontierOptions o;
    o.endpoint = redis_->endpoint();
    o.crawl_id = "site";
    o.worker_id = id;
    o.shards = 12;
    o.filter = {.expected_urls = 10'000, .fp_rate = 0.001};
    o.lease_ttl = absl::Milliseconds(600);
    o.politeness.min_delay = kDelay;
    o.politeness.max_in_flight_per_host = 1;
    o.idle_poll = absl::Milliseconds(20);
    o.ack_after_record = true;
    o.fetch_slots = fetch_slots;
    o.work_dir = work_;
    auto f = RedisFrontier::Create(o);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? *std::move(f) : nullptr;
  }

  // Runs each worker on its own thread until the crawl ends for it (or 120 s
  // pass); `after(i)` runs on worker i's thread once it is done.
  std::vector<WorkerResult> CrawlOnThreads(
      std::vector<std::unique_ptr<RedisFrontier>>& workers, Server& server,
      const std::function<void(int)>& after = nullptr) {
    std::vector<WorkerResult> results(workers.size());
    const absl::Time deadline = absl::Now() + absl::Seconds(120);
    std::vector<std::thread> threads;
    for (int i = 0; i < static_cast<int>(workers.size()); ++i) {
      threads.emplace_back([&, i] {
        RunWorker(*workers[i], server, results[i], deadline);
        if (after) after(i);
      });
    }
    for (std::thread& t : threads) t.join();
    return results;
  }

  void ExpectWholeSiteOnce(const std::vector<WorkerResult>& results,
                           Server& server, int max_twice) {
    std::set<std::string> pages;
    for (const WorkerResult& r : results)
      pages.insert(r.pages.begin(), r.pages.end());
    EXPECT_EQ(pages.size(), static_cast<size_t>(kHosts * kPagesPerHost));
    std::map<std::string, int> requests = server.requests();
    EXPECT_EQ(requests.size(), static_cast<size_t>(kHosts * kPagesPerHost));
    int twice = 0;
    for (const auto& [url, n] : requests) twice += n > 1 ? n - 1 : 0;
    EXPECT_LE(twice, max_twice);
    EXPECT_EQ(server.overlaps(), 0) << "two requests to one host at once";
    EXPECT_EQ(server.too_close(), 0) << "two requests closer than the delay";
  }
};

// The same crawl on a Redis Cluster (one node holding every slot): Redis
// refuses, with CROSSSLOT, any command or script whose keys hash to two
// slots, so every call the workers make touches one slot.
class RedisFrontierOnClusterTest : public RedisFrontierTest {
 protected:
  RedisFrontierOnClusterTest() { server_options_.cluster = true; }
};

TEST_F(RedisFrontierOnClusterTest, ARedisClusterRefusesAScriptOverTwoSlots) {
  // The check bites: Add's script as it was before the filter was split by
  // shard (the URL's filter key had a tag of its own) is refused.
  auto client = RedisClient::Connect(redis_->endpoint(), {});
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<RedisReply> r = (*client)->Command(
      {"EVAL", "redis.call('SETBIT', KEYS[1], 0, 1) return 1", "2",
       "sieve:{site:f0}", "sieve:{site:s3}:q"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("CROSSSLOT"), std::string::npos)
      << r.status();
}

TEST_F(RedisFrontierOnClusterTest,
       ThreeWorkersCrawlTheSiteTouchingOneSlotACall) {
  std::vector<std::unique_ptr<RedisFrontier>> workers;
  // One fetch slot each: the load balance's calls run too.
  for (const char* id : {"w1", "w2", "w3"})
    workers.push_back(Worker(id, /*fetch_slots=*/1));
  for (auto& w : workers) ASSERT_NE(w, nullptr);
  Server server;
  const std::vector<WorkerResult> results = CrawlOnThreads(workers, server);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(results[i].finished) << "worker " << i << " hit the deadline";
    EXPECT_TRUE(workers[i]->status().ok()) << workers[i]->status();
    EXPECT_EQ(workers[i]->last_error().message().find("CROSSSLOT"),
              std::string::npos)
        << workers[i]->last_error();
  }
  ExpectWholeSiteOnce(results, server, /*max_twice=*/0);
}

TEST_F(RedisFrontierTest, ThreeWorkersCrawlTheSiteOncePolitelyAndShareShards) {
  std::vector<std::unique_ptr<RedisFrontier>> workers;
  for (const char* id : {"w1", "w2", "w3"}) workers.push_back(Worker(id));
  for (auto& w : workers) ASSERT_NE(w, nullptr);
  Server server;
  std::vector<size_t> held(3, 0);
  const std::vector<WorkerResult> results = CrawlOnThreads(
      workers, server,
      [&](int i) { held[i] = workers[i]->held_shards().size(); });
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(results[i].finished) << "worker " << i << " hit the deadline";
    EXPECT_GT(results[i].pages.size(), 0u) << "worker " << i;
    EXPECT_EQ(held[i], 4u) << "worker " << i << " holds a third of 12 shards";
    EXPECT_TRUE(workers[i]->status().ok()) << workers[i]->status();
  }
  ExpectWholeSiteOnce(results, server, /*max_twice=*/0);
  uint64_t commands = 0;
  for (auto& w : workers) commands += w->redis_commands();
  std::printf("pages %d, redis commands %llu (%.1f per page)\n",
              kHosts * kPagesPerHost, static_cast<unsigned long long>(commands),
              static_cast<double>(commands) / (kHosts * kPagesPerHost));
}

TEST_F(RedisFrontierTest, TwoWorkersFinishTheCrawlOfOneThatStopsDead) {
  std::vector<std::unique_ptr<RedisFrontier>> workers;
  for (const char* id : {"w1", "w2", "w3"}) workers.push_back(Worker(id));
  for (auto& w : workers) ASSERT_NE(w, nullptr);
  Server server;
  std::vector<WorkerResult> results(3);
  const absl::Time deadline = absl::Now() + absl::Seconds(120);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      // w3 stops dead after 60 pages: no release, no renewal; its leases
      // expire and the others claim what it had read.
      RunWorker(*workers[i], server, results[i], deadline,
                i == 2 ? 60 : SIZE_MAX);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE(results[0].finished);
  EXPECT_TRUE(results[1].finished);
  EXPECT_EQ(results[2].pages.size(), 60u);
  // It died between pages: nothing was in flight, so nothing is fetched twice.
  ExpectWholeSiteOnce(results, server, /*max_twice=*/0);
  EXPECT_GT(workers[0]->reclaimed() + workers[1]->reclaimed(), 0u)
      << "the dead worker's read entries were claimed";
}

TEST_F(RedisFrontierTest, AWorkerStartedHalfwayTakesAShareAndFetches) {
  std::vector<std::unique_ptr<RedisFrontier>> workers;
  for (const char* id : {"w1", "w2"}) workers.push_back(Worker(id));
  for (auto& w : workers) ASSERT_NE(w, nullptr);
  Server server;
  std::vector<WorkerResult> results(3);
  const absl::Time deadline = absl::Now() + absl::Seconds(120);
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back(
        [&, i] { RunWorker(*workers[i], server, results[i], deadline); });
  }
  // The third joins once a quarter of the site is fetched (bounded wait).
  while (server.request_count() < kHosts * kPagesPerHost / 4 &&
         absl::Now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::unique_ptr<RedisFrontier> late = Worker("late");
  ASSERT_NE(late, nullptr);
  size_t late_held = 0;
  threads.emplace_back([&] {
    RunWorker(*late, server, results[2], deadline);
    late_held = late->held_shards().size();
  });
  for (std::thread& t : threads) t.join();
  for (const WorkerResult& r : results) EXPECT_TRUE(r.finished);
  EXPECT_GT(results[2].pages.size(), 0u) << "the late worker fetched nothing";
  EXPECT_EQ(late_held, 4u) << "the late worker holds a third of 12 shards";
  ExpectWholeSiteOnce(results, server, /*max_twice=*/0);
}

TEST_F(RedisFrontierTest, KeepsAShardsBacklogInRedisNotInTheWorkersRam) {
  // 3,000 URLs of one host queued: the worker holds at most refill_below +
  // refill_count of them in RAM; short of hosts for its fetch slots, at most
  // refill_hungry_below + refill_count. The rest wait in the stream.
  auto client = RedisClient::Connect(redis_->endpoint(), {});
  ASSERT_TRUE(client.ok()) << client.status();
  for (uint32_t slots : {0u, 8u}) {
    const std::string crawl = absl::StrCat("backlog", slots);
    RedisFrontierOptions o;
    o.endpoint = redis_->endpoint();
    o.crawl_id = crawl;
    o.worker_id = "w1";
    o.shards = 4;
    // Room for 31,250 URLs a shard: no false positive among the 3,000.
    o.filter = {.expected_urls = 100'000, .fp_rate = 0.001};
    o.politeness.min_delay = absl::ZeroDuration();
    o.politeness.max_in_flight_per_host = 1;
    o.fetch_slots = slots;
    o.refill_below = 64;
    o.refill_count = 256;
    o.refill_hungry_below = 1000;
    o.work_dir = work_;
    auto f = RedisFrontier::Create(o);
    ASSERT_TRUE(f.ok()) << f.status();
    for (int i = 0; i < 3000; ++i)
      ASSERT_TRUE(
          (*f)->Add(absl::StrCat("http://big.test/", i), "big.test", 0));
    int ready = 0;
    for (int i = 0; i < 20; ++i) {
      NextUrl next = (*f)->Next(absl::Now());
      ready += next.state == NextUrl::kReady ? 1 : 0;
    }
    EXPECT_EQ(ready, 1) << "one connection to the host";
    const uint32_t shard = ShardOf("big.test", 4);
    auto keys = ClusterKeys::ForCrawl(crawl);
    // Read by the worker (pending for it) against left in the stream.
    absl::StatusOr<RedisReply> pending =
        (*client)->Command({"XPENDING", keys->Queue(shard), "w"});
    ASSERT_TRUE(pending.ok()) << pending.status();
    ASSERT_FALSE(pending->elements.empty());
    const int64_t read = pending->elements[0].integer;
    absl::StatusOr<RedisReply> len =
        (*client)->Command({"XLEN", keys->Queue(shard)});
    ASSERT_TRUE(len.ok()) << len.status();
    EXPECT_EQ(len->integer, 3000);
    EXPECT_EQ((*f)->stats().queued + 1, static_cast<uint64_t>(read));
    if (slots == 0) {
      EXPECT_LE(read, 64 + 256);
    } else {
      EXPECT_GT(read, 64 + 256) << "one host for 8 slots: reads further";
      EXPECT_LE(read, 1000 + 256);
    }
    std::printf("fetch slots %u: %lld of 3000 entries in the worker's RAM\n",
                slots, static_cast<long long>(read));
  }
}

TEST_F(RedisFrontierTest, AcknowledgesAFetchedUrlOnlyOnceItsRecordIsWritten) {
  std::unique_ptr<RedisFrontier> f = Worker("w1");
  ASSERT_NE(f, nullptr);
  auto client = RedisClient::Connect(redis_->endpoint(), {});
  ASSERT_TRUE(client.ok()) << client.status();
  auto keys = ClusterKeys::ForCrawl("site");
  // Entries left in every shard's stream: queued or not yet acknowledged.
  auto entries = [&] {
    int64_t n = 0;
    for (uint32_t s = 0; s < 12; ++s) {
      absl::StatusOr<RedisReply> len =
          (*client)->Command({"XLEN", keys->Queue(s)});
      n += len.ok() ? len->integer : 0;
    }
    return n;
  };
  ASSERT_TRUE(f->Add(PageUrl(0, 0), HostName(0), 0));
  ASSERT_TRUE(f->Add(PageUrl(1, 0), HostName(1), 0));
  EXPECT_EQ(entries(), 2);
  std::vector<std::string> fetched;
  absl::Time now = absl::Now();
  for (int i = 0; i < 200 && fetched.size() < 2; ++i, now += kDelay) {
    NextUrl next = f->Next(now);
    if (next.state != NextUrl::kReady) continue;
    fetched.push_back(next.url.url);
  }
  ASSERT_EQ(fetched.size(), 2u);
  // Fetched and finished, record not written: still in Redis.
  absl::StatusOr<UrlFate> fate =
      f->Done(fetched[0], FetchOutcome::Success(absl::Milliseconds(1)), now);
  ASSERT_TRUE(fate.ok()) << fate.status();
  EXPECT_EQ(entries(), 2);
  // Not fetched (e.g. robots.txt forbids it): no record comes, so it is
  // acknowledged at Done.
  fate = f->Done(fetched[1], FetchOutcome::NotFetched(), now);
  ASSERT_TRUE(fate.ok()) << fate.status();
  EXPECT_EQ(entries(), 1);
  EXPECT_EQ(f->RecordWritten(fetched[1]).code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(f->RecordWritten(fetched[0]).ok());
  EXPECT_EQ(entries(), 0);
  EXPECT_EQ(f->RecordWritten(fetched[0]).code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace sieve::cluster
