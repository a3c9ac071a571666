#include "filter/key_hash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace sieve {
namespace {
// Seed of Fingerprint64 ("SIEVEFP1"); distinct from the filter seed so the two
// are independent.
constexpr uint64_t kFingerprintSeed = 0x5349455645465031ULL;
}  // namespace

KeyHash HashKey(std::string_view key, uint64_t seed) {
  const XXH128_hash_t h = XXH3_128bits_withSeed(key.data(), key.size(), seed);
  return KeyHash{.low = h.low64, .high = h.high64};
}

uint64_t Fingerprint64(std::string_view key) {
  return XXH3_64bits_withSeed(key.data(), key.size(), kFingerprintSeed);
}

}  // namespace sieve
