// crawler/policy/revisit_policy.h: when a fetched URL is due again
// (crawl.revisit): the revisit modes, what one fetch teaches a URL's history
// (changed or not), and the next interval.
//
//   off       no revisits: the crawl ends when nothing new is left.
//   fixed     every page again revisit_min after its last fetch.
//   adaptive  each page's change rate λ estimated from its own history, and
//             its interval the one Cho & Garcia-Molina's optimal allocation
//             of the bandwidth gives that rate (revisit_budget.h): pages
//             that change faster than the budget can follow are left for
//             revisit_max, the budget goes to those it can keep fresh.
//
// The estimate of λ (EstimateChangeRate), changes per second:
//   - From the server's Last-Modified dates, when it sends them and they
//     agree with the content. For a Poisson process the likelihood of what
//     the dates show is λ^k e^(-λT): k changes whose time is known (the
//     first fetch's date counts as one), T the time known to have passed
//     without a change (from each such date, or from the last fetch when the
//     page was unchanged, to the fetch; at least 0.5 s a date, the dates
//     having one-second resolution). The estimate is the median of λ's
//     posterior under the scale-free prior 1/λ, Gamma(k, T):
//       λ̂ = (k - 1/3 + 8 / (405 k)) / T
//     (Choi, "Medians of gamma distributions and an equation of Ramanujan",
//     Proc. AMS 121(1), 1994; for k = 1 it is 0.686 / T, the exact median
//     ln 2 / T = 0.693 / T), a little below the maximum-likelihood k / T: a
//     slow page mistaken for a fast one after one date would not be visited
//     again for revisit_max, a fast one mistaken for a slow one is
//     corrected at its next visit.
//   - Otherwise (no dates, or a date that moved while the bytes did not, or
//     stayed while they changed): Cho & Garcia-Molina's estimator for a
//     Poisson process seen at regular visits ("Estimating frequency of
//     change", ACM TOIT 3(3), 2003, section 4.1, the improved estimator)
//       r̂ = -log((n - X + 0.5) / (n + 0.5))   changes per interval,
//     X changes detected in n revisits at a mean interval I: λ̂ = r̂ / I.
//     X = 0 gives λ̂ = 0 (revisit_max); it saturates at X = n, where it
//     cannot tell a page changing at every visit from one changing faster.
//   - Neither (a first fetch without a date): no estimate; the interval is
//     sqrt(min * max), the middle of the range on a log scale.

// Due times are spread: the interval is multiplied by a factor drawn
// uniformly in [1 - jitter, 1 + jitter] (then bounded again), so pages
// fetched in one burst are not all due at the same instant; and a due time is
// never before `now`.
//
// Example:
//   sieve::RevisitOptions o{.mode = sieve::RevisitMode::kAdaptive,
//                           .min = absl::Seconds(60), .max = absl::Hours(24)};
//   sieve::RevisitBudget budget({.min = o.min, .max = o.max});
//   std::optional<bool> changed = sieve::RecordFetch(history, seen);
//   budget.Update(host, std::nullopt, sieve::EstimateChangeRate(history));
//   budget.Solve();
//   history.next_due = sieve::NextDue(o, history, budget, absl::Now(), gen);
#ifndef SIEVE_CRAWLER_POLICY_REVISIT_POLICY_H_
#define SIEVE_CRAWLER_POLICY_REVISIT_POLICY_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/policy/revisit_budget.h"
#include "crawler/policy/url_history.h"

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

// Adds `seen` to `history` (fetches, changes, times, validators, digest, and
// the Last-Modified evidence EstimateChangeRate reads). Returns whether the
// page changed since the last fetch: nullopt on the first fetch; false for
// a 304, or a 2xx whose digest is the last one (validators alone never say
// "changed": a server may send a new ETag for the same bytes); true
// otherwise. Cost: O(1).
std::optional<bool> RecordFetch(UrlHistory& history, const FetchSeen& seen);

// The page's change rate, changes per second, as the file comment says;
// nullopt when nothing is known yet. Cost: O(1).
std::optional<double> EstimateChangeRate(const UrlHistory& history);

// The interval before the next visit, from the mode, the history (after
// RecordFetch) and, in adaptive mode, the budget's last Solve, bounded by
// [min, max], before jitter. Cost: O(1).
absl::Duration NextInterval(const RevisitOptions& options,
                            const UrlHistory& history,
                            const RevisitBudget& budget);

// last_fetch + NextInterval with jitter, bounded by [min, max] after
// last_fetch, and not before `now`. Sets nothing. Cost: O(1).
absl::Time NextDue(const RevisitOptions& options, const UrlHistory& history,
                   const RevisitBudget& budget, absl::Time now,
                   absl::BitGenRef gen);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_REVISIT_POLICY_H_
