// Throughput of the Fetcher against a loopback keep-alive server that answers
// at once, so the figure is the Fetcher's and curl's own cost per request (plus
// the loopback server's), not the network's. SIEVE_BENCH_SMOKE=1 shrinks each
// batch for the ctest smoke run.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "fetch/fetcher.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using fetch_test::Connection;
using fetch_test::RawServer;

int BatchSize() {
  return std::getenv("SIEVE_BENCH_SMOKE") != nullptr ? 20 : 500;
}

// Requests per second through one Fetcher to one host; args: transfers at once
// (max_concurrent_transfers; with one host, also the connections open to it),
// body bytes.
void BM_FetchKeepAlive(benchmark::State& state) {
  const int transfers = static_cast<int>(state.range(0));
  const std::string response =
      absl::StrCat("HTTP/1.1 200 OK\r\nContent-Length: ", state.range(1),
                   "\r\n\r\n", std::string(state.range(1), 'x'));
  RawServer server([&response](Connection& c) {
    std::string head;
    while (c.ReadRequestHead(&head) && c.Send(response)) {
    }
  });
  FetchOptions options;
  options.max_concurrent_transfers = transfers;
  options.allow_private_addresses = true;  // The server is on loopback.
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Fetcher::Create(options);
  if (!fetcher.ok()) {
    state.SkipWithError(std::string(fetcher.status().message()).c_str());
    return;
  }
  const int batch = BatchSize();
  const std::string url = server.Url("/");
  int64_t failures = 0;
  for (auto _ : state) {
    for (int i = 0; i < batch; ++i)
      (*fetcher)->Submit({.id = static_cast<uint64_t>(i), .url = url});
    int done = 0;
    while (done < batch) {
      for (const FetchResponse& r : (*fetcher)->Poll(absl::Seconds(1))) {
        failures += r.ok() ? 0 : 1;
        ++done;
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * batch);
  state.SetBytesProcessed(state.iterations() * batch * state.range(1));
  state.counters["failures"] = static_cast<double>(failures);
  state.counters["connections_opened"] = server.accepted();
}

BENCHMARK(BM_FetchKeepAlive)
    ->ArgNames({"transfers", "body_bytes"})
    ->Args({1, 1024})
    ->Args({2, 1024})
    ->Args({8, 1024})
    ->Args({2, 65536})
    ->Args({8, 65536})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sieve

BENCHMARK_MAIN();
