// crawler/policy/revisit_budget.h: how often each page is revisited when the
// bandwidth cannot revisit every page as soon as it changes (crawl.revisit
// adaptive). The allocation is Cho & Garcia-Molina's optimal one ("Effective
// page refresh policies for Web crawlers", ACM TODS 28(4), 2003):
//
//   A page changing as a Poisson process of rate λ and revisited every 1/f
//   seconds is fresh (its copy equals the live page) a share of the time
//     F(λ, f) = (f / λ) (1 - e^(-λ/f))                             (Eq. F)
//   Maximising the sum of F over the pages under a budget of requests per
//   second gives every revisited page the same marginal freshness
//     ∂F/∂f = (1 - (1 + x) e^(-x)) / λ = μ,   x = λ / f            (Eq. L)
//   and a page with 1/λ <= μ (it changes faster than the budget can follow)
//   is not worth revisiting at all: it gets revisit_max.
//
// The budget binds twice: each host allows one request per its delay between
// requests (politeness.delay, raised by the host's robots.txt Crawl-delay up
// to politeness.max_crawl_delay: frontier/politeness.h, DelayBetweenRequests),
// all hosts together politeness.max_requests_per_second. By the
// Karush-Kuhn-Tucker conditions each host's pages share one multiplier
// max(μ, μ_h), μ_h being the one that spends exactly its host's allowance
// and μ the one that spends the crawl's; with neither binding μ = 0 and
// Eq. L gives revisit_min. Intervals are bounded by [revisit_min,
// revisit_max], and those bounds count in the sums.
//
// The rates are the crawl's estimates (revisit_policy.h, EstimateChangeRate),
// kept per host as a histogram of kRateBins bins on a log scale from 1e-8 to
// 1e3 changes per second (a factor of 1.22 a bin; a host holds only the bins
// its pages use, 8 bytes each); Solve finds μ_h and μ by bisection on the
// histograms, so what it spends is within a bin's width of the budget.
//
// Example:
//   sieve::RevisitBudget budget({.crawl_requests_per_second = 20,
//                                .host_requests_per_second = 10,
//                                .min = absl::Seconds(1),
//                                .max = absl::Seconds(600)});
//   budget.Update("a.example", std::nullopt, 0.1);  // a page seen once
//   budget.Solve();
//   absl::Duration next = budget.Interval("a.example", 0.1);
#ifndef SIEVE_CRAWLER_POLICY_REVISIT_BUDGET_H_
#define SIEVE_CRAWLER_POLICY_REVISIT_BUDGET_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"

namespace sieve {

class RevisitBudget {
 public:
  static constexpr int kRateBins = 128;

  struct Options {
    // Requests per second all hosts together may take; 0 = no cap.
    // REQUIRES: >= 0. Default: 0.
    double crawl_requests_per_second = 0;
    // Requests per second a host may take unless SetHostAllowance says
    // otherwise (1 / politeness.delay); 0 = no cap. REQUIRES: >= 0.
    // Default: 0.
    double host_requests_per_second = 0;
    // The interval bounds (crawl.revisit_min, crawl.revisit_max).
    // REQUIRES: 0 < min <= max. Default: 1 hour, 30 days.
    absl::Duration min = absl::Hours(1);
    absl::Duration max = absl::Hours(24 * 30);
  };

  explicit RevisitBudget(const Options& options);

  // Moves one page of `host` from the rate it was counted with (nullopt: it
  // was not) to `rate` (nullopt: no longer counted), in changes per second.
  // Takes effect at the next Solve. Cost: O(1).
  void Update(std::string_view host, std::optional<double> old_rate,
              std::optional<double> new_rate);

  // Sets the requests per second `host` may take, in place of
  // Options::host_requests_per_second (1 / the host's own delay, once its
  // robots.txt names a Crawl-delay); 0 = no cap. Kept for the budget's life,
  // also for a host with no page counted yet (its name and a double).
  // REQUIRES: >= 0. Takes effect at the next Solve. Cost: O(1).
  void SetHostAllowance(std::string_view host, double requests_per_second);

  // Finds μ_h for the hosts whose counts or allowance changed since the last
  // call, then μ.
  // Cost: O(changed hosts x bins x 60 + capped hosts x bins + bins x 60).
  void Solve();

  // The interval Eq. L gives a page of `host` changing `rate` times a
  // second, with the multipliers of the last Solve, within [min, max].
  // Cost: O(1) (a table lookup for the inverse of Eq. L).
  absl::Duration Interval(std::string_view host, double rate) const;

  // The crawl-wide multiplier μ (0 when the crawl's cap does not bind).
  double multiplier() const { return mu_; }
  // Revisits per second the allocation of the last Solve spends.
  double spent() const { return spent_; }

 private:
  struct Host {
    std::vector<std::pair<uint32_t, uint32_t>> bins;  // (bin, pages), sorted.
    double mu = 0;  // μ_h; 0 when the host's allowance does not bind.
    bool dirty = false;
  };

  // Revisits per second of a page of rate `rate` at multiplier `mu`.
  double Frequency(double rate, double mu) const;
  // Revisits per second of the pages counted in `counts` (kRateBins) at
  // `mu`, and of a host's pages.
  double Frequencies(const double* counts, double mu) const;
  double Frequencies(const Host& host, double mu) const;
  // The μ in [0, 1 / smallest rate] at which `spend(μ)` (decreasing) equals
  // `cap`; 0 if it is below `cap` at μ = 0.
  template <typename Spend>
  double SolveFor(double cap, const Spend& spend) const;

  // The allowance of `host`: its own, or Options::host_requests_per_second.
  double AllowanceOf(std::string_view host) const;

  Options options_;
  absl::flat_hash_map<std::string, Host> hosts_;
  // Hosts whose allowance is their own (a robots.txt Crawl-delay), with it.
  absl::flat_hash_map<std::string, double> allowances_;
  double mu_ = 0;
  double spent_ = 0;
};

// The requests per second a host allows when its requests start `delay`
// apart: 1 / delay, or 0 (no cap) for a delay of zero. Cost: O(1).
double RequestsPerSecondAt(absl::Duration delay);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_POLICY_REVISIT_BUDGET_H_
