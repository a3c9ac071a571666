// frontier/service/internal/unix_seconds.h: the URLFrontier API's times,
// whole seconds since the Unix epoch (a time before it is 0). Used by both
// halves of FrontierCore (frontier/service/frontier_core.cc and
// frontier_core_admin.cc).
#ifndef SIEVE_FRONTIER_SERVICE_INTERNAL_UNIX_SECONDS_H_
#define SIEVE_FRONTIER_SERVICE_INTERNAL_UNIX_SECONDS_H_

#include <cstdint>

#include "absl/time/time.h"

namespace sieve::service {

inline uint64_t UnixSeconds(absl::Time t) {
  const int64_t s = absl::ToUnixSeconds(t);
  return s < 0 ? 0 : static_cast<uint64_t>(s);
}

}  // namespace sieve::service

#endif  // SIEVE_FRONTIER_SERVICE_INTERNAL_UNIX_SECONDS_H_
