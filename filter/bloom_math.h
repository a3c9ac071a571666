// filter/bloom_math.h: every Bloom-filter formula the filters use, in one
// place. Nothing else re-derives them. Sources are named beside each formula in
// bloom_math.cc.
//
// Rules of thumb (classic filter): 9.59 bits and 7 hashes per key give 1 %
// false positives; each tenfold drop in the rate costs 4.79 more bits per key.
// The lower bound for any structure is log2(1/p) bits per key; a classic Bloom
// filter uses 1.44x that.
//
// Example:
//   absl::StatusOr<sieve::BloomParams> p =
//       sieve::BloomMath::OptimalParams(1'000'000, 0.01);
//   // p->bits == 9'585'059, p->hashes == 7
//   double fpr =  // 8.9e-5
//       sieve::BloomMath::FalsePositiveRate(20'000'000, 10, 1'000'000);
#ifndef SIEVE_FILTER_BLOOM_MATH_H_
#define SIEVE_FILTER_BLOOM_MATH_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace sieve {

// A filter's size: m bits (or counters) and k hashes per key.
struct BloomParams {
  uint64_t bits = 0;
  uint32_t hashes = 0;
};

class BloomMath {
 public:
  // Largest bit array accepted: 2^50 bits (128 TiB), what a 47-bit user address
  // space can hold.
  static constexpr uint64_t kMaxBits = uint64_t{1} << 50;
  // Bits in one block of the blocked filter: a 64-byte cache line.
  static constexpr uint32_t kBlockBits = 512;

  // Classic filter for `capacity` keys at false-positive rate `fp_rate`:
  // m = -n ln p / (ln 2)^2, k = round((m/n) ln 2). InvalidArgument for capacity
  // 0, fp_rate outside (0, 1), or m past kMaxBits. Cost: O(1).
  static absl::StatusOr<BloomParams> OptimalParams(uint64_t capacity,
                                                   double fp_rate);

  // Blocked filter (512-bit blocks) for `capacity` keys at `fp_rate`, sized
  // from BlockedFalsePositiveRate so the rate asked for is the rate obtained.
  // `bits` is a multiple of 512. Same errors as OptimalParams. Cost: ~1 ms (a
  // search over k and bits per key).
  static absl::StatusOr<BloomParams> OptimalBlockedParams(uint64_t capacity,
                                                          double fp_rate);

  // Checks capacity > 0 and 0 < fp_rate < 1 (InvalidArgument naming the bad
  // value otherwise).
  static absl::Status ValidateSizing(uint64_t capacity, double fp_rate);

  // Classic filter with m bits and k hashes holding n keys: (1 - e^(-kn/m))^k.
  static double FalsePositiveRate(uint64_t bits, uint32_t hashes, double keys);

  // Blocked filter: the classic formula inside each 512-bit block, averaged
  // over the Poisson distribution of keys per block (Putze, Sanders, Singler
  // 2007, eq. for "blocked Bloom").
  static double BlockedFalsePositiveRate(uint64_t bits, uint32_t hashes,
                                         double keys);

  // Rate of a filter whose fraction `fill` of bits is set: fill^k (each probe
  // lands on a set bit).
  static double FalsePositiveRateAtFill(double fill, uint32_t hashes);

  // Swamidass & Baldi (2007) count estimate from X set bits: n = -(m/k) ln(1 -
  // X/m). A full filter (X == m) returns +infinity.
  static double EstimateCount(uint64_t bits, uint32_t hashes,
                              uint64_t set_bits);

  // Expected set bits after n keys: m (1 - e^(-kn/m)), the inverse of
  // EstimateCount.
  static double ExpectedSetBits(uint64_t bits, uint32_t hashes, double keys);
};

}  // namespace sieve

#endif  // SIEVE_FILTER_BLOOM_MATH_H_
