// fetch/retry_policy.h: the one piece of a retry rule that reads HTTP: the
// Retry-After header (RFC 9110 10.2.3) as a delay. A pure function.
//
// The Fetcher itself retries nothing: a 429, a 5xx or a refused connection
// comes back to the caller at once, and the Frontier decides whether and when
// to ask again (it owns every per-host decision). The crawl loop uses this to
// turn a Retry-After into the host's back-off.
//
// Example:
//   std::optional<absl::Duration> wait =
//       sieve::ParseRetryAfter(response.headers.retry_after, absl::Now());
//   if (wait.has_value()) frontier.BackOff(host, *wait);
#ifndef SIEVE_FETCH_RETRY_POLICY_H_
#define SIEVE_FETCH_RETRY_POLICY_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace sieve {

// The value of a Retry-After header as a delay from `now`: delay-seconds
// ("120", capped at 2^32-1 s) or an HTTP-date in any of the three forms RFC
// 9110 5.6.7 requires recipients to accept (parsed by curl_getdate). A date in
// the past gives zero. nullopt when the value is neither (RFC 9110 5.6.7:
// recipients may ignore an invalid date). Never fails on any bytes. Cost:
// O(|value|).
std::optional<absl::Duration> ParseRetryAfter(absl::string_view value,
                                              absl::Time now);

}  // namespace sieve

#endif  // SIEVE_FETCH_RETRY_POLICY_H_
