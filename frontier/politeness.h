// frontier/politeness.h: the per-host politeness rules of the Frontier, as pure
// functions of a host's state and the clock, so they can be tested alone and
// read in one place.
//
// Surprises first:
//   - A robots.txt Crawl-delay above `max_crawl_delay` is neither ignored nor
//     obeyed to the letter: the cap applies, and the host is marked
//     (HostPoliteness::crawl_delay_capped) and counted by the Frontier, so the
//     crawl report can name such hosts.
//   - Back-off jitter comes from the caller's seeded generator: the same seed
//     gives the same schedule, so tests are deterministic.
//   - Retry-After is honoured up to `max_retry_after`; a longer one is clamped
//     (a server asking for a week's pause would stall the host all crawl).
//
// Example:
//   sieve::PolitenessOptions opts{.min_delay = absl::Seconds(1)};
//   absl::Duration gap = sieve::DelayBetweenRequests(opts, host);  // >= 1 s
//   std::mt19937_64 rng(seed);
//   absl::Duration pause =
//       sieve::ThrottleBackoff(opts, /*streak=*/2, std::nullopt, rng);
#ifndef SIEVE_FRONTIER_POLITENESS_H_
#define SIEVE_FRONTIER_POLITENESS_H_

#include <cstdint>
#include <optional>
#include <random>

#include "absl/time/time.h"

namespace sieve {

struct PolitenessOptions {
  // Minimum time between the starts of two requests to one host (the config's
  // delay). The delay actually used is max(min_delay, robots Crawl-delay capped
  // at max_crawl_delay). Default: 1 second.
  absl::Duration min_delay = absl::Seconds(1);
  // Largest robots.txt Crawl-delay obeyed; a larger one is recorded and this
  // cap applies. Default: 30 seconds.
  absl::Duration max_crawl_delay = absl::Seconds(30);
  // At most this many requests to one host at once. REQUIRES: >= 1. Default: 1.
  int max_in_flight_per_host = 1;
  // Adaptive delay: after a response that took `t`, the host waits at least
  // adaptive_delay_multiple * t before its next request (Heritrix's "delay
  // factor"), up to max_adaptive_delay. 0 turns it off. REQUIRES: >= 0.
  // Default: 0 (off).
  double adaptive_delay_multiple = 0;
  // Cap on the adaptive delay. Default: 30 seconds.
  absl::Duration max_adaptive_delay = absl::Seconds(30);
  // First back-off after a 429 or 503; each repeat doubles it, a success resets
  // it. Default: 5 seconds.
  absl::Duration backoff_base = absl::Seconds(5);
  // Largest back-off (after jitter). Default: 10 minutes.
  absl::Duration backoff_cap = absl::Minutes(10);
  // Jitter: the back-off is multiplied by a uniform factor in [1, 1 +
  // backoff_jitter), so hosts throttled at once do not all come back at once.
  // REQUIRES: >= 0. Default: 0.25.
  double backoff_jitter = 0.25;
  // Longest Retry-After honoured; longer ones are clamped to it. Default: 1
  // hour.
  absl::Duration max_retry_after = absl::Hours(1);
  // A URL answered with 429/503 is fetched again after the host's back-off at
  // most this many times, so it is requested at most this plus one times in
  // all; after that it is given up (UrlFate::kGivenUp). Default: 3.
  int max_throttle_retries = 3;
  // The same for a transient error (connection refused or reset, timeout).
  // Default: 2, as Scrapy's RETRY_TIMES; wget (--tries 20) and Heritrix
  // (max-retries 30) try more, as archivers of one site that may wait, while
  // a crawl of many hosts records the URL (never drops it) after three tries
  // spread over the host's back-off. `sieve crawl` reads this default.
  int max_error_retries = 2;
  // After this many connection failures in a row (DNS, TCP connect, TLS: no
  // answer at all) a host is unreachable: for `unreachable_for` its queued
  // and new URLs are handed out marked so (FrontierUrl::unreachable_error),
  // to be recorded without a request, instead of each waiting out its own
  // retries. A failure after that time marks it again at once; any answer
  // from the host clears it. Scrapy retries a refused connection twice,
  // wget and curl not at all (docs/crawling.md "Dead hosts"). REQUIRES: >= 1.
  // Default: 2.
  int unreachable_after = 2;
  // How long a host stays unreachable before one URL is tried again.
  // Default: 60 seconds.
  absl::Duration unreachable_for = absl::Seconds(60);
};

// The politeness state of one host that the rules below read. Owned by the
// Frontier's HostState.
struct HostPoliteness {
  // Crawl-delay from robots.txt, as given (before the cap). Zero: none.
  absl::Duration crawl_delay = absl::ZeroDuration();
  // True when crawl_delay was above max_crawl_delay (the cap applies).
  bool crawl_delay_capped = false;
  // Duration of the host's last successful response; zero before the first.
  absl::Duration last_response_time = absl::ZeroDuration();
  // 429/503 answers in a row since the last success.
  int throttle_streak = 0;
  // Connection failures in a row since the host last answered.
  int connection_failures = 0;
};

// Gap between the starts of two requests to the host: max(min_delay,
// min(crawl_delay, cap)). Cost: O(1).
absl::Duration DelayBetweenRequests(const PolitenessOptions& options,
                                    const HostPoliteness& host);

// Pause after a response that took `response_time`: adaptive_delay_multiple *
// response_time, capped at max_adaptive_delay; zero when adaptive delay is off.
// Cost: O(1).
absl::Duration AdaptiveDelay(const PolitenessOptions& options,
                             absl::Duration response_time);

// Records a robots.txt Crawl-delay on `host`; returns true when it exceeds the
// cap (and so was capped). A negative or zero value clears it.
bool RecordCrawlDelay(const PolitenessOptions& options,
                      absl::Duration crawl_delay, HostPoliteness& host);

// Back-off for the `streak`-th 429/503 in a row (streak >= 1):
//   min(backoff_cap, backoff_base * 2^(streak-1) * U[1, 1 + backoff_jitter)),
// and at least min(retry_after, max_retry_after) when the server sent
// Retry-After. Draws one number from `rng` when jitter is on. Cost: O(1).
absl::Duration ThrottleBackoff(const PolitenessOptions& options, int streak,
                               std::optional<absl::Duration> retry_after,
                               std::mt19937_64& rng);

}  // namespace sieve

#endif  // SIEVE_FRONTIER_POLITENESS_H_
