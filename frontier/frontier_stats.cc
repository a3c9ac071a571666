// The helpers over SIEVE_FRONTIER_STATS (frontier/frontier_stats.h): the one
// list of FrontierStats' fields.
#include "frontier/frontier_stats.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sieve {
namespace {

#define SIEVE_COUNT(name, kind) +1
constexpr size_t kListed = 0 SIEVE_FRONTIER_STATS(SIEVE_COUNT);
#undef SIEVE_COUNT
// Every field is a uint64_t: a field added to FrontierStats and not to the
// list fails here.
static_assert(sizeof(FrontierStats) == kListed * sizeof(uint64_t),
              "FrontierStats has a field SIEVE_FRONTIER_STATS does not list");

constexpr bool IsTotal(FrontierCounterKind kind) {
  return kind == FrontierCounterKind::kTotal;
}

}  // namespace

void AddFrontierStats(const FrontierStats& from, FrontierStats& into,
                      bool totals_only) {
#define SIEVE_ADD(name, kind)                               \
  if (!totals_only || IsTotal(FrontierCounterKind::kind)) { \
    into.name += from.name;                                 \
  }
  SIEVE_FRONTIER_STATS(SIEVE_ADD)
#undef SIEVE_ADD
}

std::vector<uint64_t> FrontierTotals(const FrontierStats& stats) {
  std::vector<uint64_t> out;
#define SIEVE_SAVE(name, kind) \
  if (IsTotal(FrontierCounterKind::kind)) out.push_back(stats.name);
  SIEVE_FRONTIER_STATS(SIEVE_SAVE)
#undef SIEVE_SAVE
  return out;
}

void RestoreFrontierTotals(std::span<const uint64_t> saved,
                           FrontierStats& into) {
  size_t i = 0;
#define SIEVE_RESTORE(name, kind)                               \
  if (IsTotal(FrontierCounterKind::kind) && i < saved.size()) { \
    into.name = saved[i++];                                     \
  }
  SIEVE_FRONTIER_STATS(SIEVE_RESTORE)
#undef SIEVE_RESTORE
}

}  // namespace sieve
