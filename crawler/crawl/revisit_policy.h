// crawler/crawl/revisit_policy.h: when a fetched URL is due again
// (crawl.revisit): the revisit modes, what one fetch teaches a URL's history
// (changed or not), and the next interval.
//
//   off       no revisits: the crawl ends when nothing new is left.
//   fixed     every page again revisit_min after its last fetch.
//   adaptive  each page's change rate estimated from its own history with
//             Cho & Garcia-Molina's estimator for a Poisson process seen at
//             regular visits ("Estimating frequency of change", ACM TOIT
//             3(3), 2003, section 4.1, the improved estimator):
//               r̂ = -log((n - X + 0.5) / (n + 0.5))   changes per interval,
//             X changes detected in n revisits at a mean interval I; the next
//             interval is I / r̂ (one expected change), bounded by
//             [revisit_min, revisit_max]. X = 0 gives r̂ = 0: revisit_max;
//             X = n gives I / log(2n + 1), shorter at each visit. Before
//             the first revisit (nothing to estimate from) the interval is
//             sqrt(min * max), the middle of the range on a log scale.
//
// Due times are spread: the interval is multiplied by a factor drawn
// uniformly in [1 - jitter, 1 + jitter] (then bounded again), so pages
// fetched in one burst are not all due at the same instant; and a due time is
// never before `now`.
//
// Example:
//   sieve::RevisitOptions o{.mode = sieve::RevisitMode::kAdaptive,
//                           .min = absl::Seconds(60), .max = absl::Hours(24)};
//   std::optional<bool> changed = sieve::RecordFetch(history, seen);
//   history.next_due = sieve::NextDue(o, history, absl::Now(), gen);
#ifndef SIEVE_CRAWLER_CRAWL_REVISIT_POLICY_H_
#define SIEVE_CRAWLER_CRAWL_REVISIT_POLICY_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/crawl/url_history.h"

namespace sieve {

enum class RevisitMode { kOff, kFixed, kAdaptive };

// Every mode, in the order help texts list them.
std::span<const RevisitMode> AllRevisitModes();
// "off", "fixed", "adaptive".
std::string_view RevisitModeName(RevisitMode mode);
// Inverse of RevisitModeName; InvalidArgument naming the accepted names.
absl::StatusOr<RevisitMode> ParseRevisitMode(std::string_view name);

struct RevisitOptions {
  // Default: off.
  RevisitMode mode = RevisitMode::kOff;
  // The shortest interval, and fixed mode's only one. REQUIRES: > 0.
  // Default: 1 hour.
  absl::Duration min = absl::Hours(1);
  // The longest interval (adaptive). REQUIRES: >= min. Default: 30 days.
  absl::Duration max = absl::Hours(24 * 30);
  // Spread of due times: the interval times U[1 - jitter, 1 + jitter].
  // REQUIRES: 0 <= jitter < 1. Default: 0.1.
  double jitter = 0.1;
};

// One fetch of a URL as the history needs it.
struct FetchSeen {
  absl::Time at;              // When the request started.
  bool not_modified = false;  // A 304 to a conditional request.
  std::string digest = {};    // Payload digest of a 2xx body.
  std::string etag = {};      // Validators of a 2xx answer.
  std::string last_modified = {};
};

// Adds `seen` to `history` (fetches, changes, times, validators, digest).
// Returns whether the page changed since the last fetch: nullopt on the
// first fetch; false for a 304, or a 2xx whose digest is the last one
// (validators alone never say "changed": a server may send a new ETag for
// the same bytes); true otherwise. Cost: O(1).
std::optional<bool> RecordFetch(UrlHistory& history, const FetchSeen& seen);

// The interval before the next visit, from the mode and the history (after
// RecordFetch), bounded by [min, max], before jitter. Cost: O(1).
absl::Duration NextInterval(const RevisitOptions& options,
                            const UrlHistory& history);

// last_fetch + NextInterval with jitter, bounded by [min, max] after
// last_fetch, and not before `now`. Sets nothing. Cost: O(1).
absl::Time NextDue(const RevisitOptions& options, const UrlHistory& history,
                   absl::Time now, absl::BitGenRef gen);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CRAWL_REVISIT_POLICY_H_
