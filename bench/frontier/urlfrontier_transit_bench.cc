// The URLFrontier server's GetURLs cost against the number of URLs in transit
// (handed out, not yet done or expired) in the queue it serves: each
// iteration puts 10 fresh URLs into one queue (untimed) and times the
// GetURLs(max_urls_per_queue=10) that hands them out, with 0 or 10^5 URLs of
// that queue in transit for a day. FrontierCore directly (no gRPC), its clock
// fixed, queue delay 0.
//
//   urlfrontier_transit_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "frontier/service/frontier_core.h"

namespace {

namespace fs = std::filesystem;

constexpr uint32_t kFresh = 10;

std::vector<urlfrontier::DiscoveredURLItem> Items(uint64_t from, uint64_t n) {
  std::vector<urlfrontier::DiscoveredURLItem> items(n);
  for (uint64_t i = 0; i < n; ++i) {
    urlfrontier::URLInfo* info = items[i].mutable_info();
    info->set_url(absl::StrCat("http://q.example/page-", from + i));
    info->set_key("q");
  }
  return items;
}

void BM_GetUrlsPastUrlsInTransit(benchmark::State& state) {
  const uint64_t in_transit = static_cast<uint64_t>(state.range(0));
  const fs::path dir =
      fs::temp_directory_path() /
      absl::StrCat("sieve-transit-bench-", ::getpid(), "-", in_transit);
  fs::remove_all(dir);
  auto core = sieve::service::FrontierCore::Open(
      {.data_dir = dir,
       .expected_urls = 4 * in_transit + 1'000'000,
       .default_queue_delay = 0,
       .clock = [] { return absl::FromUnixSeconds(1'700'000'000); }});
  if (!core.ok()) {
    state.SkipWithError(core.status().ToString().c_str());
    return;
  }
  uint32_t skipped = 0;
  uint64_t next = 0;
  urlfrontier::GetParams params;
  params.set_delay_requestable(86'400);
  if (in_transit > 0) {
    for (uint64_t done = 0; done < in_transit; done += 10'000) {
      (void)(*core)->PutDiscovered(Items(next, 10'000), &skipped);
      next += 10'000;
    }
    params.set_max_urls_per_queue(static_cast<uint32_t>(in_transit));
    if ((*core)->GetUrls(params).size() != in_transit) {
      state.SkipWithError("could not put the URLs in transit");
      return;
    }
  }
  params.set_max_urls_per_queue(kFresh);
  uint64_t handed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    (void)(*core)->PutDiscovered(Items(next, kFresh), &skipped);
    next += kFresh;
    state.ResumeTiming();
    handed += (*core)->GetUrls(params).size();
  }
  if (handed != kFresh * static_cast<uint64_t>(state.iterations())) {
    state.SkipWithError("GetURLs did not hand out every fresh URL");
  }
  state.counters["in_transit"] = static_cast<double>(in_transit);
  core->reset();
  fs::remove_all(dir);
}
BENCHMARK(BM_GetUrlsPastUrlsInTransit)
    ->ArgNames({"in_transit"})
    ->Arg(0)
    ->Arg(100'000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
