#include "crawler/policy/link_fate.h"

namespace sieve {
namespace {

// The table's `none`: a fate with no skip reason, or no (sub-)counter.
struct NoCount {
  void operator++() {}
};

}  // namespace

std::optional<SkipReason> SkipReasonOf(AddOutcome outcome) {
  constexpr std::optional<SkipReason> none = std::nullopt;
  switch (outcome) {
#define SIEVE_FATE_REASON(e, reason, counter, sub) \
  case AddOutcome::e: {                            \
    using enum SkipReason;                         \
    return reason;                                 \
  }
    SIEVE_LINK_FATES(SIEVE_FATE_REASON)
#undef SIEVE_FATE_REASON
  }
  return none;
}

void LinkFateCounts::Count(AddOutcome outcome) {
  NoCount none;
  switch (outcome) {
#define SIEVE_FATE_COUNT(e, reason, counter, sub) \
  case AddOutcome::e:                             \
    ++counter;                                    \
    ++sub;                                        \
    break;
    SIEVE_LINK_FATES(SIEVE_FATE_COUNT)
#undef SIEVE_FATE_COUNT
  }
  if (outcome == AddOutcome::kQueued) ++queued;
}

}  // namespace sieve
