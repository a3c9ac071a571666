// bench/filter/filter_bench.cc: ns per Add / MayContain for each filter kind,
// single calls and batch calls, at 10^6 and 10^8 keys; bits per key and
// measured false-positive rate as counters; and the machine's own limit for one
// random cache-line read per key (hash a batch, prefetch, read) measured in the
// same run, with the blocked filter's batch query as a ratio of it.
//
//   cmake --preset release -B build/h-filter-rel && cmake --build
//   build/h-filter-rel --target bench_filter
//   build/h-filter-rel/bench/filter/bench_filter --benchmark_repetitions=3
//
// Keys are 8-byte integers made on the fly (their cost, ~1 ns, is inside every
// figure). Queries alternate a present and an absent key. Filters are sized for
// the key count at p = 1 %.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark/benchmark.h"
#include "filter/blocked_bloom_filter.h"
#include "filter/bloom_filter.h"
#include "filter/counting_bloom_filter.h"
#include "filter/key_hash.h"
#include "filter/scalable_bloom_filter.h"

namespace sieve {
namespace {

constexpr double kRate = 0.01;
constexpr uint64_t kAbsentBase = uint64_t{1} << 48;
constexpr size_t kBatch = 1024;  // keys per AddMany / MayContainMany call

bool SmokeMode() { return std::getenv("SIEVE_BENCH_SMOKE") != nullptr; }

// A batch of 8-byte keys.
struct KeyBatch {
  uint64_t ints[kBatch];
  std::string_view views[kBatch];
  bool results[kBatch];
  KeyBatch() {
    for (size_t i = 0; i < kBatch; ++i) {
      views[i] = std::string_view(reinterpret_cast<const char*>(&ints[i]),
                                  sizeof(uint64_t));
    }
  }
  // Keys first, first + 1, ... (wrapping inside [0, n)).
  void FillPresent(uint64_t first, uint64_t n) {
    for (size_t i = 0; i < kBatch; ++i) ints[i] = (first + i) % n;
  }
  // Alternating present and absent keys, as the single-call query does.
  void FillMixed(uint64_t first, uint64_t n) {
    for (size_t i = 0; i < kBatch; ++i) {
      const uint64_t j = first + i;
      ints[i] = (j & 1) ? (j >> 1) % n : kAbsentBase + j;
    }
  }
  std::span<const std::string_view> keys() const { return views; }
  std::span<bool> out() { return results; }
};

template <typename F>
F MakeFilter(uint64_t n) {
  return F::ForCapacity(n, kRate);
}

// The filter of `n` keys per kind, built once (by batch adds) and kept for the
// query runs.
template <typename F>
F& Filled(uint64_t n) {
  static std::unique_ptr<F> filter;
  static uint64_t filled_with = 0;
  if (filled_with != n) {
    filter.reset();  // free the previous size first
    filter = std::make_unique<F>(MakeFilter<F>(n));
    KeyBatch batch;
    for (uint64_t first = 0; first < n; first += kBatch) {
      batch.FillPresent(first, n);
      const size_t count = std::min<uint64_t>(kBatch, n - first);
      filter->AddMany(batch.keys().first(count), batch.out().first(count));
    }
    filled_with = n;
  }
  return *filter;
}

template <typename F>
double MeasuredFalsePositiveRate(const F& filter) {
  const uint64_t probes = SmokeMode() ? 10'000 : 1'000'000;
  KeyBatch batch;
  uint64_t positives = 0;
  for (uint64_t first = 0; first < probes; first += kBatch) {
    for (size_t i = 0; i < kBatch; ++i)
      batch.ints[i] = kAbsentBase + (uint64_t{1} << 40) + first + i;
    filter.MayContainMany(batch.keys(), batch.out());
    for (bool hit : batch.results) positives += hit ? 1 : 0;
  }
  return static_cast<double>(positives) /
         static_cast<double>(probes / kBatch * kBatch);
}

template <typename F>
void SetCounters(benchmark::State& state, const F& filter, uint64_t n,
                 uint64_t keys_done) {
  state.counters["bits_per_key"] = static_cast<double>(filter.bit_count()) / n;
  state.SetItemsProcessed(static_cast<int64_t>(keys_done));
}

// A fresh filter's pages are not mapped yet (calloc): the first write to each
// costs a page fault, which would swamp Add on a 10^8-key filter. A union with
// an empty filter of the same shape writes every word once, outside the timing,
// so Add is measured on a resident filter as in a running crawl.
template <typename F>
void PreFault(F& filter, uint64_t n, benchmark::State& state) {
  if (!filter.UnionWith(MakeFilter<F>(n)).ok()) state.SkipWithError("union");
}

template <typename F>
void BM_Add(benchmark::State& state) {
  const uint64_t n = static_cast<uint64_t>(state.range(0));
  F filter = MakeFilter<F>(n);
  PreFault(filter, n, state);
  uint64_t i = 0;
  for (auto _ : state) {
    const uint64_t key = i++ % n;
    benchmark::DoNotOptimize(filter.Add(
        std::string_view(reinterpret_cast<const char*>(&key), sizeof(key))));
  }
  SetCounters(state, filter, n, i);
}

template <typename F>
void BM_AddMany(benchmark::State& state) {
  const uint64_t n = static_cast<uint64_t>(state.range(0));
  F filter = MakeFilter<F>(n);
  PreFault(filter, n, state);
  KeyBatch batch;
  uint64_t first = 0;
  for (auto _ : state) {
    batch.FillPresent(first, n);
    filter.AddMany(batch.keys(), batch.out());
    first += kBatch;
  }
  SetCounters(state, filter, n, first);
}

template <typename F>
void BM_MayContain(benchmark::State& state) {
  const uint64_t n = static_cast<uint64_t>(state.range(0));
  const F& filter = Filled<F>(n);
  uint64_t i = 0;
  for (auto _ : state) {
    const uint64_t key = (i & 1) ? (i >> 1) % n : kAbsentBase + i;
    ++i;
    benchmark::DoNotOptimize(filter.MayContain(
        std::string_view(reinterpret_cast<const char*>(&key), sizeof(key))));
  }
  SetCounters(state, filter, n, i);
  state.counters["fpr"] = MeasuredFalsePositiveRate(filter);
}

template <typename F>
void BM_MayContainMany(benchmark::State& state) {
  const uint64_t n = static_cast<uint64_t>(state.range(0));
  const F& filter = Filled<F>(n);
  KeyBatch batch;
  uint64_t first = 0;
  for (auto _ : state) {
    batch.FillMixed(first, n);
    filter.MayContainMany(batch.keys(), batch.out());
    benchmark::DoNotOptimize(batch.results);
    first += kBatch;
  }
  SetCounters(state, filter, n, first);
  state.counters["fpr"] = MeasuredFalsePositiveRate(filter);
}

// The machine's limit: one random 64-byte line read per key out of an array as
// large as the blocked filter, done the way the batch query does it (hash each
// key and prefetch its line 16 keys ahead, then read one word of it). Returns
// the xor of what it read so nothing is optimised away.
uint64_t ReadRandomLines(const uint64_t* lines, uint64_t line_count,
                         uint64_t first, uint64_t count) {
  constexpr size_t kAhead = 16;  // as filter_internal::kBatchSize
  uint64_t sink = 0;
  uint64_t window[kAhead];
  for (uint64_t i = 0; i < count + kAhead; ++i) {
    if (i >= kAhead) sink ^= lines[window[(i - kAhead) % kAhead]];
    if (i < count) {
      const uint64_t key = kAbsentBase + first + i;
      const KeyHash h =
          HashKey(std::string_view(reinterpret_cast<const char*>(&key), 8));
      window[i % kAhead] = ReduceToRange(h.low, line_count) * 8;
      __builtin_prefetch(lines + window[i % kAhead], 0, 3);
    }
  }
  return sink;
}

struct LineArray {
  explicit LineArray(uint64_t bits)
      : line_count(bits / 512), words(line_count * 8, 1) {}
  uint64_t line_count;
  std::vector<uint64_t> words;
};

void BM_CacheLineReadLimit(benchmark::State& state) {
  const uint64_t n = static_cast<uint64_t>(state.range(0));
  const LineArray array(Filled<BlockedBloomFilter>(n).bit_count());
  uint64_t first = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        ReadRandomLines(array.words.data(), array.line_count, first, kBatch));
    first += kBatch;
  }
  state.counters["bits_per_key"] = 512.0 * array.line_count / n;
  state.SetItemsProcessed(static_cast<int64_t>(first));
}

// CPU time of this thread (memory stalls count; being descheduled on a busy
// machine does not).
double ThreadCpuNanos() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// Blocked batch query against the line-read limit, interleaved 5 times; prints
// the medians.
void CompareWithTheLimit(uint64_t n) {
  const BlockedBloomFilter& filter = Filled<BlockedBloomFilter>(n);
  const LineArray array(filter.bit_count());
  const uint64_t keys = SmokeMode() ? 64 * kBatch : 4096 * kBatch;
  std::vector<double> filter_ns, limit_ns;
  KeyBatch batch;
  uint64_t sink = 0;
  for (int round = 0; round < 5; ++round) {
    auto start = ThreadCpuNanos();
    for (uint64_t first = 0; first < keys; first += kBatch) {
      batch.FillMixed(first + round * keys, n);
      filter.MayContainMany(batch.keys(), batch.out());
      sink += batch.results[0];
    }
    auto middle = ThreadCpuNanos();
    sink ^= ReadRandomLines(array.words.data(), array.line_count, round * keys,
                            keys);
    auto end = ThreadCpuNanos();
    filter_ns.push_back((middle - start) / static_cast<double>(keys));
    limit_ns.push_back((end - middle) / static_cast<double>(keys));
  }
  std::sort(filter_ns.begin(), filter_ns.end());
  std::sort(limit_ns.begin(), limit_ns.end());
  const double f = filter_ns[2], l = limit_ns[2];
  std::printf(
      "\nblocked filter, %llu keys (%.0f MB): batch MayContain %.2f ns/key; "
      "one random cache-line "
      "read per key (hash, prefetch, read) %.2f ns/key; ratio %.2f (target <= "
      "2) [sink %llu]\n",
      static_cast<unsigned long long>(n), filter.bit_count() / 8e6, f, l, f / l,
      static_cast<unsigned long long>(sink & 1));
}

template <typename F>
void RegisterKind(const char* kind, const std::vector<int64_t>& sizes) {
  for (int64_t n : sizes) {
    const std::string suffix = std::string(kind);
    benchmark::RegisterBenchmark(("Add/" + suffix).c_str(), BM_Add<F>)
        ->Arg(n)
        ->ArgName("keys");
    benchmark::RegisterBenchmark(("AddMany/" + suffix).c_str(), BM_AddMany<F>)
        ->Arg(n)
        ->ArgName("keys");
    benchmark::RegisterBenchmark(("MayContain/" + suffix).c_str(),
                                 BM_MayContain<F>)
        ->Arg(n)
        ->ArgName("keys");
    benchmark::RegisterBenchmark(("MayContainMany/" + suffix).c_str(),
                                 BM_MayContainMany<F>)
        ->Arg(n)
        ->ArgName("keys");
    if (std::string_view(kind) == "blocked") {
      benchmark::RegisterBenchmark("CacheLineReadLimit", BM_CacheLineReadLimit)
          ->Arg(n)
          ->ArgName("keys");
    }
  }
}

}  // namespace
}  // namespace sieve

int main(int argc, char** argv) {
  using namespace sieve;  // NOLINT: a program's main, not a header
  const std::vector<int64_t> sizes =
      SmokeMode() ? std::vector<int64_t>{10'000, 100'000}
                  : std::vector<int64_t>{1'000'000, 100'000'000};
  RegisterKind<BloomFilter>("classic", sizes);
  RegisterKind<BlockedBloomFilter>("blocked", sizes);
  RegisterKind<CountingBloomFilter>("counting", sizes);
  RegisterKind<ScalableBloomFilter>("scalable", sizes);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  for (int64_t n : sizes) CompareWithTheLimit(static_cast<uint64_t>(n));
  benchmark::Shutdown();
  return 0;
}
