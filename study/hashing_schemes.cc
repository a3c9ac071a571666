#include "study/hashing_schemes.h"

#include <xxhash.h>

#include <cstdio>
#include <cstdlib>

#include "absl/numeric/int128.h"

namespace sieve::study {
namespace {

// The seed filter/ uses for its XXH3-128 key hash does not matter for a
// comparison of index schemes; all schemes here hash with the same one.
constexpr uint64_t kHashSeed = 0;

void Check(bool condition, const char* message) {
  if (!condition) {
    std::fprintf(stderr, "SchemeBloomFilter: %s\n", message);
    std::abort();
  }
}

}  // namespace

std::string_view IndexSchemeName(IndexScheme scheme) {
  switch (scheme) {
    case IndexScheme::kEnhancedDouble:
      return "enhanced_double_multiply_shift";
    case IndexScheme::kPlainDoubleMod:
      return "plain_double_mod";
    case IndexScheme::kSeededPolynomial:
      return "seeded_polynomial_mask";
  }
  return "unknown";
}

uint32_t PolynomialHash(std::string_view key, uint32_t seed) {
  uint32_t result = 0;  // Unsigned: Java's int overflow wraps the same way.
  for (unsigned char c : key) result = seed * result + c;
  return result;
}

SchemeBloomFilter::SchemeBloomFilter(IndexScheme scheme, uint64_t bits,
                                     uint32_t hashes)
    : scheme_(scheme),
      bits_(bits),
      hashes_(hashes),
      words_((bits + 63) / 64, 0) {
  Check(bits >= 64, "bits must be >= 64");
  Check(hashes >= 1 && hashes <= 32, "hashes must be in [1, 32]");
  if (scheme == IndexScheme::kSeededPolynomial) {
    Check(hashes <= 7, "the seeded polynomial scheme has 7 seeds");
    Check((bits & (bits - 1)) == 0,
          "the seeded polynomial scheme needs a power-of-two table");
  }
}

void SchemeBloomFilter::Positions(std::string_view key, uint64_t* out) const {
  switch (scheme_) {
    case IndexScheme::kEnhancedDouble: {
      const XXH128_hash_t h =
          XXH3_128bits_withSeed(key.data(), key.size(), kHashSeed);
      for (uint64_t i = 0; i < hashes_; ++i) {
        // Enhanced double hashing (Dillinger & Manolios 2004): the cubic term
        // keeps probes apart even when h2 is a multiple of a factor of m.
        // Arithmetic wraps mod 2^64 on purpose.
        const uint64_t hi = h.low64 + i * h.high64 + (i * i * i - i) / 6;
        // Multiply-shift (Lemire 2019): high 64 bits of hi * m are uniform in
        // [0, m), no `%`.
        out[i] = absl::Uint128High64(absl::uint128(hi) * bits_);
      }
      return;
    }
    case IndexScheme::kPlainDoubleMod: {
      const XXH128_hash_t h =
          XXH3_128bits_withSeed(key.data(), key.size(), kHashSeed);
      for (uint64_t i = 0; i < hashes_; ++i)
        out[i] = (h.low64 + i * h.high64) % bits_;
      return;
    }
    case IndexScheme::kSeededPolynomial: {
      // Java: `result = seed * result + value.charAt(i)` in 32-bit int, then
      // `(cap - 1) & result`. URLs are ASCII, so bytes equal Java's UTF-16
      // chars.
      for (uint32_t j = 0; j < hashes_; ++j) {
        uint32_t result = 0;
        for (unsigned char c : key) result = kPolynomialSeeds[j] * result + c;
        out[j] = (bits_ - 1) & result;
      }
      return;
    }
  }
}

bool SchemeBloomFilter::Add(std::string_view key) {
  uint64_t positions[32];
  Positions(key, positions);
  bool was_new = false;
  for (uint32_t i = 0; i < hashes_; ++i) {
    uint64_t& word = words_[positions[i] >> 6];
    const uint64_t mask = uint64_t{1} << (positions[i] & 63);
    was_new |= (word & mask) == 0;
    word |= mask;
  }
  return was_new;
}

bool SchemeBloomFilter::MayContain(std::string_view key) const {
  uint64_t positions[32];
  Positions(key, positions);
  for (uint32_t i = 0; i < hashes_; ++i) {
    if ((words_[positions[i] >> 6] & (uint64_t{1} << (positions[i] & 63))) == 0)
      return false;
  }
  return true;
}

}  // namespace sieve::study
