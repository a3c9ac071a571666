// The RAM a crawl of very many hosts costs the Frontier's per-host state.
//
//   many_hosts_bench [HOSTS] [MODE] [DIR]     (defaults: 10^6, all, /tmp/...)
//
// Feeds 2 URLs of each of HOSTS hosts (h<i>.example) to a Frontier with the
// crawl's default memory budgets (the Sieve spills to DIR), then drains it:
// Next and Done(success) for every URL, on a fake clock with no politeness
// delay, so every host goes idle. Prints RSS (VmRSS) and heap in use (glibc
// mallinfo2) before, after the adds and after the drain, and how many hosts
// the Frontier still holds state for.
// MODE picks what each host leaves behind once idle:
//   - plain: nothing (the host is forgotten);
//   - page_cap: a page count (max_urls_per_host = 100, as
//     crawl.max_pages_per_host sets it);
//   - crawl_delay: a robots.txt Crawl-delay of 1 s (SetCrawlDelay as the
//     host's first URL is handed out, when the crawler reads robots.txt);
//   - all: the three above, one after the other (one process each).
// The per-host figure is (heap after the drain - heap of the empty Frontier) /
// HOSTS: what the idle hosts keep. docs/benchmarks.md has the figures and the command.
//
// SIEVE_BENCH_SMOKE=1: 10^4 hosts, for the ctest smoke run.
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/frontier/rss.h"
#include "frontier/frontier.h"

namespace {

namespace fs = std::filesystem;

using ::sieve::bench::RssBytes;

// Heap bytes in use (glibc's mallinfo2): RSS keeps pages that free() gave back
// to malloc but not to the kernel, so it cannot show state that was released.
uint64_t HeapBytes() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;  // Small chunks, and mmapped ones.
}

double Mb(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

int Run(uint64_t hosts, const std::string& mode, const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  sieve::FrontierOptions options;
  options.sieve.expected_urls = 4 * hosts;
  options.sieve.fp_rate = 1e-4;
  options.sieve.work_dir = dir;
  options.politeness.min_delay = absl::ZeroDuration();
  if (mode == "page_cap") options.max_urls_per_host = 100;
  const uint64_t rss_start = RssBytes();
  const uint64_t heap_start = HeapBytes();
  absl::StatusOr<std::unique_ptr<sieve::Frontier>> created =
      sieve::Frontier::Create(options);
  if (!created.ok()) {
    std::fprintf(stderr, "%s\n", created.status().ToString().c_str());
    return 1;
  }
  sieve::Frontier& frontier = **created;
  const uint64_t rss_empty = RssBytes();
  const uint64_t heap_empty = HeapBytes();
  const absl::Time wall = absl::Now();
  for (uint64_t i = 0; i < hosts; ++i) {
    const std::string host = absl::StrCat("h", i, ".example");
    for (int page = 0; page < 2; ++page) {
      (void)frontier.Add(absl::StrCat("http://", host, "/p", page), host, 0);
    }
  }
  const uint64_t rss_added = RssBytes();
  const uint64_t heap_added = HeapBytes();
  // Drain on a fake clock: every URL fetched at once, each host's delay (the
  // Crawl-delay in crawl_delay mode) waited out by moving the clock.
  absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  uint64_t fetched = 0;
  while (true) {
    sieve::NextUrl next = frontier.Next(now);
    if (next.state == sieve::NextUrl::kEmpty) break;
    if (next.state == sieve::NextUrl::kWait) {
      now += next.wait;
      continue;
    }
    if (next.state != sieve::NextUrl::kReady) {
      std::fprintf(stderr, "unexpected state %d\n", next.state);
      return 1;
    }
    // The crawler learns a Crawl-delay when the host's robots.txt comes in,
    // before its first page.
    if (mode == "crawl_delay" && next.url.url.ends_with("/p0")) {
      frontier.SetCrawlDelay(next.url.host, absl::Seconds(1));
    }
    if (!frontier
             .Done(next.url.url,
                   sieve::FetchOutcome::Success(absl::Milliseconds(1)), now)
             .ok()) {
      return 1;
    }
    ++fetched;
  }
  // Idle hosts are forgotten as Next passes their ready time.
  now += absl::Seconds(10);
  (void)frontier.Next(now);
  const uint64_t rss_drained = RssBytes();
  const uint64_t heap_drained = HeapBytes();
  const sieve::FrontierStats stats = frontier.stats();
  std::printf(
      "%-11s hosts %llu, fetched %llu, hosts_known %llu, %.1f s\n"
      "  RSS MB:  start %.1f, frontier %.1f, added %.1f, drained %.1f\n"
      "  heap MB: start %.1f, frontier %.1f, added %.1f, drained %.1f"
      "  -> idle hosts keep %.0f B/host\n",
      mode.c_str(), static_cast<unsigned long long>(hosts),
      static_cast<unsigned long long>(fetched),
      static_cast<unsigned long long>(stats.hosts_known),
      absl::ToDoubleSeconds(absl::Now() - wall), Mb(rss_start), Mb(rss_empty),
      Mb(rss_added), Mb(rss_drained), Mb(heap_start), Mb(heap_empty),
      Mb(heap_added), Mb(heap_drained),
      (static_cast<double>(heap_drained) - static_cast<double>(heap_empty)) /
          static_cast<double>(hosts));
  std::fflush(stdout);  // The child leaves through _exit.
  fs::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = std::getenv("SIEVE_BENCH_SMOKE") != nullptr;
  const uint64_t hosts = argc > 1 ? std::strtoull(argv[1], nullptr, 10)
                                  : (smoke ? 10'000 : 1'000'000);
  const std::string mode = argc > 2 ? argv[2] : "all";
  const fs::path dir = argc > 3
                           ? fs::path(argv[3])
                           : fs::temp_directory_path() /
                                 absl::StrCat("sieve-many-hosts-", getpid());
  if (mode != "all") return Run(hosts, mode, dir);
  // One process per mode, so each starts from a fresh heap.
  for (const char* m : {"plain", "page_cap", "crawl_delay"}) {
    const pid_t child = fork();
    if (child == 0) _exit(Run(hosts, m, dir));
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  }
  return 0;
}
