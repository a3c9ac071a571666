// Sieve push/pop throughput and bytes per queued URL, in memory and spilled
// to disk, beside the naive exact Sieve (std::unordered_set<std::string> +
// std::deque<std::string>, the seed article's first version), on the same
// stream of 10^7 URL pushes (20 % repeats).
//
// Each benchmark runs once (the stream is the workload): push the whole
// stream, then pop every queued URL. Counters:
//   push_per_s, pop_per_s  URLs per second of each phase
//   rss_B_per_url          RSS growth after the pushes / URLs queued
//   disk_B_per_url         Sieve: bytes of its RocksDB store / URLs queued
//   filter_B_per_url       Sieve: filter bytes / URLs queued
//   queued, lost           URLs queued; distinct URLs never queued (false
//                          positives of the filter)
//   fp_caught              lossless mode: false positives the store caught
// SIEVE_BENCH_SMOKE=1: a 2*10^4 stream, so ctest's smoke run takes a second.
// SIEVE_BENCH_URLS=<n>: a stream of n pushes instead of 10^7.
#include <malloc.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "bench/frontier/rss.h"
#include "benchmark/benchmark.h"
#include "frontier/sieve.h"

namespace {

bool Smoke() { return std::getenv("SIEVE_BENCH_SMOKE") != nullptr; }
// SIEVE_BENCH_URLS=<n> overrides the stream length (e.g. a shorter run of the
// lossless rows on a loaded machine).
uint64_t StreamLength() {
  if (Smoke()) return 20'000;
  if (const char* n = std::getenv("SIEVE_BENCH_URLS"))
    return std::strtoull(n, nullptr, 10);
  return 10'000'000;
}

uint64_t Mix(uint64_t x) {  // SplitMix64 finaliser.
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Push i of the stream: a repeat of an earlier push one time in five, else a
// new URL. About 70 bytes each, like real article URLs. Writes into `buffer`,
// returns a view of it.
std::string_view UrlAt(uint64_t i, char (&buffer)[128]) {
  const uint64_t r = Mix(i);
  const uint64_t id = (r % 5 == 0 && i > 0) ? (r >> 8) % i : i;
  const int n = std::snprintf(
      buffer, sizeof buffer,
      "https://www.host%05llu.example.com/news/2026/article-%010llu.html",
      static_cast<unsigned long long>(Mix(id) % 50'000),
      static_cast<unsigned long long>(id));
  return std::string_view(buffer, static_cast<size_t>(n));
}

// Distinct URLs in the stream (for the lost count): ids that were pushed as
// new.
uint64_t DistinctInStream(uint64_t length) {
  // Id i is new at push i unless push i is a repeat; a repeat's id is < i and
  // was new before unless it was itself never pushed as new (then it is new
  // now). Count exactly with a bitmap.
  std::vector<bool> seen(length);
  uint64_t distinct = 0;
  for (uint64_t i = 0; i < length; ++i) {
    const uint64_t r = Mix(i);
    const uint64_t id = (r % 5 == 0 && i > 0) ? (r >> 8) % i : i;
    if (!seen[id]) {
      seen[id] = true;
      ++distinct;
    }
  }
  return distinct;
}

using ::sieve::bench::RssBytes;

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

void Report(benchmark::State& state, uint64_t length, uint64_t queued,
            double push_s, double pop_s, uint64_t rss_growth,
            uint64_t disk_bytes) {
  state.SetIterationTime(push_s + pop_s);
  state.counters["push_per_s"] = static_cast<double>(length) / push_s;
  state.counters["pop_per_s"] = static_cast<double>(queued) / pop_s;
  state.counters["rss_B_per_url"] =
      static_cast<double>(rss_growth) / static_cast<double>(queued);
  state.counters["disk_B_per_url"] =
      static_cast<double>(disk_bytes) / static_cast<double>(queued);
  state.counters["queued"] = static_cast<double>(queued);
  state.counters["lost"] =
      static_cast<double>(DistinctInStream(length) - queued);
}

struct Mode {
  bool spilled;
  bool verify_positives;
};

// Spilled: 16 MiB of queue in RAM (64 KiB in the smoke run, so it spills too);
// else no limit.
size_t BudgetFor(Mode mode) {
  if (!mode.spilled) return size_t{1} << 40;
  return Smoke() ? size_t{64} << 10 : size_t{16} << 20;
}

void BM_Sieve(benchmark::State& state, Mode mode) {
  const uint64_t length = StreamLength();
  const std::filesystem::path work =
      std::filesystem::temp_directory_path() / "sieve_bench_frontier";
  for (auto _ : state) {
    malloc_trim(0);
    const uint64_t rss_before = RssBytes();
    sieve::Sieve s(
        sieve::SieveOptions{.expected_urls = length,
                            .fp_rate = 0.01,
                            .memory_budget_bytes = BudgetFor(mode),
                            .verify_positives = mode.verify_positives,
                            .work_dir = work});
    char buffer[128];
    auto start = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < length; ++i) s.Push(UrlAt(i, buffer));
    const double push_s = SecondsSince(start);
    const uint64_t rss_growth = RssBytes() - rss_before;
    const sieve::SieveStats stats = s.stats();
    start = std::chrono::steady_clock::now();
    uint64_t popped = 0;
    while (std::optional<std::string> url = s.Pop()) {
      benchmark::DoNotOptimize(url->data());
      ++popped;
    }
    const double pop_s = SecondsSince(start);
    if (popped != stats.queued)
      state.SkipWithError("popped count differs from queued");
    Report(state, length, stats.queued, push_s, pop_s, rss_growth,
           stats.store_bytes_on_disk);
    state.counters["filter_B_per_url"] =
        static_cast<double>(stats.filter_bytes) /
        static_cast<double>(stats.queued);
    state.counters["fp_caught"] =
        static_cast<double>(stats.false_positives_caught);
  }
}

// The seed article's first version: exact, and every string twice in RAM (set
// and queue).
void BM_NaiveExactSieve(benchmark::State& state) {
  const uint64_t length = StreamLength();
  for (auto _ : state) {
    malloc_trim(0);
    const uint64_t rss_before = RssBytes();
    std::unordered_set<std::string> seen;
    std::deque<std::string> queue;
    char buffer[128];
    auto start = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < length; ++i) {
      std::string url(UrlAt(i, buffer));
      if (seen.insert(url).second) queue.push_back(std::move(url));
    }
    const double push_s = SecondsSince(start);
    const uint64_t rss_growth = RssBytes() - rss_before;
    const uint64_t queued = queue.size();
    start = std::chrono::steady_clock::now();
    while (!queue.empty()) {
      std::string url = std::move(queue.front());
      queue.pop_front();
      benchmark::DoNotOptimize(url.data());
    }
    const double pop_s = SecondsSince(start);
    Report(state, length, queued, push_s, pop_s, rss_growth, 0);
  }
}

BENCHMARK_CAPTURE(BM_Sieve, in_memory, Mode{false, false})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Sieve, spilled_16MiB, Mode{true, false})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Sieve, lossless_in_memory, Mode{false, true})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Sieve, lossless_spilled_16MiB, Mode{true, true})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NaiveExactSieve)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
