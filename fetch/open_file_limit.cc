#include "fetch/open_file_limit.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>

namespace sieve {
namespace {

constexpr uint64_t kCap = uint64_t{1} << 20;  // Linux's default fs.nr_open.

uint64_t ToU64(rlim_t value) {
  return value == RLIM_INFINITY ? UINT64_MAX : static_cast<uint64_t>(value);
}

}  // namespace

uint64_t CurrentOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  return ToU64(limit.rlim_cur);
}

OpenFileLimit RaiseOpenFileLimit() {
  OpenFileLimit out;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    out.before = out.soft = out.hard = 1024;
    return out;
  }
  out.before = ToU64(limit.rlim_cur);
  out.hard = ToU64(limit.rlim_max);
  const uint64_t wanted = std::min(out.hard, kCap);
  if (wanted > out.before) {
    rlimit raised = limit;
    raised.rlim_cur = static_cast<rlim_t>(wanted);
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  out.soft = ToU64(limit.rlim_cur);
  return out;
}

}  // namespace sieve
