// The same per-host rules, run against the three CrawlFrontiers
// (frontier/crawl_frontier.h): the local Frontier, GrpcFrontier against an
// in-process URLFrontier server on 127.0.0.1, and RedisFrontier against a
// redis-server started on loopback (skipped with a message when it is not
// installed). The remote two wrap a local Frontier, so one enforcer holds for
// all: these tests say so.
//
// The crawl loop is the test's, one fetch at a time, on a clock of its own
// (`now` starts at absl::Now() and moves by the waits Next asks for and the
// fetches' response times), so delays of seconds cost no real time.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontier/cluster/redis_frontier.h"
#include "frontier/frontier.h"
#include "frontier/service/frontier_server.h"
#include "frontier/service/grpc_frontier.h"
#include "gtest/gtest.h"
#include "tests/cluster/redis_server.h"
#include "tests/common/temp_dir.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

// What every implementation is given.
struct Rules {
  PolitenessOptions politeness{};
  uint64_t max_urls_per_host = 0;
};

// One frontier and whatever it runs against.
class Harness {
 public:
  virtual ~Harness() = default;
  virtual CrawlFrontier& frontier() = 0;
};

fs::path ScratchDir(const std::string& kind) {
  return test::FreshDir(absl::StrCat(kind, "-", test::CurrentTestName()));
}

class LocalHarness : public Harness {
 public:
  explicit LocalHarness(const Rules& rules) : dir_(ScratchDir("local")) {
    FrontierOptions o;
    o.sieve.work_dir = dir_;
    o.sieve.expected_urls = 10'000;
    o.politeness = rules.politeness;
    o.max_urls_per_host = rules.max_urls_per_host;
    absl::StatusOr<std::unique_ptr<Frontier>> f = Frontier::Create(o);
    EXPECT_TRUE(f.ok()) << f.status();
    if (f.ok()) frontier_ = *std::move(f);
  }
  ~LocalHarness() override {
    frontier_.reset();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  CrawlFrontier& frontier() override { return *frontier_; }

 private:
  fs::path dir_;
  std::unique_ptr<Frontier> frontier_;
};

class GrpcHarness : public Harness {
 public:
  explicit GrpcHarness(const Rules& rules) : dir_(ScratchDir("grpc")) {
    // The server adds no delay of its own: the rules are the client's.
    absl::StatusOr<std::unique_ptr<service::FrontierServer>> server =
        service::FrontierServer::Start({.listen = "127.0.0.1:0",
                                        .core = {.data_dir = dir_,
                                                 .expected_urls = 10'000,
                                                 .default_queue_delay = 0}});
    EXPECT_TRUE(server.ok()) << server.status();
    if (!server.ok()) return;
    server_ = *std::move(server);
    service::GrpcFrontierOptions o;
    o.target = absl::StrCat("127.0.0.1:", server_->port());
    o.crawl_id = "conformance";
    o.politeness = rules.politeness;
    o.max_urls_per_host = rules.max_urls_per_host;
    absl::StatusOr<std::unique_ptr<service::GrpcFrontier>> f =
        service::GrpcFrontier::Create(std::move(o));
    EXPECT_TRUE(f.ok()) << f.status();
    if (f.ok()) frontier_ = *std::move(f);
  }
  ~GrpcHarness() override {
    frontier_.reset();
    server_.reset();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  CrawlFrontier& frontier() override { return *frontier_; }

 private:
  fs::path dir_;
  std::unique_ptr<service::FrontierServer> server_;
  std::unique_ptr<service::GrpcFrontier> frontier_;
};

class RedisHarness : public Harness {
 public:
  explicit RedisHarness(const Rules& rules) : dir_(ScratchDir("redis")) {
    absl::StatusOr<std::unique_ptr<testing::RedisServer>> redis =
        testing::RedisServer::Start();
    EXPECT_TRUE(redis.ok()) << redis.status();
    if (!redis.ok()) return;
    redis_ = *std::move(redis);
    cluster::RedisFrontierOptions o;
    o.endpoint = redis_->endpoint();
    o.crawl_id = "conformance";
    o.worker_id = "w0";
    o.shards = 4;
    o.filter = {.expected_urls = 10'000, .fp_rate = 0.001};
    o.politeness = rules.politeness;
    o.max_urls_per_host = rules.max_urls_per_host;
    o.ack_after_record = true;
    o.work_dir = dir_;
    absl::StatusOr<std::unique_ptr<cluster::RedisFrontier>> f =
        cluster::RedisFrontier::Create(std::move(o));
    EXPECT_TRUE(f.ok()) << f.status();
    if (f.ok()) frontier_ = *std::move(f);
  }
  ~RedisHarness() override {
    frontier_.reset();
    redis_.reset();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  CrawlFrontier& frontier() override { return *frontier_; }

 private:
  fs::path dir_;
  std::unique_ptr<testing::RedisServer> redis_;
  std::unique_ptr<cluster::RedisFrontier> frontier_;
};

enum class Kind { kLocal, kGrpc, kRedis };

std::string KindName(const ::testing::TestParamInfo<Kind>& info) {
  switch (info.param) {
    case Kind::kLocal:
      return "Frontier";
    case Kind::kGrpc:
      return "GrpcFrontier";
    case Kind::kRedis:
      return "RedisFrontier";
  }
  return "?";
}

// One request the loop made (or, for an unreachable host's URL, did not).
struct Fetch {
  std::string url;
  absl::Time start;
  absl::Time end;
  bool requested = true;  // False: handed out as unreachable.
};

struct CrawlLog {
  std::vector<Fetch> fetches;
  std::map<std::string, UrlFate> fates;  // The last fate of each URL.
  bool finished = false;

  std::vector<std::string> Requested() const {
    std::vector<std::string> out;
    for (const Fetch& f : fetches)
      if (f.requested) out.push_back(f.url);
    return out;
  }
  int Requests(const std::string& url) const {
    int n = 0;
    for (const Fetch& f : fetches) n += f.requested && f.url == url;
    return n;
  }
};

// How the server answers the `attempt`-th request of `url`.
using Answer = std::function<FetchOutcome(const std::string& url, int attempt)>;

std::string Url(const std::string& host, int page) {
  return absl::StrCat("http://", host, "/", page);
}

class PolitenessConformanceTest : public ::testing::TestWithParam<Kind> {
 protected:
  void SetUp() override {
    if (GetParam() == Kind::kRedis) SIEVE_SKIP_WITHOUT_REDIS();
  }

  // The base rules of every test: a 1 s delay, one request per host at a
  // time, no jitter.
  static Rules BaseRules() {
    Rules r;
    r.politeness.min_delay = absl::Seconds(1);
    r.politeness.max_in_flight_per_host = 1;
    r.politeness.backoff_base = absl::Seconds(5);
    r.politeness.backoff_jitter = 0;
    r.politeness.max_throttle_retries = 2;
    r.politeness.max_error_retries = 1;
    return r;
  }

  CrawlFrontier& Make(const Rules& rules) {
    switch (GetParam()) {
      case Kind::kLocal:
        harness_ = std::make_unique<LocalHarness>(rules);
        break;
      case Kind::kGrpc:
        harness_ = std::make_unique<GrpcHarness>(rules);
        break;
      case Kind::kRedis:
        harness_ = std::make_unique<RedisHarness>(rules);
        break;
    }
    return harness_->frontier();
  }

  // Crawls, one fetch at a time, until Next says the crawl is finished (or
  // 2,000 steps or an hour of the test's clock pass). Each request takes
  // `response_time`; `on_first(host)` runs when a host is handed out the
  // first time (where a crawler reads robots.txt).
  CrawlLog Crawl(
      CrawlFrontier& f, const Answer& answer,
      absl::Duration response_time = absl::Milliseconds(100),
      const std::function<void(const std::string&)>& on_first = nullptr) {
    CrawlLog log;
    const absl::Time start = absl::Now();
    absl::Time now = start;
    std::map<std::string, int> attempts;
    std::map<std::string, bool> seen_host;
    for (int step = 0; step < 2000 && now - start < absl::Hours(1); ++step) {
      NextUrl next = f.Next(now);
      if (next.state == NextUrl::kEmpty) {
        log.finished = true;
        break;
      }
      if (next.state != NextUrl::kReady) {
        now += next.state == NextUrl::kWait
                   ? std::max(next.wait, absl::Milliseconds(1))
                   : absl::Milliseconds(10);
        continue;
      }
      const std::string url = next.url.url;
      if (!seen_host[next.url.host]) {
        seen_host[next.url.host] = true;
        if (on_first) on_first(next.url.host);
      }
      Fetch fetch{.url = url, .start = now, .end = now};
      FetchOutcome outcome = FetchOutcome::NotFetched();
      if (next.url.unreachable()) {
        fetch.requested = false;
      } else {
        outcome = answer(url, ++attempts[url]);
        fetch.end = now + response_time;
        if (outcome.kind == FetchOutcome::kSuccess)
          outcome.response_time = response_time;
      }
      log.fetches.push_back(fetch);
      now = fetch.end;
      absl::StatusOr<UrlFate> fate = f.Done(url, outcome, now);
      EXPECT_TRUE(fate.ok()) << url << ": " << fate.status();
      if (!fate.ok()) break;
      log.fates[url] = *fate;
      if (*fate != UrlFate::kRetryLater && fetch.requested) {
        absl::Status written = f.RecordWritten(url);
        EXPECT_TRUE(written.ok()) << written;
      }
    }
    return log;
  }

  static FetchOutcome Ok(const std::string&, int) {
    return FetchOutcome::Success(absl::ZeroDuration());
  }

  // Seconds between the end of each request to `host` and the start of the
  // next one.
  static std::vector<absl::Duration> Gaps(const CrawlLog& log,
                                          const std::string& host) {
    std::vector<absl::Duration> gaps;
    const Fetch* last = nullptr;
    for (const Fetch& f : log.fetches) {
      if (!f.url.starts_with(absl::StrCat("http://", host, "/"))) continue;
      if (last != nullptr) gaps.push_back(f.start - last->end);
      last = &f;
    }
    return gaps;
  }

  std::unique_ptr<Harness> harness_;
};

TEST_P(PolitenessConformanceTest, TwoRequestsToOneHostAreADelayApart) {
  // 1 s apart at least; with an adaptive delay of 10x a response of 300 ms,
  // 3 s; with a Crawl-delay of 4 s, 4 s.
  Rules rules = BaseRules();
  rules.politeness.adaptive_delay_multiple = 10;
  CrawlFrontier& f = Make(rules);
  for (int p = 1; p <= 3; ++p) {
    ASSERT_TRUE(f.Add(Url("a.test", p), "a.test", 0));
    ASSERT_TRUE(f.Add(Url("b.test", p), "b.test", 0));
  }
  CrawlLog log =
      Crawl(f, Ok, absl::Milliseconds(300), [&](const std::string& host) {
        if (host == "b.test") f.SetCrawlDelay(host, absl::Seconds(4));
      });
  EXPECT_TRUE(log.finished);
  EXPECT_EQ(log.Requested().size(), 6u);
  std::vector<absl::Duration> a = Gaps(log, "a.test");
  std::vector<absl::Duration> b = Gaps(log, "b.test");
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  for (absl::Duration gap : a) EXPECT_GE(gap, absl::Seconds(3));
  for (absl::Duration gap : b) EXPECT_GE(gap, absl::Seconds(4));
}

TEST_P(PolitenessConformanceTest, FetchesAtMostMaxPagesOfAHost) {
  Rules rules = BaseRules();
  rules.politeness.min_delay = absl::ZeroDuration();
  rules.max_urls_per_host = 2;
  CrawlFrontier& f = Make(rules);
  for (int p = 1; p <= 5; ++p) f.Add(Url("a.test", p), "a.test", 0);
  f.Add(Url("b.test", 1), "b.test", 0);
  CrawlLog log = Crawl(f, Ok);
  EXPECT_TRUE(log.finished) << "the host's other URLs are left";
  int a = 0;
  for (const std::string& url : log.Requested())
    a += url.starts_with("http://a.test/");
  EXPECT_EQ(a, 2);
  EXPECT_EQ(log.Requests(Url("b.test", 1)), 1);
  // A URL of a host past its cap, found later, is refused.
  EXPECT_FALSE(f.Add(Url("a.test", 9), "a.test", 1, "found on /8"));
  // One fetched before is a duplicate, not a discard.
  EXPECT_FALSE(f.Add(Url("a.test", 1), "a.test", 1));
  // Every URL the cap discarded comes back once for its skipped record, with
  // what it was queued with: the three queued at the cap and the refused one.
  std::map<std::string, std::string> discarded;  // URL -> metadata
  for (const FrontierUrl& url : f.TakeDiscarded()) {
    EXPECT_TRUE(discarded.emplace(url.url, url.metadata).second) << url.url;
    EXPECT_EQ(url.host, "a.test");
  }
  EXPECT_EQ(discarded, (std::map<std::string, std::string>{
                           {Url("a.test", 3), ""},
                           {Url("a.test", 4), ""},
                           {Url("a.test", 5), ""},
                           {Url("a.test", 9), "found on /8"}}));
  EXPECT_TRUE(f.TakeDiscarded().empty()) << "taken once";
}

TEST_P(PolitenessConformanceTest, ARetriedErrorGoesBehindItsHostsFreshUrls) {
  CrawlFrontier& f = Make(BaseRules());
  for (int p = 1; p <= 3; ++p) f.Add(Url("a.test", p), "a.test", 0);
  CrawlLog log = Crawl(f, [](const std::string& url, int attempt) {
    if (url == Url("a.test", 1) && attempt == 1)
      return FetchOutcome::Error(/*transient=*/true);
    return FetchOutcome::Success(absl::ZeroDuration());
  });
  EXPECT_TRUE(log.finished);
  EXPECT_EQ(log.Requested(),
            (std::vector<std::string>{Url("a.test", 1), Url("a.test", 2),
                                      Url("a.test", 3), Url("a.test", 1)}));
  EXPECT_EQ(log.fates[Url("a.test", 1)], UrlFate::kFinished);
  // The error backed the host off (backoff_base) before its next request.
  ASSERT_GE(log.fetches.size(), 2u);
  EXPECT_GE(log.fetches[1].start - log.fetches[0].end, absl::Seconds(5));
}

TEST_P(PolitenessConformanceTest, AHostIsNeverStuckBehindOneBadUrl) {
  // a.test/1 answers 429 every time: it is tried max_throttle_retries + 1
  // times, behind the host's other URLs, then given up.
  CrawlFrontier& f = Make(BaseRules());
  for (int p = 1; p <= 3; ++p) f.Add(Url("a.test", p), "a.test", 0);
  CrawlLog log = Crawl(f, [](const std::string& url, int) {
    if (url == Url("a.test", 1)) return FetchOutcome::Throttled();
    return FetchOutcome::Success(absl::ZeroDuration());
  });
  EXPECT_TRUE(log.finished);
  EXPECT_EQ(log.Requested(),
            (std::vector<std::string>{Url("a.test", 1), Url("a.test", 2),
                                      Url("a.test", 3), Url("a.test", 1),
                                      Url("a.test", 1)}));
  EXPECT_EQ(log.fates[Url("a.test", 1)], UrlFate::kGivenUp);
}

TEST_P(PolitenessConformanceTest, AnUnreachableHostsUrlsGoOutUnfetched) {
  // Two failed connections in a row (unreachable_after): the host's other
  // URLs are handed out marked unreachable, with no request.
  Rules rules = BaseRules();
  rules.politeness.unreachable_after = 2;
  CrawlFrontier& f = Make(rules);
  for (int p = 1; p <= 4; ++p) f.Add(Url("a.test", p), "a.test", 0);
  CrawlLog log = Crawl(f, [](const std::string&, int) {
    return FetchOutcome::ConnectionFailed(/*transient=*/true, "connect",
                                          "Connection refused");
  });
  EXPECT_TRUE(log.finished);
  EXPECT_EQ(log.Requested().size(), 2u);
  EXPECT_EQ(log.fetches.size(), 5u) << "a.test/1 retried once, unfetched";
}

INSTANTIATE_TEST_SUITE_P(AllFrontiers, PolitenessConformanceTest,
                         ::testing::Values(Kind::kLocal, Kind::kGrpc,
                                           Kind::kRedis),
                         KindName);

}  // namespace
}  // namespace sieve
