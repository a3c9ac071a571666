// The outcomes of a discovered link (crawler/policy/link_policy.h): the skip
// reason each refusal is recorded under, and how a page's outcomes are
// counted.
#include <optional>
#include <string>
#include <string_view>

#include "crawler/policy/link_policy.h"

namespace sieve {

std::optional<SkipReason> SkipReasonOf(AddOutcome outcome) {
  switch (outcome) {
    case AddOutcome::kQueued:
    case AddOutcome::kSeen:
    case AddOutcome::kInvalid:
      return std::nullopt;
    case AddOutcome::kOffSite:
      return SkipReason::kOffScope;
    case AddOutcome::kNotAllowed:
      return SkipReason::kNotAllowed;
    case AddOutcome::kDenied:
      return SkipReason::kDenyPattern;
    case AddOutcome::kTooLong:
      return SkipReason::kTrapLength;
    case AddOutcome::kRepeatedPath:
      return SkipReason::kTrapRepeat;
    case AddOutcome::kBeyondDepth:
      return SkipReason::kMaxDepth;
    case AddOutcome::kDisallowed:
      return SkipReason::kRobots;
    case AddOutcome::kOverOutlinkCap:
      return SkipReason::kOutlinkCap;
    case AddOutcome::kQueryVariants:
      return SkipReason::kTrapQuery;
    case AddOutcome::kCalendar:
      return SkipReason::kTrapCalendar;
    case AddOutcome::kDomainBudget:
      return SkipReason::kDomainBudget;
  }
  return std::nullopt;
}

void LinkOutcomes::Count(AddOutcome outcome) {
  switch (outcome) {
    case AddOutcome::kQueued:
      ++queued;
      break;
    case AddOutcome::kSeen:
    case AddOutcome::kInvalid:
      break;
    case AddOutcome::kOffSite:
      ++off_site;
      break;
    case AddOutcome::kNotAllowed:
    case AddOutcome::kDenied:
      ++filtered;
      break;
    case AddOutcome::kTooLong:
    case AddOutcome::kRepeatedPath:
    case AddOutcome::kOverOutlinkCap:
      ++traps;
      break;
    case AddOutcome::kQueryVariants:
      ++traps;
      ++query_variant_traps;
      break;
    case AddOutcome::kCalendar:
      ++traps;
      ++calendar_traps;
      break;
    case AddOutcome::kDomainBudget:
      ++traps;
      ++domain_budget;
      break;
    case AddOutcome::kBeyondDepth:
      ++beyond_depth;
      break;
    case AddOutcome::kDisallowed:
      ++disallowed;
      break;
  }
}

void LinkOutcomes::Note(const LinkPolicy& policy, std::string_view url,
                        AddOutcome outcome) {
  Count(outcome);
  if (!policy.record_skipped) return;
  if (const std::optional<SkipReason> reason = SkipReasonOf(outcome)) {
    skipped.push_back({.url = std::string(url), .reason = *reason});
  }
}

}  // namespace sieve
