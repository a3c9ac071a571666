#include "filter/bloom_math.h"

#include <cmath>
#include <limits>

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

}  // namespace sieve
