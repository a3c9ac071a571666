#include "frontier/cluster/redis_errors.h"

#include <array>

#include "absl/strings/match.h"

namespace sieve::cluster {
namespace {

constexpr std::array<const char*, 9> kTransientWords = {
    "FENCED", "LOADING",  "NOSCRIPT",    "BUSY",      "MOVED",
    "ASK ",   "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN"};

}  // namespace

bool IsTransientRedisError(const absl::Status& s) {
  if (absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s)) return true;
  for (const char* word : kTransientWords) {
    if (absl::StrContains(s.message(), word)) return true;
  }
  return false;
}

bool IsFenced(const absl::Status& s) {
  return absl::StrContains(s.message(), "FENCED");
}

}  // namespace sieve::cluster
