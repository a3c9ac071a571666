// fetch/retry_policy.h: whether and when to try a failed fetch again. Pure
// functions: the Fetcher applies them to its own transfers, and the crawler can
// reuse them (for instance to reschedule a host that answered 429 with a long
// Retry-After).
//
// The rule:
//   - Retried: connection failures (FetchError::kConnect, kReset), timeouts
//     when RetryOptions::retry_timeouts is set, and HTTP 408, 429 and 5xx.
//     Nothing else: DNS, TLS, protocol errors and other 4xx are not transient.
//   - At most RetryOptions::max_retries retries.
//   - Delay: Retry-After when the response has one (RFC 9110 10.2.3:
//     delay-seconds or an HTTP-date); when it exceeds max_retry_after the
//     response is not retried. Otherwise exponential backoff with "equal
//     jitter" (M. Brooker, "Exponential Backoff And Jitter", AWS Architecture
//     Blog, 2015): b = min(max_backoff, initial_backoff * 2^(n-1)) for the
//     n-th retry, delay uniform in [b/2, b].
//
// Example:
//   absl::BitGen gen;
//   sieve::RetryDecision d = sieve::DecideRetry(
//       response, response.attempts, options, absl::Now(), gen);
//   if (d.retry) ScheduleAt(absl::Now() + d.delay);
#ifndef SIEVE_FETCH_RETRY_POLICY_H_
#define SIEVE_FETCH_RETRY_POLICY_H_

#include <optional>

#include "absl/random/bit_gen_ref.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "fetch/fetch_options.h"
#include "fetch/fetch_types.h"

namespace sieve {

struct RetryDecision {
  bool retry = false;
  // Wait before the next attempt; meaningful only when retry is true.
  absl::Duration delay;
};

// True when the outcome is worth another attempt (the kind, not the count): see
// the rule above.
bool IsRetryable(const FetchResponse& response, const RetryOptions& options);

// The value of a Retry-After header as a delay from `now`: delay-seconds
// ("120") or an HTTP-date in any of the three forms RFC 9110 5.6.7 requires
// recipients to accept (parsed by curl_getdate). A date in the past gives zero.
// nullopt when the value is neither.
std::optional<absl::Duration> ParseRetryAfter(absl::string_view value,
                                              absl::Time now);

// Decision after `attempts_made` attempts (>= 1) ended in `response`. Draws
// jitter from `gen` only when it retries without a Retry-After. Cost: a few
// arithmetic operations, plus a date parse when Retry-After is present.
RetryDecision DecideRetry(const FetchResponse& response, int attempts_made,
                          const RetryOptions& options, absl::Time now,
                          absl::BitGenRef gen);

}  // namespace sieve

#endif  // SIEVE_FETCH_RETRY_POLICY_H_
