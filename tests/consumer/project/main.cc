// Compiles the public surface that issues 4, 5 and 6 promise, and the
// CrawlFrontier interface a crawl loop drives (issue 12), against the installed
// package, and checks that each call does what it says. Exit code 0
// means every check held.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fetch/fetcher.h"
#include "filter/blocked_bloom_filter.h"
#include "filter/bloom_filter.h"
#include "filter/counting_bloom_filter.h"
#include "filter/scalable_bloom_filter.h"
#include "frontier/cluster/redis_frontier.h"
#include "frontier/crawl_frontier.h"
#include "frontier/frontier.h"
#include "frontier/sieve.h"
#include "frontier/snapshot.h"
#include "parse/link_extractor.h"
#include "parse/robots.h"
#include "parse/url.h"

namespace {

int failures = 0;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "consumer: FAILED %s\n", what);
    ++failures;
  }
}

void UseFilter() {
  sieve::BloomFilter f = sieve::BloomFilter::ForCapacity(1'000'000, 0.01);
  bool fresh = f.Add("http://a/");
  Check(fresh, "BloomFilter::Add returns true the first time");
  Check(!f.Add("http://a/"), "BloomFilter::Add returns false after");
  bool maybe = f.MayContain("http://a/");
  Check(maybe, "BloomFilter::MayContain finds an added key");
  double n = f.EstimatedCount();
  Check(n > 0.5 && n < 1.5, "EstimatedCount is about 1");
  uint64_t m = f.bit_count();
  uint32_t k = f.hash_count();
  uint64_t cap = f.capacity();
  Check(m > 9'000'000 && k == 7 && cap == 1'000'000,
        "sizing of 10^6 keys at 1 %");
  f.OnCapacityExceeded([](const sieve::CapacityEvent& e) {
    (void)e.estimated_count;
    (void)e.capacity;
    (void)e.estimated_fp_rate;
  });
  std::string bytes = f.Serialize();
  absl::StatusOr<sieve::BloomFilter> g = sieve::BloomFilter::Deserialize(bytes);
  Check(g.ok() && g->MayContain("http://a/"), "Deserialize round trip");
  absl::Status s = f.UnionWith(*g);
  Check(s.ok(), "UnionWith of identical shapes");
  std::vector<std::string_view> keys = {"http://a/", "http://b/"};
  std::unique_ptr<bool[]> out(new bool[keys.size()]);
  f.MayContainMany(std::span<const std::string_view>(keys),
                   std::span<bool>(out.get(), keys.size()));
  Check(out[0], "MayContainMany finds an added key");
  f.AddMany(std::span<const std::string_view>(keys),
            std::span<bool>(out.get(), keys.size()));
  Check(!out[0] && out[1], "AddMany reports which keys were fresh");

  sieve::BlockedBloomFilter blocked =
      sieve::BlockedBloomFilter::ForCapacity(1000, 0.01);
  sieve::CountingBloomFilter counting =
      sieve::CountingBloomFilter::ForCapacity(1000, 0.01);
  sieve::ScalableBloomFilter scalable =
      sieve::ScalableBloomFilter::ForCapacity(1000, 0.01);
  Check(blocked.Add("x") && counting.Add("x") && scalable.Add("x"),
        "every kind adds");
  counting.Remove("x");
  Check(!counting.MayContain("x"), "CountingBloomFilter::Remove");
}

void UseFrontier() {
  sieve::Sieve s(
      sieve::SieveOptions{.expected_urls = 1'000'000, .fp_rate = 0.01});
  bool queued = s.Push("http://a/");
  Check(queued && !s.Push("http://a/"), "Sieve drops a URL it has seen");
  size_t n = s.size();
  Check(n == 1, "Sieve::size");
  std::optional<std::string> next = s.Pop();
  Check(next == "http://a/", "Sieve::Pop returns the oldest URL");
  s.OnCapacityExceeded([](const sieve::CapacityEvent& e) { (void)e; });
}

// A crawl-like loop that knows only the CrawlFrontier interface: a fake
// "server" answers 429 for one URL and 200 for the others, with a clock that
// jumps to whenever the frontier says a host is next allowed.
std::map<std::string, int> CrawlThrough(sieve::CrawlFrontier& frontier) {
  std::map<std::string, int> requests;
  absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  for (int guard = 0; guard < 1000; ++guard) {
    sieve::NextUrl next = frontier.Next(now);
    if (next.state == sieve::NextUrl::kEmpty) break;
    if (next.state == sieve::NextUrl::kWait) {
      now += next.wait;
      continue;
    }
    if (next.state != sieve::NextUrl::kReady) break;  // Nothing else in flight.
    const std::string& url = next.url.url;
    ++requests[url];
    now += absl::Milliseconds(50);  // The fetch.
    const bool busy = url == "http://a.example/busy";
    absl::StatusOr<sieve::UrlFate> fate = frontier.Done(
        url,
        busy ? sieve::FetchOutcome::Throttled()
             : sieve::FetchOutcome::Success(absl::Milliseconds(50)),
        now);
    Check(fate.ok(), "CrawlFrontier::Done of a URL in flight");
    if (!busy && url == "http://a.example/") {
      // "Parsing" the seed finds two links.
      frontier.Add("http://a.example/busy", "a.example", 1);
      frontier.Add("http://a.example/ok", "a.example", 1);
    }
  }
  return requests;
}

void UseCrawlFrontier() {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "sieve-consumer-frontier";
  fs::remove_all(dir);
  absl::StatusOr<std::unique_ptr<sieve::Frontier>> made =
      sieve::Frontier::Create(
          {.sieve = {.expected_urls = 1000, .work_dir = dir / "work"},
           .politeness = {.min_delay = absl::Seconds(1),
                          .max_throttle_retries = 2}});
  Check(made.ok(), "Frontier::Create");
  if (!made.ok()) return;
  sieve::CrawlFrontier& frontier = **made;
  Check(frontier.Add("http://a.example/", "a.example", 0), "Add a seed");
  std::map<std::string, int> requests = CrawlThrough(frontier);
  Check(requests["http://a.example/busy"] == 3,
        "a throttled URL is requested max_throttle_retries + 1 times");
  Check(requests["http://a.example/ok"] == 1 &&
            requests["http://a.example/"] == 1,
        "every other URL once");
  Check(frontier.stats().given_up == 1, "the throttled URL is given up");

  // A checkpoint through the interface, restored by the implementation.
  frontier.Add("http://b.example/later", "b.example", 0);
  absl::StatusOr<sieve::SnapshotWriter> snapshot =
      sieve::SnapshotWriter::Begin(dir / "checkpoint");
  Check(snapshot.ok() && frontier.Checkpoint(*snapshot).ok() &&
            snapshot->Commit().ok(),
        "CrawlFrontier::Checkpoint into a committed snapshot");
  absl::StatusOr<sieve::SnapshotReader> reader =
      sieve::SnapshotReader::Open(dir / "checkpoint");
  Check(reader.ok(), "SnapshotReader::Open verifies the snapshot");
  if (!reader.ok()) return;
  absl::StatusOr<std::unique_ptr<sieve::Frontier>> restored =
      sieve::Frontier::Restore(*reader, {.sieve = {.work_dir = dir / "work"}});
  Check(restored.ok() && (*restored)->stats().queued == 1,
        "the restored frontier holds the queued URL");
  fs::remove_all(dir);
}

void UseParse() {
  absl::StatusOr<std::string> u =
      sieve::ResolveUrl("http://a/b/c/d;p?q", "../g");
  Check(u.ok() && *u == "http://a/b/g", "ResolveUrl");
  absl::StatusOr<std::string> v =
      sieve::NormalizeUrl("HTTP://Example.COM:80/a/../b");
  Check(v.ok() && *v == "http://example.com/b", "NormalizeUrl");
  std::string html_bytes = "<a href='x' rel='nofollow noopener'>x</a>";
  sieve::ExtractedLinks page = sieve::ExtractLinks(html_bytes, "http://a/b/",
                                                   "text/html; charset=utf-8");
  Check(page.links.size() == 1, "ExtractLinks finds the link");
  for (const sieve::Link& l : page.links) {
    Check(l.url == "http://a/b/x" && l.nofollow, "Link url and nofollow");
    (void)l.kind;
    (void)l.rel;
  }
  bool follow = !page.nofollow, index = !page.noindex;
  Check(follow && index, "page-level robots meta");
  sieve::RobotsTxt robots = sieve::RobotsTxt::Parse(
      "User-agent: *\nDisallow: /private\nCrawl-delay: 2\n");
  bool allowed = robots.IsAllowed("SieveBot/1.0", "/private/x?y");
  Check(!allowed, "RobotsTxt::IsAllowed");
  std::optional<double> delay = robots.CrawlDelay("SieveBot/1.0");
  Check(delay == 2.0, "RobotsTxt::CrawlDelay");
}

void UseFetch() {
  absl::StatusOr<std::unique_ptr<sieve::Fetcher>> fetcher =
      sieve::Fetcher::Create({});
  Check(fetcher.ok() && (*fetcher)->in_flight() == 0,
        "a new Fetcher has nothing in flight");
}

// The frontier shared through Redis links and its options parse; no Redis is
// needed for that (connecting is tested in tests/cluster).
void UseCluster() {
  auto at = sieve::cluster::ParseRedisUrl("redis://127.0.0.1:6379/2");
  Check(at.ok() && at->db == 2, "cluster::ParseRedisUrl reads the database");
  sieve::cluster::RedisFrontierOptions options;
  options.worker_id = "";
  auto frontier = sieve::cluster::RedisFrontier::Create(options);
  Check(!frontier.ok(), "cluster::RedisFrontier::Create refuses an empty id");
}

}  // namespace

int main() {
  UseCluster();
  UseFilter();
  UseFrontier();
  UseCrawlFrontier();
  UseParse();
  UseFetch();
  if (failures == 0) std::printf("consumer: every check held\n");
  return failures == 0 ? 0 : 1;
}
