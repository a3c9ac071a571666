#include "frontier/politeness.h"

#include <algorithm>
#include <cmath>

namespace sieve {

absl::Duration DelayBetweenRequests(const PolitenessOptions& options,
                                    const HostPoliteness& host) {
  const absl::Duration robots =
      std::min(host.crawl_delay, options.max_crawl_delay);
  return std::max(options.min_delay, robots);
}

absl::Duration AdaptiveDelay(const PolitenessOptions& options,
                             absl::Duration response_time) {
  if (options.adaptive_delay_multiple <= 0 ||
      response_time <= absl::ZeroDuration()) {
    return absl::ZeroDuration();
  }
  return std::min(options.max_adaptive_delay,
                  response_time * options.adaptive_delay_multiple);
}

bool RecordCrawlDelay(const PolitenessOptions& options,
                      absl::Duration crawl_delay, HostPoliteness& host) {
  host.crawl_delay = std::max(crawl_delay, absl::ZeroDuration());
  host.crawl_delay_capped = host.crawl_delay > options.max_crawl_delay;
  return host.crawl_delay_capped;
}

absl::Duration ThrottleBackoff(const PolitenessOptions& options, int streak,
                               std::optional<absl::Duration> retry_after,
                               std::mt19937_64& rng) {
  // Exponential back-off: base * 2^(streak-1), times a jitter factor U[1, 1+j)
  // so hosts throttled together do not all return together. The exponent is
  // clamped (2^40 * base is past any cap). Retry-After (RFC 9110 §10.2.3) is a
  // lower bound on the pause, itself clamped.
  const int doublings = std::clamp(streak - 1, 0, 40);
  double factor = std::ldexp(1.0, doublings);
  if (options.backoff_jitter > 0) {
    std::uniform_real_distribution<double> jitter(1.0,
                                                  1.0 + options.backoff_jitter);
    factor *= jitter(rng);
  }
  const double capped_seconds =
      std::min(absl::ToDoubleSeconds(options.backoff_base) * factor,
               absl::ToDoubleSeconds(options.backoff_cap));
  absl::Duration pause = absl::Seconds(capped_seconds);
  if (retry_after.has_value()) {
    const absl::Duration asked =
        std::clamp(*retry_after, absl::ZeroDuration(), options.max_retry_after);
    pause = std::max(pause, asked);
  }
  return pause;
}

}  // namespace sieve
