// A discovered link's outcome noted on its page's LinkOutcomes
// (crawler/policy/link_policy.h; the counts are link_fate.h's table).
#include <optional>
#include <string>
#include <string_view>

#include "crawler/policy/link_policy.h"

namespace sieve {

void LinkOutcomes::Note(const LinkPolicy& policy, std::string_view url,
                        AddOutcome outcome) {
  Count(outcome);
  if (!policy.record_skipped) return;
  if (const std::optional<SkipReason> reason = SkipReasonOf(outcome)) {
    skipped.push_back({.url = std::string(url), .reason = *reason});
  }
}

}  // namespace sieve
