// study/hashing_schemes.h: the ways published Bloom-filter articles
// turn a key into k bit positions, on one plain bit array, so `sieve study` can
// compare them at equal m and k.
//
//   kEnhancedDouble   ours (filter/): one XXH3-128 hash, h_i = h1 + i*h2 + (i^3
//   - i)/6
//                     (Dillinger & Manolios 2004), reduced to [0, m) by
//                     multiply-shift (Lemire).
//   kPlainDoubleMod   a Rust crawler article: the same 128-bit hash split in
//   two, h1 + i*h2 mod m. kSeededPolynomial a Java article: k = 7 polynomial
//   string hashes (Java's String.hashCode with
//                     the multiplier replaced by seeds 5, 7, 11, 13, 31, 37,
//                     61), 32-bit, masked to a power-of-two table (the article
//                     uses 2^25 bits).
//
// Surprises first: kSeededPolynomial only exists for k <= 7 and m a power of
// two (that is the article's design); SchemeBloomFilter aborts on other
// arguments (it is a study tool, given only trusted sizes). Not thread-safe.
//
// Example:
//   SchemeBloomFilter f(IndexScheme::kSeededPolynomial, uint64_t{1} << 25, 7);
//   f.Add("http://a/");
//   bool maybe = f.MayContain("http://b/");
#ifndef SIEVE_STUDY_HASHING_SCHEMES_H_
#define SIEVE_STUDY_HASHING_SCHEMES_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace sieve::study {

enum class IndexScheme { kEnhancedDouble, kPlainDoubleMod, kSeededPolynomial };

// "enhanced_double_multiply_shift", "plain_double_mod",
// "seeded_polynomial_mask".
std::string_view IndexSchemeName(IndexScheme scheme);

// The seeds of the Java article's seven hashes.
inline constexpr uint32_t kPolynomialSeeds[7] = {5, 7, 11, 13, 31, 37, 61};

// The Java article's hash: `result = seed * result + c` over the key's chars in
// 32-bit arithmetic (String.hashCode when seed is 31). URLs are ASCII, so bytes
// equal Java's chars.
uint32_t PolynomialHash(std::string_view key, uint32_t seed);

class SchemeBloomFilter {
 public:
  // REQUIRES: bits >= 64, 1 <= hashes <= 32; for kSeededPolynomial hashes <= 7
  // and bits a power of two.
  SchemeBloomFilter(IndexScheme scheme, uint64_t bits, uint32_t hashes);

  // Sets the key's k bits; returns true when at least one was clear (the key
  // was new).
  bool Add(std::string_view key);
  // True when all k bits are set.
  bool MayContain(std::string_view key) const;

  uint64_t bit_count() const { return bits_; }
  uint32_t hash_count() const { return hashes_; }
  uint64_t MemoryBytes() const { return words_.size() * sizeof(uint64_t); }

 private:
  // Writes the key's k positions to `out` (capacity >= hashes_).
  void Positions(std::string_view key, uint64_t* out) const;

  IndexScheme scheme_;
  uint64_t bits_;
  uint32_t hashes_;
  std::vector<uint64_t> words_;
};

}  // namespace sieve::study

#endif  // SIEVE_STUDY_HASHING_SCHEMES_H_
