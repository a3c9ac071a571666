#include "crawler/policy/scope_mode.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace sieve {

std::span<const ScopeMode> AllScopeModes() {
  static constexpr ScopeMode kModes[] = {ScopeMode::kHost, ScopeMode::kDomain,
                                         ScopeMode::kAny};
  return kModes;
}

std::string_view ScopeModeName(ScopeMode mode) {
  switch (mode) {
    case ScopeMode::kHost:
      return "host";
    case ScopeMode::kDomain:
      return "domain";
    case ScopeMode::kAny:
      return "any";
  }
  return "unknown";
}

absl::StatusOr<ScopeMode> ParseScopeMode(std::string_view name) {
  std::string names;
  for (ScopeMode mode : AllScopeModes()) {
    if (name == ScopeModeName(mode)) return mode;
    absl::StrAppend(&names, names.empty() ? "" : ", ",
                    std::string(ScopeModeName(mode)));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "must be one of ", names, "; got \"", std::string(name), "\""));
}

}  // namespace sieve
