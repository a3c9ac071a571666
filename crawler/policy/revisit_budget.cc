#include "crawler/policy/revisit_budget.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/string_view.h"

namespace sieve {
namespace {

// The histogram's range of rates, changes per second: one change in three
// years to a thousand a second.
constexpr double kLogLowestRate = -18.420680743952367;  // ln 1e-8
constexpr double kLogHighestRate = 6.907755278982137;   // ln 1e3
constexpr double kBinWidth =
    (kLogHighestRate - kLogLowestRate) / RevisitBudget::kRateBins;

// A page is not revisited before it has changed with probability 10 % at its
// estimated rate: the interval is at least -ln(0.9) / λ, so a page that does
// not change is left alone even when the budget would allow more.
constexpr double kLeastChangeOdds = 0.10536051565782628;  // -ln 0.9

// The multipliers searched, on a log scale.
constexpr double kLogLowestMu = -69.07755278982137;  // ln 1e-30
constexpr int kBisections = 60;

uint32_t BinOf(double rate) {
  if (!(rate > 0)) return 0;
  const int b = static_cast<int>((std::log(rate) - kLogLowestRate) / kBinWidth);
  return static_cast<uint32_t>(std::clamp(b, 0, RevisitBudget::kRateBins - 1));
}

double CenterOf(uint32_t bin) {
  return std::exp(kLogLowestRate + (bin + 0.5) * kBinWidth);
}

// Eq. L's left side times λ: g(x) = 1 - (1 + x) e^(-x), increasing from 0 to
// 1; written with expm1 so that small x keeps its precision.
double MarginalTimesRate(double x) {
  return -std::expm1(-x) - x * std::exp(-x);
}

// The x > 0 with g(x) = y, for 0 < y < 1: Newton's method (g'(x) = x e^(-x))
// inside a bracket that bisection keeps when a step leaves it.
double InverseOfEqL(double y) {
  double lo = 0, hi = 1;
  while (MarginalTimesRate(hi) < y && hi < 1e3) hi *= 2;
  // g(x) ~ x^2 / 2 for small x.
  double x = std::clamp(std::sqrt(2 * y), hi / 1e9, hi / 2);
  for (int i = 0; i < 100; ++i) {
    const double excess = MarginalTimesRate(x) - y;
    if (excess < 0) {
      lo = x;
    } else {
      hi = x;
    }
    double next = x - excess / (x * std::exp(-x));
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::abs(next - x) <= 1e-12 * x) return next;
    x = next;
  }
  return x;
}

}  // namespace

RevisitBudget::RevisitBudget(const Options& options) : options_(options) {}

void RevisitBudget::Update(std::string_view host,
                           std::optional<double> old_rate,
                           std::optional<double> new_rate) {
  if (old_rate.has_value() == new_rate.has_value() &&
      (!old_rate || BinOf(*old_rate) == BinOf(*new_rate))) {
    return;
  }
  Host& h = hosts_[std::string(host)];
  auto find = [&](uint32_t bin) {
    return std::lower_bound(h.bins.begin(), h.bins.end(), bin,
                            [](const std::pair<uint32_t, uint32_t>& e,
                               uint32_t b) { return e.first < b; });
  };
  if (old_rate) {
    auto it = find(BinOf(*old_rate));
    if (it != h.bins.end() && it->first == BinOf(*old_rate) &&
        --it->second == 0) {
      h.bins.erase(it);
    }
  }
  if (new_rate) {
    const uint32_t bin = BinOf(*new_rate);
    auto it = find(bin);
    if (it != h.bins.end() && it->first == bin) {
      ++it->second;
    } else {
      h.bins.insert(it, {bin, 1});
    }
  }
  if (h.bins.empty()) {
    hosts_.erase(std::string(host));
  } else {
    h.dirty = true;
  }
}

void RevisitBudget::SetHostAllowance(std::string_view host,
                                     double requests_per_second) {
  allowances_[std::string(host)] = requests_per_second;
  if (auto it = hosts_.find(absl::string_view(host.data(), host.size()));
      it != hosts_.end()) {
    it->second.dirty = true;
  }
}

double RevisitBudget::AllowanceOf(std::string_view host) const {
  auto it = allowances_.find(absl::string_view(host.data(), host.size()));
  return it != allowances_.end() ? it->second
                                 : options_.host_requests_per_second;
}

double RevisitBudget::Frequency(double rate, double mu) const {
  const double most = 1 / absl::ToDoubleSeconds(options_.min);
  const double least = 1 / absl::ToDoubleSeconds(options_.max);
  if (!(rate > 0)) return least;  // Never seen to change.
  double f = rate / kLeastChangeOdds;
  if (mu > 0) {
    const double y = mu * rate;
    if (y >= 1) return least;  // Changes faster than the budget follows.
    f = std::min(f, rate / InverseOfEqL(y));
  }
  return std::clamp(f, least, std::max(least, most));
}

double RevisitBudget::Frequencies(const double* counts, double mu) const {
  double sum = 0;
  for (int b = 0; b < kRateBins; ++b) {
    if (counts[b] > 0) sum += counts[b] * Frequency(CenterOf(b), mu);
  }
  return sum;
}

double RevisitBudget::Frequencies(const Host& host, double mu) const {
  double sum = 0;
  for (const auto& [bin, pages] : host.bins)
    sum += pages * Frequency(CenterOf(bin), mu);
  return sum;
}

template <typename Spend>
double RevisitBudget::SolveFor(double cap, const Spend& spend) const {
  if (!(cap > 0) || spend(0) <= cap) return 0;
  // At 1 / (the smallest rate) every page is at revisit_max: nothing spends
  // less, so that is the answer when even it is over the cap.
  const double log_highest = -std::log(CenterOf(0));
  if (spend(std::exp(log_highest)) >= cap) return std::exp(log_highest);
  double lo = kLogLowestMu, hi = log_highest;
  for (int i = 0; i < kBisections; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (spend(std::exp(mid)) > cap) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return std::exp(hi);
}

void RevisitBudget::Solve() {
  // Each host's own multiplier, where its counts changed.
  for (auto& [name, h] : hosts_) {
    if (!h.dirty) continue;
    h.dirty = false;
    h.mu = SolveFor(AllowanceOf(name),
                    [&](double mu) { return Frequencies(h, mu); });
  }
  // The crawl's: a host whose μ_h is above μ spends its allowance; the
  // others spend at μ. Hosts sorted by μ_h, with running sums of counts.
  std::vector<double> free(kRateBins, 0.0);
  struct Capped {
    double mu;
    const Host* host;
  };
  std::vector<Capped> capped;
  for (const auto& [name, h] : hosts_) {
    if (h.mu > 0) {
      capped.push_back({h.mu, &h});
    } else {
      for (const auto& [bin, pages] : h.bins) free[bin] += pages;
    }
  }
  std::sort(capped.begin(), capped.end(),
            [](const Capped& a, const Capped& b) { return a.mu < b.mu; });
  // prefix[j]: the counts of the first j capped hosts plus the free ones;
  // allowance[j]: what capped hosts j.. spend at their own μ_h.
  std::vector<double> prefix((capped.size() + 1) * kRateBins);
  std::copy(free.begin(), free.end(), prefix.begin());
  std::vector<double> allowance(capped.size() + 1, 0.0);
  for (size_t j = 0; j < capped.size(); ++j) {
    std::copy_n(&prefix[j * kRateBins], kRateBins,
                &prefix[(j + 1) * kRateBins]);
    for (const auto& [bin, pages] : capped[j].host->bins)
      prefix[(j + 1) * kRateBins + bin] += pages;
  }
  for (size_t j = capped.size(); j-- > 0;) {
    allowance[j] =
        allowance[j + 1] + Frequencies(*capped[j].host, capped[j].mu);
  }
  auto spend = [&](double mu) {
    const size_t j =
        std::upper_bound(capped.begin(), capped.end(), mu,
                         [](double m, const Capped& c) { return m < c.mu; }) -
        capped.begin();
    return Frequencies(&prefix[j * kRateBins], mu) + allowance[j];
  };
  mu_ = SolveFor(options_.crawl_requests_per_second, spend);
  spent_ = spend(mu_);
}

absl::Duration RevisitBudget::Interval(std::string_view host,
                                       double rate) const {
  double mu = mu_;
  if (auto it = hosts_.find(absl::string_view(host.data(), host.size()));
      it != hosts_.end())
    mu = std::max(mu, it->second.mu);
  const absl::Duration interval = absl::Seconds(1 / Frequency(rate, mu));
  return std::clamp(interval, options_.min,
                    std::max(options_.min, options_.max));
}

double RequestsPerSecondAt(absl::Duration delay) {
  return delay > absl::ZeroDuration() ? 1 / absl::ToDoubleSeconds(delay) : 0;
}

}  // namespace sieve
