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

// A stable Bloom filter's shape (Deng & Rafiei 2006): m cells of d bits (Max =
// 2^d - 1), K cells set to Max per insert after P cells are decremented.
// `decrements` may be fractional: the filter decrements floor(P) cells and one
// more with probability P - floor(P), so P is met on average.
struct StableParams {
  uint64_t cells = 0;      // m
  uint32_t cell_bits = 0;  // d, in [1, 8]
  uint32_t hashes = 0;     // K
  double decrements = 0;   // P
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

  // --- The stable Bloom filter (Deng & Rafiei, "Approximately Detecting
  // Duplicates for Streaming Data using Stable Bloom Filters", SIGMOD 2006).
  // Every formula below follows from the paper's model of one cell: in each
  // insert it is set to Max with probability s = K/m, otherwise decremented
  // with probability q = P/m. The derivations sit in bloom_math.cc.

  // Probability that a cell is 0 after `inserts` distinct keys into an empty
  // filter (the paper's Pr_N(0)); `inserts` = infinity gives the stable point,
  // the paper's limit (1 / (1 + 1/(P (1/K - 1/m))))^Max.
  static double StableZeroProbability(const StableParams& p, double inserts);

  // False-positive rate after `inserts` keys: (1 - Pr_N(0))^K; with
  // `inserts` = infinity the stable-point rate the paper calls FPS.
  static double StableFalsePositiveRate(const StableParams& p, double inserts);

  // Probability that a key is reported absent (a false negative) after `age`
  // more distinct keys were inserted since it was: 1 - (1 - Z)^K, Z being the
  // probability that one of its cells, set to Max `age` inserts ago, has
  // reached 0 (the paper's false-negative analysis, same cell model).
  static double StableForgetProbability(const StableParams& p, double age);

  // Age (inserts since a key's own) at which StableForgetProbability reaches
  // 1/2: how far back the filter remembers. Cost: ~60 evaluations.
  static double StableHalfLife(const StableParams& p);

  // P for which the stable-point rate is `fp_rate`, from the paper's FPS
  // formula solved for P: P = 1 / ((A^(-1/Max) - 1)(1/K - 1/m)), A = 1 -
  // FPS^(1/K). InvalidArgument when no P > 0 reaches it.
  static absl::StatusOr<double> StableDecrementsFor(uint64_t cells,
                                                    uint32_t cell_bits,
                                                    uint32_t hashes,
                                                    double fp_rate);

  // The shape for `memory_bits` of cells at stable-point rate `fp_rate`: over d
  // in [1, 4] and K in [1, 16], P from StableDecrementsFor, keeping the shape
  // that remembers longest (largest StableHalfLife). The paper leaves the
  // choice of K and Max to the user; remembering longest at the same FPS is
  // what a crawler's seen-set wants. InvalidArgument for fewer than 64 bits or
  // fp_rate outside (0, 1). Cost: ~1 ms.
  static absl::StatusOr<StableParams> OptimalStableParams(uint64_t memory_bits,
                                                          double fp_rate);
};

}  // namespace sieve

#endif  // SIEVE_FILTER_BLOOM_MATH_H_
