#include "filter/bloom_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"

namespace sieve {
namespace {

constexpr double kLn2 = 0.69314718055994530942;

// Smallest bits-per-key c such that a blocked filter with k hashes reaches
// `fp_rate`, or infinity. The blocked rate depends only on c (keys per block is
// 512 / c), so the search is size-free.
double BlockedBitsPerKey(uint32_t hashes, double fp_rate) {
  constexpr double kKeys = 1e6;  // any n works: only the ratio m/n matters
  auto rate_at = [&](double c) {
    return BloomMath::BlockedFalsePositiveRate(static_cast<uint64_t>(c * kKeys),
                                               hashes, kKeys);
  };
  double low = 1.0;
  double high = 4096.0;
  if (rate_at(high) > fp_rate) return std::numeric_limits<double>::infinity();
  for (int i = 0; i < 32; ++i) {  // bisection to under 10^-5 bits per key
    const double mid = (low + high) / 2;
    (rate_at(mid) <= fp_rate ? high : low) = mid;
  }
  return high;
}

// P(Binomial(n, r) >= k) for k >= 1, n counted down to a whole number: one
// minus the first k terms, each from the one before (C(n, i) r^i (1-r)^(n-i)
// in log space, so n up to 10^18 neither overflows nor loses the small terms).
double BinomialTailAtLeast(double n, double r, uint32_t k) {
  n = std::floor(n);
  if (n < k || r <= 0) return 0.0;
  if (r >= 1) return 1.0;
  const double log_odds = std::log(r) - std::log1p(-r);
  double log_term = n * std::log1p(-r);  // i = 0: (1 - r)^n
  double below = 0;
  for (uint32_t i = 0; i < k; ++i) {
    if (i > 0) log_term += std::log((n - i + 1) / i) + log_odds;
    below += std::exp(log_term);
  }
  return std::clamp(1.0 - below, 0.0, 1.0);
}

// One cell in one insert (Deng & Rafiei's model): set to Max with probability
// `set` = K/m; otherwise decremented with probability P/m, so `dec` = (1 -
// K/m) P/m; `max` = 2^d - 1.
struct CellRates {
  double set;
  double dec;
  uint32_t max;
};

CellRates RatesOf(const StableParams& p) {
  const double m = static_cast<double>(p.cells);
  const double set = p.hashes / m;
  return {.set = set,
          .dec = (1 - set) * p.decrements / m,
          .max = (uint32_t{1} << p.cell_bits) - 1};
}

// Probability that the Max-th decrement of a cell comes before its next set,
// looking back from now: each insert is a set (s), a decrement (d) or neither,
// so the first Max events that are not "neither" are all decrements with
// probability (d / (d + s))^Max -- the paper's stable-point limit, since d / (d
// + s) = 1 / (1 + 1/(P (1/K - 1/m))).
double AllDecrementsFirst(const CellRates& r) {
  return std::pow(r.dec / (r.dec + r.set), r.max);
}

}  // namespace

absl::Status BloomMath::ValidateSizing(uint64_t capacity, double fp_rate) {
  if (capacity == 0)
    return absl::InvalidArgumentError("filter capacity must be > 0, got 0");
  if (!(fp_rate > 0.0 && fp_rate < 1.0)) {  // also rejects NaN
    return absl::InvalidArgumentError(
        absl::StrCat("filter fp_rate must be in (0, 1), got ", fp_rate));
  }
  return absl::OkStatus();
}

absl::StatusOr<BloomParams> BloomMath::OptimalParams(uint64_t capacity,
                                                     double fp_rate) {
  if (absl::Status s = ValidateSizing(capacity, fp_rate); !s.ok()) return s;
  const double n = static_cast<double>(capacity);
  const double bits =
      std::ceil(-n * std::log(fp_rate) / (kLn2 * kLn2));  // m = -n ln p / ln²2
  if (bits > static_cast<double>(kMaxBits)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "filter for ", capacity, " keys at fp_rate ", fp_rate, " needs ", bits,
        " bits, past the addressable maximum of ", kMaxBits));
  }
  const double hashes = std::round(bits / n * kLn2);  // k = (m/n) ln 2
  return BloomParams{.bits = static_cast<uint64_t>(bits),
                     .hashes = static_cast<uint32_t>(std::max(1.0, hashes))};
}

absl::StatusOr<BloomParams> BloomMath::OptimalBlockedParams(uint64_t capacity,
                                                            double fp_rate) {
  if (absl::Status s = ValidateSizing(capacity, fp_rate); !s.ok()) return s;
  // Try every k near the classic optimum and keep the one needing the fewest
  // bits per key.
  double best_bits_per_key = std::numeric_limits<double>::infinity();
  uint32_t best_hashes = 1;
  const double classic_k = -std::log2(fp_rate);
  const uint32_t max_k = static_cast<uint32_t>(std::ceil(classic_k)) + 2;
  const uint32_t min_k = max_k > 7 ? max_k - 7 : 1;
  for (uint32_t k = min_k; k <= max_k; ++k) {
    const double c = BlockedBitsPerKey(k, fp_rate);
    if (c < best_bits_per_key) {
      best_bits_per_key = c;
      best_hashes = k;
    }
  }
  const double blocks =
      std::ceil(best_bits_per_key * static_cast<double>(capacity) / kBlockBits);
  if (!std::isfinite(blocks) ||
      blocks * kBlockBits > static_cast<double>(kMaxBits)) {
    return absl::InvalidArgumentError(
        absl::StrCat("blocked filter for ", capacity, " keys at fp_rate ",
                     fp_rate, " is past the addressable maximum of ", kMaxBits,
                     " bits (try the classic kind)"));
  }
  return BloomParams{.bits = static_cast<uint64_t>(blocks) * kBlockBits,
                     .hashes = best_hashes};
}

double BloomMath::FalsePositiveRate(uint64_t bits, uint32_t hashes,
                                    double keys) {
  // (1 - e^(-kn/m))^k: Bloom 1970; the standard approximation (Broder &
  // Mitzenmacher 2004).
  const double k = hashes;
  return std::pow(-std::expm1(-k * keys / static_cast<double>(bits)), k);
}

double BloomMath::BlockedFalsePositiveRate(uint64_t bits, uint32_t hashes,
                                           double keys) {
  // Putze, Sanders, Singler, "Cache-, Hash- and Space-Efficient Bloom Filters"
  // (2007), §3: FPR = sum_i Poisson(i; λ) * f(B, k, i) with λ = n B / m keys
  // per block on average and f(B, k, i) = (1 - (1 - 1/B)^(k i))^k, the rate of
  // a B-bit filter holding i keys whose k probes are drawn independently (with
  // replacement), as ours are.
  const double block = kBlockBits;
  const double lambda = keys * block / static_cast<double>(bits);
  const double log_keep = std::log1p(-1.0 / block) * hashes;  // ln (1 - 1/B)^k
  const double last = lambda + 20.0 * std::sqrt(lambda) + 20.0;
  double poisson = std::exp(-lambda);  // Poisson(0; λ)
  double sum = 0;
  for (double i = 0; i <= last; ++i) {
    sum += poisson * std::pow(-std::expm1(log_keep * i), hashes);
    poisson *= lambda / (i + 1);
  }
  return sum;
}

double BloomMath::FalsePositiveRateAtFill(double fill, uint32_t hashes) {
  return std::pow(fill, hashes);
}

double BloomMath::EstimateCount(uint64_t bits, uint32_t hashes,
                                uint64_t set_bits) {
  // Swamidass & Baldi, "Mathematical correction for fingerprint similarity
  // measures" (2007).
  const double m = static_cast<double>(bits);
  return -(m / hashes) * std::log1p(-static_cast<double>(set_bits) / m);
}

double BloomMath::ExpectedSetBits(uint64_t bits, uint32_t hashes, double keys) {
  const double m = static_cast<double>(bits);
  return -m * std::expm1(-static_cast<double>(hashes) * keys / m);
}

double BloomMath::StableZeroProbability(const StableParams& p, double inserts) {
  // A cell is 0 after N inserts when it was never set in them (it starts at
  // 0), or when Max decrements came after its last set (looking back: before
  // the first set), within the N inserts. The second event is "the first Max
  // events that are not 'neither' are decrements" (AllDecrementsFirst) and
  // "there are at least Max such events in N inserts" (a binomial tail with
  // rate s + d), independent. Their overlap, never set and at least Max
  // decrements, is removed once. As N grows this tends to the paper's limit.
  const CellRates r = RatesOf(p);
  if (std::isinf(inserts)) return AllDecrementsFirst(r);
  const double never_set = std::exp(inserts * std::log1p(-r.set));
  const double decremented_out =
      AllDecrementsFirst(r) *
      BinomialTailAtLeast(inserts, r.dec + r.set, r.max);
  const double both =
      never_set * BinomialTailAtLeast(inserts, r.dec / (1 - r.set), r.max);
  return std::clamp(never_set + decremented_out - both, 0.0, 1.0);
}

double BloomMath::StableFalsePositiveRate(const StableParams& p,
                                          double inserts) {
  // A key never inserted is reported present when its K cells are all
  // nonzero: (1 - Pr(0))^K, the paper's FPS at the stable point.
  return std::pow(1 - StableZeroProbability(p, inserts), p.hashes);
}

double BloomMath::StableForgetProbability(const StableParams& p, double age) {
  // The key's cell was set to Max `age` inserts ago; it is 0 now when Max
  // decrements came after its last set within those inserts (a later set by
  // another key restarts it): AllDecrementsFirst times the binomial tail, as
  // in StableZeroProbability but with no "never set" case. The K cells are
  // taken as independent, as in the paper.
  const CellRates r = RatesOf(p);
  const double zero =
      AllDecrementsFirst(r) * BinomialTailAtLeast(age, r.dec + r.set, r.max);
  return -std::expm1(p.hashes * std::log1p(-zero));
}

double BloomMath::StableHalfLife(const StableParams& p) {
  // Forgetting grows with age towards 1 - FPS; bisect on a log scale.
  if (StableForgetProbability(p, 1e18) < 0.5)
    return std::numeric_limits<double>::infinity();
  double low = 0;  // log2 of the age
  double high = 60;
  for (int i = 0; i < 60; ++i) {
    const double mid = (low + high) / 2;
    (StableForgetProbability(p, std::exp2(mid)) < 0.5 ? low : high) = mid;
  }
  return std::exp2(high);
}

absl::StatusOr<double> BloomMath::StableDecrementsFor(uint64_t cells,
                                                      uint32_t cell_bits,
                                                      uint32_t hashes,
                                                      double fp_rate) {
  if (!(fp_rate > 0.0 && fp_rate < 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("filter fp_rate must be in (0, 1), got ", fp_rate));
  }
  if (cell_bits < 1 || cell_bits > 8 || hashes < 1 || hashes >= cells) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stable filter needs 1 <= d <= 8 and 1 <= K < m, got d=", cell_bits,
        " K=", hashes, " m=", cells));
  }
  // FPS = (1 - A)^K with A = Pr(0) at the stable point, so A = 1 -
  // FPS^(1/K); and A^(1/Max) = 1 / (1 + 1/(P (1/K - 1/m))), solved for P.
  const double max = (uint32_t{1} << cell_bits) - 1;
  const double zero = -std::expm1(std::log(fp_rate) / hashes);
  const double per_decrement = std::pow(zero, -1.0 / max) - 1;
  const double p =
      1.0 / (per_decrement * (1.0 / hashes - 1.0 / static_cast<double>(cells)));
  if (!(p > 0) || p > static_cast<double>(cells)) {
    return absl::InvalidArgumentError(
        absl::StrCat("no decrement count P gives fp_rate ", fp_rate,
                     " with d=", cell_bits, " K=", hashes, " m=", cells));
  }
  return p;
}

absl::StatusOr<StableParams> BloomMath::OptimalStableParams(
    uint64_t memory_bits, double fp_rate) {
  if (memory_bits < 64 || memory_bits > kMaxBits) {
    return absl::InvalidArgumentError(
        absl::StrCat("stable filter memory must be 64 bits to ", kMaxBits,
                     " bits, got ", memory_bits));
  }
  std::optional<StableParams> best;
  double best_half_life = -1;
  for (uint32_t d = 1; d <= 4; ++d) {
    const uint64_t cells = memory_bits / 64 * (64 / d);  // whole words
    for (uint32_t k = 1; k <= 16 && k < cells; ++k) {
      absl::StatusOr<double> p = StableDecrementsFor(cells, d, k, fp_rate);
      if (!p.ok()) continue;
      const StableParams shape{
          .cells = cells, .cell_bits = d, .hashes = k, .decrements = *p};
      const double half_life = StableHalfLife(shape);
      if (half_life > best_half_life) {
        best = shape;
        best_half_life = half_life;
      }
    }
  }
  if (!best) {
    return absl::InvalidArgumentError(
        absl::StrCat("no stable filter of ", memory_bits,
                     " bits reaches fp_rate ", fp_rate));
  }
  return *best;
}

}  // namespace sieve
