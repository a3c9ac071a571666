// Writes the pinned Frontier checkpoint (tests/frontier/
// frontier_format_workload.h) into the directory given, replacing it. Only for
// a deliberate format change: scripts/write-pinned-formats.sh runs it into
// tests/testdata/frontier_format_v<N>/ (see docs/architecture.md, "pinned").
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

#include "absl/status/status.h"
#include "tests/frontier/frontier_format_workload.h"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR (replaced by the pinned checkpoint)\n",
                 argv[0]);
    return 2;
  }
  const fs::path dir = argv[1];
  const fs::path work = fs::path(dir.string() + ".work");
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  fs::remove_all(work, ignored);
  const absl::Status s = sieve::testing_format::Workload(dir, work);
  fs::remove_all(work, ignored);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("wrote %s\n", dir.c_str());
  return 0;
}
