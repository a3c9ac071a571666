// crawler/policy/scope_mode.h: the closed set of crawl scopes (which hosts a
// crawl may leave its seeds for), with their names in config files and flags.
//
// Example:
//   absl::StatusOr<sieve::ScopeMode> mode = sieve::ParseScopeMode("domain");
//   if (mode.ok()) options.mode = *mode;  // ScopeModeName(*mode) == "domain"
#ifndef SIEVE_CRAWLER_POLICY_SCOPE_MODE_H_
#define SIEVE_CRAWLER_POLICY_SCOPE_MODE_H_

#include <span>
#include <string_view>

#include "absl/status/statusor.h"

namespace sieve {

enum class ScopeMode {
  kHost,    // Only the seeds' hosts (with their ports).
  kDomain,  // The seeds' registrable domains (public suffix list).
  kAny,     // Anywhere; patterns and trap control still apply.
};

// Every mode, in the order help texts list them.
std::span<const ScopeMode> AllScopeModes();

// "host", "domain", "any".
std::string_view ScopeModeName(ScopeMode mode);

// Inverse of ScopeModeName. InvalidArgument otherwise, with the message
// `must be one of host, domain, any; got "planet"`.
absl::StatusOr<ScopeMode> ParseScopeMode(std::string_view name);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_SCOPE_MODE_H_
