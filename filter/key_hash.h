// filter/key_hash.h: how a key becomes bit positions. One XXH3-128 hash of the
// key's bytes (fixed seed, so positions are stable across runs, machines and
// versions: a saved filter stays valid), k indices by enhanced double hashing,
// each reduced to [0, m) by multiply-shift. All 64-bit: filters past 2^32 bits
// work.
//
// Never replace this with std::hash or absl::Hash: those change between runs
// and builds. Changing anything here changes every saved filter: bump
// kFilterFormatVersion and the schema test.
//
// Example:
//   sieve::KeyHash h = sieve::HashKey("http://a/");
//   sieve::ProbeSequence probes(h);
//   for (uint32_t i = 0; i < k; ++i) {
//     SetBit(sieve::ReduceToRange(probes.Next(), m));
//   }
//   uint64_t fp = sieve::Fingerprint64("http://a/");  // exact-store key
#ifndef SIEVE_FILTER_KEY_HASH_H_
#define SIEVE_FILTER_KEY_HASH_H_

#include <cstdint>
#include <string_view>

namespace sieve {

// Seed of HashKey unless a filter is built with another one ("SIEVEBLM" in
// ASCII).
inline constexpr uint64_t kDefaultFilterSeed = 0x5349455645424C4DULL;

// The two 64-bit halves of XXH3-128(key, seed).
struct KeyHash {
  uint64_t low = 0;
  uint64_t high = 0;
};

// XXH3-128 of `key`'s bytes with `seed`. Cost: ~20 ns for a 70-byte URL.
KeyHash HashKey(std::string_view key, uint64_t seed = kDefaultFilterSeed);

// XXH3-64 of `key` with a fixed seed of its own: a stable 64-bit fingerprint
// for exact stores. Two distinct keys collide with probability ~2^-64 each pair
// (1 in 3.7*10^7 for 10^9 keys).
uint64_t Fingerprint64(std::string_view key);

// Maps a uniform 64-bit `hash` onto [0, n) without division: (hash * n) >> 64.
// Lemire, "Fast Random Integer Generation in an Interval", ACM TOMACS 2019.
__extension__ typedef unsigned __int128
    KeyHashUint128;  // GCC/Clang extension, hence the mark
inline uint64_t ReduceToRange(uint64_t hash, uint64_t n) {
  return static_cast<uint64_t>((static_cast<KeyHashUint128>(hash) * n) >> 64);
}

// Enhanced double hashing (Dillinger & Manolios, "Bloom Filters in
// Probabilistic Verification", FMCAD 2004): the i-th value is
// h1 + i*h2 + (i^3 - i)/6 (mod 2^64), computed with two additions per step.
// Reduce each value with ReduceToRange.
class ProbeSequence {
 public:
  explicit ProbeSequence(const KeyHash& hash) : x_(hash.low), y_(hash.high) {}

  uint64_t Next() {
    const uint64_t value = x_;
    x_ += y_;       // x_{i+1} = x_i + y_i
    y_ += ++step_;  // y_{i+1} = y_i + (i + 1)
    return value;
  }

 private:
  uint64_t x_;
  uint64_t y_;
  uint64_t step_ = 0;
};

}  // namespace sieve

#endif  // SIEVE_FILTER_KEY_HASH_H_
