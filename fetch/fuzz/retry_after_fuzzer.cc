// Fuzzes ParseRetryAfter, which reads a header any server controls: it must
// never crash, and whatever it returns must be a delay the caller can use (not
// negative, not infinite, at most 2^32-1 s for delay-seconds).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "absl/time/time.h"
#include "fetch/retry_policy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  // Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example date), so a date in the
  // input is as likely to lie in the future as in the past.
  const absl::Time now = absl::FromUnixSeconds(784111777);
  const std::optional<absl::Duration> wait = sieve::ParseRetryAfter(
      absl::string_view(input.data(), input.size()), now);
  if (wait.has_value() &&
      (*wait < absl::ZeroDuration() || *wait == absl::InfiniteDuration())) {
    std::abort();
  }
  return 0;
}
