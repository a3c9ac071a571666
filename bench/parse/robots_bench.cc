// Cost of one robots.txt decision per URL against a worst-case file: 500 KiB
// (RFC 9309's parse limit) of distinct '*' patterns, each of which nearly
// matches a path of 'a's and fails only at its last segment, so every pattern
// must scan the whole path. Compares RobotsMatcher (compiled once, at most
// RobotsMatcher::kMaxWildcardRules patterns, linear per pattern) with
// RobotsTxt::IsAllowed (every rule, |pattern| x |path| each). Arg: path
// length in bytes. With SIEVE_BENCH_SMOKE=1 (ctest smoke run) the file is
// 20 KiB.
//
// Run: cmake --preset release && cmake --build build/release --target
// bench_robots && build/release/bench/parse/bench_robots
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "parse/robots.h"
#include "parse/robots_matcher.h"

namespace sieve {
namespace {

constexpr char kAgent[] = "SieveBot/1.0";

std::string WorstCaseFile() {
  const size_t limit = std::getenv("SIEVE_BENCH_SMOKE") != nullptr
                           ? 20 * 1024
                           : RobotsTxt::kMaxBytes;
  std::string file = "User-agent: *\n";
  for (int i = 0;; ++i) {
    std::string line = "Disallow: /*";
    for (int j = 0; j < 24; ++j) line += "a*";
    line += "b" + std::to_string(i) + "\n";  // Distinct, and never found.
    if (file.size() + line.size() > limit) break;
    file += line;
  }
  return file;
}

std::string PathOfLength(int64_t length) {
  return "/" + std::string(static_cast<size_t>(length - 1), 'a');
}

void BM_RobotsWorstCaseCompiled(benchmark::State& state) {
  const std::string file = WorstCaseFile();
  const RobotsMatcher matcher =
      RobotsMatcher::Compile(RobotsTxt::Parse(file), kAgent);
  const std::string path = PathOfLength(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(matcher.IsAllowed(path));
  state.SetItemsProcessed(state.iterations());
  state.counters["file_kib"] = static_cast<double>(file.size()) / 1024;
  state.counters["ignored_rules"] =
      static_cast<double>(matcher.ignored_wildcard_rules());
}
BENCHMARK(BM_RobotsWorstCaseCompiled)
    ->ArgNames({"path_bytes"})
    ->Arg(100)
    ->Arg(2000)
    ->Unit(benchmark::kMicrosecond);

// The one-off cost the cache pays per robots.txt fetched.
void BM_RobotsWorstCaseCompile(benchmark::State& state) {
  const std::string file = WorstCaseFile();
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        RobotsMatcher::Compile(RobotsTxt::Parse(file), kAgent));
  }
  state.counters["file_kib"] = static_cast<double>(file.size()) / 1024;
}
BENCHMARK(BM_RobotsWorstCaseCompile)->Unit(benchmark::kMillisecond);

// Before: every rule on every URL.
void BM_RobotsWorstCaseReference(benchmark::State& state) {
  const RobotsTxt robots = RobotsTxt::Parse(WorstCaseFile());
  const std::string path = PathOfLength(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(robots.IsAllowed(kAgent, path));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RobotsWorstCaseReference)
    ->ArgNames({"path_bytes"})
    ->Arg(100)
    ->Arg(2000)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sieve

BENCHMARK_MAIN();
