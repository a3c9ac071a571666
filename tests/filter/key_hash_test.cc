// Schema test for the key hash: these values are in every saved filter and in
// the frontier's fingerprint store. If one changes, saved files break: bump the
// format version instead.
#include "filter/key_hash.h"

#include <set>

#include "gtest/gtest.h"

namespace sieve {
namespace {

TEST(KeyHashTest, HashOfAUrlIsPinned) {
  const KeyHash h = HashKey("http://a/");
  EXPECT_EQ(h.low, 0xb681542133eb5c81ULL);
  EXPECT_EQ(h.high, 0xecf28fac9c494ee6ULL);
}

TEST(KeyHashTest, FingerprintIsPinnedAndDiffersFromTheFilterHash) {
  EXPECT_EQ(Fingerprint64("http://a/"), 0xeffaaaffea74c828ULL);
  EXPECT_NE(Fingerprint64("http://a/"), HashKey("http://a/").low);
}

TEST(KeyHashTest, SeedChangesTheHash) {
  EXPECT_NE(HashKey("http://a/", 1).low, HashKey("http://a/", 2).low);
}

TEST(KeyHashTest, ProbesFollowEnhancedDoubleHashing) {
  const KeyHash h{.low = 0x0123456789abcdefULL, .high = 0xfedcba9876543210ULL};
  ProbeSequence probes(h);
  for (uint64_t i = 0; i < 20; ++i) {
    // h_i = h1 + i*h2 + (i^3 - i)/6, modulo 2^64 (Dillinger & Manolios 2004).
    EXPECT_EQ(probes.Next(), h.low + i * h.high + (i * i * i - i) / 6) << i;
  }
}

TEST(KeyHashTest, ReduceToRangeCoversSixtyFourBitRanges) {
  EXPECT_EQ(ReduceToRange(0, 1000), 0u);
  EXPECT_EQ(ReduceToRange(~uint64_t{0}, 1000), 999u);
  EXPECT_EQ(ReduceToRange(uint64_t{1} << 63, 1000), 500u);
  // Ranges past 2^32 reach their top: no 32-bit truncation anywhere.
  const uint64_t big = (uint64_t{1} << 40) + 12345;
  EXPECT_GT(ReduceToRange(~uint64_t{0}, big), uint64_t{1} << 39);
  EXPECT_LT(ReduceToRange(~uint64_t{0}, big), big);
}

TEST(KeyHashTest, DistinctKeysGiveDistinctFingerprints) {
  std::set<uint64_t> seen;
  for (int i = 0; i < 10000; ++i)
    seen.insert(Fingerprint64("http://host/" + std::to_string(i)));
  EXPECT_EQ(seen.size(), 10000u);
}

}  // namespace
}  // namespace sieve
