#include "fetch/retry_policy.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <string>

#include "absl/random/distributions.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"

namespace sieve {

bool IsRetryable(const FetchResponse& response, const RetryOptions& options) {
  switch (response.error) {
    case FetchError::kConnect:
    case FetchError::kReset:
      return true;
    case FetchError::kTimeout:
      return options.retry_timeouts;
    case FetchError::kNone:
      break;
    default:
      return false;
  }
  const int status = response.status;
  return status == 408 || status == 429 || (status >= 500 && status <= 599);
}

std::optional<absl::Duration> ParseRetryAfter(absl::string_view value,
                                              absl::Time now) {
  value = absl::StripAsciiWhitespace(value);
  if (value.empty()) return std::nullopt;
  // delay-seconds = 1*DIGIT (RFC 9110 10.2.3). SimpleAtoi alone would also take
  // "+5" and "-5".
  if (std::all_of(value.begin(), value.end(), absl::ascii_isdigit)) {
    uint64_t seconds = 0;
    if (!absl::SimpleAtoi(value, &seconds))
      seconds = UINT32_MAX;  // Overflow: "very long".
    return absl::Seconds(
        static_cast<int64_t>(std::min<uint64_t>(seconds, UINT32_MAX)));
  }
  // HTTP-date: IMF-fixdate, or the obsolete RFC 850 and asctime forms;
  // curl_getdate reads all three and returns -1 for anything else.
  const std::string text(value);
  const time_t when = curl_getdate(text.c_str(), nullptr);
  if (when == -1) return std::nullopt;
  return std::max(absl::ZeroDuration(), absl::FromTimeT(when) - now);
}

RetryDecision DecideRetry(const FetchResponse& response, int attempts_made,
                          const RetryOptions& options, absl::Time now,
                          absl::BitGenRef gen) {
  RetryDecision decision;
  if (attempts_made > options.max_retries || !IsRetryable(response, options))
    return decision;

  if (!response.headers.retry_after.empty()) {
    std::optional<absl::Duration> wait =
        ParseRetryAfter(response.headers.retry_after, now);
    if (wait.has_value()) {
      if (*wait > options.max_retry_after) return decision;
      decision.retry = true;
      decision.delay = *wait;
      return decision;
    }
    // An unparsable Retry-After is ignored (RFC 9110 5.6.7: recipients may
    // ignore invalid dates).
  }

  // Equal jitter: b = min(cap, base * 2^(n-1)); delay ~ U[b/2, b]. The shift is
  // bounded so that 2^(n-1) cannot overflow; by then the cap has long been
  // reached.
  const int doublings = std::min(attempts_made - 1, 30);
  const absl::Duration backoff = std::min(
      options.max_backoff, options.initial_backoff * (int64_t{1} << doublings));
  decision.retry = true;
  decision.delay = backoff * absl::Uniform(absl::IntervalClosed, gen, 0.5, 1.0);
  return decision;
}

}  // namespace sieve
