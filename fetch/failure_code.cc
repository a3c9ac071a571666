#include "fetch/failure_code.h"

#include <array>

namespace sieve {
namespace {

constexpr std::array<FailureInfo, kFailureCodeCount + 1> kTable = {{
#define SIEVE_FAILURE_ROW(e, name, retry, connection, cause) \
  {name, FailureRetry::retry, connection, cause},
    SIEVE_FAILURE_CODES(SIEVE_FAILURE_ROW)
#undef SIEVE_FAILURE_ROW
}};

}  // namespace

const FailureInfo& InfoOf(FailureCode code) {
  return kTable[static_cast<size_t>(code)];
}

std::optional<FailureCode> FailureCodeFromName(std::string_view name) {
  for (size_t i = 0; i < kFailureCodeCount; ++i) {
    if (kTable[i].name == name) return static_cast<FailureCode>(i);
  }
  return std::nullopt;
}

}  // namespace sieve
