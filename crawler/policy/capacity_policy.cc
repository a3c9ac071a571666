#include "crawler/policy/capacity_policy.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace sieve {

std::span<const CapacityPolicy> AllCapacityPolicies() {
  static constexpr CapacityPolicy kPolicies[] = {
      CapacityPolicy::kGrow, CapacityPolicy::kWarn, CapacityPolicy::kStop};
  return kPolicies;
}

std::string_view CapacityPolicyName(CapacityPolicy policy) {
  switch (policy) {
    case CapacityPolicy::kGrow:
      return "grow";
    case CapacityPolicy::kWarn:
      return "warn";
    case CapacityPolicy::kStop:
      return "stop";
  }
  return "unknown";
}

absl::StatusOr<CapacityPolicy> ParseCapacityPolicy(std::string_view name) {
  std::string names;
  for (CapacityPolicy policy : AllCapacityPolicies()) {
    if (name == CapacityPolicyName(policy)) return policy;
    absl::StrAppend(&names, names.empty() ? "" : ", ",
                    std::string(CapacityPolicyName(policy)));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "must be one of ", names, "; got \"", std::string(name), "\""));
}

}  // namespace sieve
