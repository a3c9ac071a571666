// bench/cluster/cluster_site.cc: the site of the cluster benchmark
// (cluster_bench.sh): HOSTS DemoSites on 127.0.0.1 (one port, so one host,
// each), every answer delayed by DELAY_MS, so a crawl of it is bound by
// waiting on servers, not by this machine's cores. Writes the roots to
// SEEDS_FILE (complete when it appears), then serves until SIGTERM or SIGINT;
// prints the requests it answered on exit.
//
// Usage: bench_cluster_site HOSTS PAGES DELAY_MS SEEDS_FILE
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "crawler/demo/demo_site.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: bench_cluster_site HOSTS PAGES DELAY_MS SEEDS_FILE\n";
    return 2;
  }
  const int hosts = std::atoi(argv[1]);
  const int pages = std::atoi(argv[2]);
  const int delay_ms = std::atoi(argv[3]);
  // Blocked in every thread (the servers' threads inherit the mask), taken
  // by sigwait below.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  std::vector<std::unique_ptr<sieve::DemoSite>> sites;
  {
    std::ofstream seeds(std::string(argv[4]) + ".tmp");
    for (int i = 0; i < hosts; ++i) {
      auto site = sieve::DemoSite::Start(
          {.pages = pages,
           .seed = static_cast<uint64_t>(i + 1),
           .slow_page_delay = absl::ZeroDuration(),
           .response_delay = absl::Milliseconds(delay_ms)});
      if (!site.ok()) {
        std::cerr << site.status() << "\n";
        return 1;
      }
      seeds << (*site)->root_url() << "\n";
      sites.push_back(*std::move(site));
    }
  }
  std::rename((std::string(argv[4]) + ".tmp").c_str(), argv[4]);
  int signal = 0;
  sigwait(&stop, &signal);
  size_t requests = 0;
  for (const auto& site : sites) requests += site->requests().size();
  std::cout << "requests " << requests << "\n";
  return 0;
}
