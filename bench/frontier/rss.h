// The benchmarks' memory figure: this process's resident set size now, read
// from /proc/self/status (Linux). Returns 0 where that file is missing.
#ifndef SIEVE_BENCH_FRONTIER_RSS_H_
#define SIEVE_BENCH_FRONTIER_RSS_H_

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

namespace sieve::bench {

inline uint64_t RssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
    }
  }
  return 0;
}

}  // namespace sieve::bench

#endif  // SIEVE_BENCH_FRONTIER_RSS_H_
