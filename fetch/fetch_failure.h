// fetch/fetch_failure.h: FailureOf, which names the failure of a FetchResponse
// with a code of the one closed set (FailureCode, fetch/failure_code.h: its
// cause and how a crawl retries it) and quotes its cause.
//
// The crawler writes the code to each record's `error`, the quote to
// `error_detail`, counts records per code in its summary, and decides retries
// from the table (docs/crawling.md "Error codes" prints it).
//
// Surprises first:
//   - 4xx and 5xx answers are failures here (http_4xx, http_5xx) although the
//     Fetcher counts them as responses (FetchResponse::ok()): the server
//     answered, but gave no page.
//   - 429 and 503 are `throttled`, never http_4xx/http_5xx: the host is asking
//     for less load, and the crawl backs off and retries.
//   - robots_unavailable is not returned by FailureOf: it is the crawler's
//     code for a URL held back because its host's robots.txt answered 429 or
//     5xx (RFC 9309 2.3.1.4), listed here so every code lives in one table.
//
// Example:
//   if (std::optional<sieve::Failure> f = sieve::FailureOf(response)) {
//     record.error = std::string(sieve::FailureCodeName(f->code));
//     record.error_detail = f->detail;  // "Failed to connect to ... refused"
//   }
#ifndef SIEVE_FETCH_FETCH_FAILURE_H_
#define SIEVE_FETCH_FETCH_FAILURE_H_

#include <optional>
#include <string>

#include "fetch/failure_code.h"
#include "fetch/fetch_types.h"

namespace sieve {

struct Failure {
  FailureCode code = FailureCode::kOther;
  // The underlying cause, quoted: curl's message ("SSL certificate problem:
  // unable to get local issuer certificate"), or the HTTP status line
  // ("HTTP 503, Retry-After: 2").
  std::string detail;
};

// The failure of `response`, or nullopt when it is a page or a redirect
// (1xx-3xx, with no transport error). Cost: O(1).
std::optional<Failure> FailureOf(const FetchResponse& response);

}  // namespace sieve

#endif  // SIEVE_FETCH_FETCH_FAILURE_H_
