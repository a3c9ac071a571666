// What a Frontier checkpoint costs the crawl: wall time, RSS growth while it
// runs, and the longest time it keeps the Frontier's callers waiting.
//
//   checkpoint_bench [URLS] [HOSTS] [DIR]      (defaults: 10^7, 3, /tmp/...)
//
// Queues URLS URLs spread over HOSTS hosts with the crawl's default memory
// budgets (so most of them wait on disk), hands out a few, then checkpoints
// three times while:
//   - a sampler thread reads VmRSS every millisecond (peak minus the RSS
//     before the checkpoint = the growth the checkpoint causes);
//   - a prober thread calls stats() in a loop, which takes the Sieve's and the
//     Frontier's locks as Add, Next and Done do; its slowest call during the
//     checkpoint is the longest any caller waited for them.
// Prints one line per checkpoint and the medians. Only the Frontier's public
// calls are used, so the same file builds against older trees for a
// side-by-side run (docs/benchmarks.md).
//
// SIEVE_BENCH_SMOKE=1: 2*10^4 URLs, for the ctest smoke run.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/frontier/rss.h"
#include "frontier/frontier.h"

namespace {

namespace fs = std::filesystem;

using ::sieve::bench::RssBytes;

struct Figures {
  double seconds = 0;
  double rss_growth_mb = 0;
  double longest_wait_ms = 0;
  double disk_mb = 0;
};

uint64_t DirectoryBytes(const fs::path& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec)) total += e.file_size(ec);
  }
  return total;
}

Figures CheckpointOnce(sieve::Frontier& frontier, const fs::path& dir) {
  std::atomic<bool> running{true};
  std::atomic<uint64_t> peak_rss{RssBytes()};
  std::atomic<int64_t> longest_ns{0};
  const uint64_t before = peak_rss.load();
  std::thread sampler([&] {
    while (running.load()) {
      const uint64_t rss = RssBytes();
      if (rss > peak_rss.load()) peak_rss.store(rss);
      absl::SleepFor(absl::Milliseconds(1));
    }
  });
  std::thread prober([&] {
    while (running.load()) {
      const absl::Time start = absl::Now();
      (void)frontier.stats();
      const int64_t ns = absl::ToInt64Nanoseconds(absl::Now() - start);
      if (ns > longest_ns.load()) longest_ns.store(ns);
      absl::SleepFor(absl::Microseconds(200));
    }
  });
  absl::SleepFor(absl::Milliseconds(20));  // Both threads running.
  longest_ns.store(0);
  const absl::Time start = absl::Now();
  const bool ok = frontier.Checkpoint(dir).ok();
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  running.store(false);
  sampler.join();
  prober.join();
  if (!ok) {
    std::fprintf(stderr, "checkpoint failed\n");
    std::exit(1);
  }
  return Figures{
      .seconds = seconds,
      .rss_growth_mb = static_cast<double>(peak_rss.load() - before) / 1e6,
      .longest_wait_ms = static_cast<double>(longest_ns.load()) / 1e6,
      .disk_mb = static_cast<double>(DirectoryBytes(dir)) / 1e6};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = std::getenv("SIEVE_BENCH_SMOKE") != nullptr;
  const uint64_t urls = argc > 1 ? std::strtoull(argv[1], nullptr, 10)
                                 : (smoke ? 20'000 : 10'000'000);
  const uint64_t hosts = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 3;
  const fs::path dir =
      argc > 3 ? fs::path(argv[3])
               : fs::temp_directory_path() /
                     absl::StrCat("sieve-checkpoint-bench-", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir / "work");

  // The crawl's defaults (config/default.toml): 256 MiB of Sieve queue in
  // RAM, 64 MiB of host queues, a filter sized for the URLs at 1e-4.
  sieve::FrontierOptions options;
  options.sieve.expected_urls = std::max<uint64_t>(urls, 1000);
  options.sieve.fp_rate = 1e-4;
  options.sieve.memory_budget_bytes = size_t{256} << 20;
  options.sieve.work_dir = dir / "work";
  absl::StatusOr<std::unique_ptr<sieve::Frontier>> made =
      sieve::Frontier::Create(options);
  if (!made.ok()) {
    std::fprintf(stderr, "%s\n", made.status().ToString().c_str());
    return 1;
  }
  sieve::Frontier& frontier = **made;
  const absl::Time fill_start = absl::Now();
  for (uint64_t i = 0; i < urls; ++i) {
    const std::string host = absl::StrCat("host", i % hosts, ".example");
    frontier.Add(absl::StrCat("http://", host, "/section/", i / 1000, "/page-",
                              i, ".html"),
                 host, 1);
  }
  // A few URLs in flight, as in a crawl.
  const absl::Time now = absl::Now();
  for (uint64_t i = 0; i < hosts; ++i) (void)frontier.Next(now);
  std::printf("queued %llu URLs on %llu hosts in %.1f s; RSS %.0f MB\n",
              static_cast<unsigned long long>(urls),
              static_cast<unsigned long long>(hosts),
              absl::ToDoubleSeconds(absl::Now() - fill_start),
              static_cast<double>(RssBytes()) / 1e6);

  std::vector<double> seconds, growth, wait;
  for (int round = 0; round < 3; ++round) {
    const Figures f = CheckpointOnce(frontier, dir / "checkpoint");
    std::printf(
        "checkpoint %d: %.3f s, RSS +%.1f MB, longest wait %.1f ms, on disk "
        "%.0f MB\n",
        round + 1, f.seconds, f.rss_growth_mb, f.longest_wait_ms, f.disk_mb);
    seconds.push_back(f.seconds);
    growth.push_back(f.rss_growth_mb);
    wait.push_back(f.longest_wait_ms);
  }
  std::printf("median: %.3f s, RSS +%.1f MB, longest wait %.1f ms\n",
              Median(seconds), Median(growth), Median(wait));
  made->reset();
  fs::remove_all(dir);
  return 0;
}
