// crawler/policy/capacity_policy.h: what the crawl does when the Sieve's filter
// passes its designed capacity (sieve.expected_urls), with the names config
// files and flags use (sieve.on_capacity).
//
// Example:
//   absl::StatusOr<sieve::CapacityPolicy> p = sieve::ParseCapacityPolicy("stop");
//   // CapacityPolicyName(*p) == "stop"
#ifndef SIEVE_CRAWLER_POLICY_CAPACITY_POLICY_H_
#define SIEVE_CRAWLER_POLICY_CAPACITY_POLICY_H_

#include <span>
#include <string_view>

#include "absl/status/statusor.h"

namespace sieve {

enum class CapacityPolicy {
  // The filter is the scalable one (Almeida et al., filter/
  // scalable_bloom_filter.h): past expected_urls it adds stages and its
  // false-positive rate stays under sieve.fp_rate.
  kGrow,
  // The filter keeps its size; its false-positive rate climbs past
  // expected_urls, so a growing share of new URLs is dropped as seen.
  kWarn,
  // The crawl stops (stop reason "capacity") once the filter holds
  // expected_urls; `--resume DIR --expected-urls N` goes on.
  kStop,
};

// Every policy, in the order help texts list them.
std::span<const CapacityPolicy> AllCapacityPolicies();

// "grow", "warn", "stop".
std::string_view CapacityPolicyName(CapacityPolicy policy);

// Inverse of CapacityPolicyName; InvalidArgument naming the accepted names.
absl::StatusOr<CapacityPolicy> ParseCapacityPolicy(std::string_view name);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_CAPACITY_POLICY_H_
