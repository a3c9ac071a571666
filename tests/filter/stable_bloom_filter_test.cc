// The forgetting kinds (filter/stable_bloom_filter.h,
// filter/generational_bloom_filter.h) against their formulas
// (filter/bloom_math.h): the stable filter's false-positive rate at its stable
// point and its false negatives by age; the generations' window; both saved
// and loaded mid-stream.
#include "filter/stable_bloom_filter.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/statusor.h"
#include "filter/bloom_math.h"
#include "filter/filter.h"
#include "filter/generational_bloom_filter.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

// Key i of the stream: the 8 bytes of i (distinct keys, no allocation).
KeyHash Key(uint64_t i, uint64_t seed) {
  return HashKey(std::string_view(reinterpret_cast<const char*>(&i), 8), seed);
}
// Keys from here on are never inserted.
constexpr uint64_t kProbeBase = uint64_t{1} << 60;

struct StableCase {
  const char* name;
  StableParams params;
};

class StablePointTest : public ::testing::TestWithParam<StableCase> {};

// The acceptance line: at 10^7 inserts the measured rate is within 10 % of
// the paper's formula, for three shapes (two chosen by OptimalStableParams,
// one by hand with Max = 1).
TEST_P(StablePointTest, MeasuredRateAtTenMillionInsertsMatchesTheFormula) {
  absl::StatusOr<StableBloomFilter> f =
      StableBloomFilter::CreateWithParams(GetParam().params);
  ASSERT_TRUE(f.ok()) << f.status();
  const StableParams& p = f->params();
  constexpr uint64_t kInserts = 10'000'000;
  for (uint64_t i = 0; i < kInserts; ++i) f->AddHash(Key(i, f->seed()));
  constexpr uint64_t kProbes = 1'000'000;
  uint64_t positives = 0;
  for (uint64_t i = 0; i < kProbes; ++i)
    positives += f->MayContainHash(Key(kProbeBase + i, f->seed()));
  const double measured = static_cast<double>(positives) / kProbes;
  const double formula = BloomMath::StableFalsePositiveRate(p, kInserts);
  const double stable = BloomMath::StableFalsePositiveRate(p, INFINITY);
  std::printf(
      "%s: m=%lu d=%u K=%u P=%.3f  measured %.5f formula %.5f "
      "(stable point %.5f), fill-based estimate %.5f\n",
      GetParam().name, static_cast<unsigned long>(p.cells), p.cell_bits,
      p.hashes, p.decrements, measured, formula, stable,
      f->EstimatedFalsePositiveRate());
  EXPECT_NEAR(measured, formula, 0.10 * formula);
  EXPECT_NEAR(formula, stable, 0.01 * stable);  // 10^7 is past the transient
  EXPECT_NEAR(f->EstimatedFalsePositiveRate(), formula, 0.10 * formula);
}

StableParams Optimal(uint64_t memory_bits, double fp_rate) {
  absl::StatusOr<StableParams> p =
      BloomMath::OptimalStableParams(memory_bits, fp_rate);
  if (!p.ok()) std::abort();
  return *p;
}

StableParams ByHand(uint64_t cells, uint32_t d, uint32_t k, double fp_rate) {
  absl::StatusOr<double> p =
      BloomMath::StableDecrementsFor(cells, d, k, fp_rate);
  if (!p.ok()) std::abort();
  return {.cells = cells, .cell_bits = d, .hashes = k, .decrements = *p};
}

INSTANTIATE_TEST_SUITE_P(
    ThreeShapes, StablePointTest,
    ::testing::Values(StableCase{"optimal_1MiB_1pct", Optimal(8 << 20, 0.01)},
                      StableCase{"optimal_256KiB_5pct", Optimal(2 << 20, 0.05)},
                      StableCase{"max1_k3_2pct", ByHand(1 << 21, 1, 3, 0.02)}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// A key inserted `age` distinct keys ago is reported absent at the rate of
// BloomMath::StableForgetProbability (the paper's false-negative analysis),
// measured at the stable point over 20,000 keys per age.
TEST(StableBloomFilterTest, ForgetsByAgeAsTheFormulaSays) {
  const StableParams shape = Optimal(1 << 20, 0.01);
  absl::StatusOr<StableBloomFilter> f =
      StableBloomFilter::CreateWithParams(shape);
  ASSERT_TRUE(f.ok()) << f.status();
  const double half_life = BloomMath::StableHalfLife(shape);
  const uint64_t warm = static_cast<uint64_t>(4 * half_life);
  const uint64_t ages[] = {static_cast<uint64_t>(half_life / 4),
                           static_cast<uint64_t>(half_life),
                           static_cast<uint64_t>(2 * half_life)};
  constexpr uint64_t kSamples = 20'000;
  uint64_t forgotten[3] = {};
  const uint64_t end = warm + ages[2] + kSamples;
  for (uint64_t t = 0; t < end; ++t) {
    f->AddHash(Key(t, f->seed()));
    if (t < warm + ages[2]) continue;
    for (int a = 0; a < 3; ++a)
      forgotten[a] += !f->MayContainHash(Key(t - ages[a], f->seed()));
  }
  for (int a = 0; a < 3; ++a) {
    const double measured = static_cast<double>(forgotten[a]) / kSamples;
    const double formula = BloomMath::StableForgetProbability(shape, ages[a]);
    std::printf("age %lu: forgotten %.4f, formula %.4f\n",
                static_cast<unsigned long>(ages[a]), measured, formula);
    EXPECT_NEAR(measured, formula, 0.1 * formula + 0.01) << ages[a];
  }
}

TEST(StableBloomFilterTest, KeysJustAddedArePresentAndFreshOnlyOnce) {
  absl::StatusOr<StableBloomFilter> f = StableBloomFilter::Create(
      {.kind = FilterKind::kStable, .fp_rate = 0.01, .memory_bytes = 64 << 10});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->Add("http://a/"));
  EXPECT_FALSE(f->Add("http://a/"));
  EXPECT_TRUE(f->MayContain("http://a/"));
  EXPECT_EQ(f->inserted_count(), 2u);
  EXPECT_EQ(f->fresh_count(), 1u);
  EXPECT_LE(f->MemoryBytes(), (64 << 10) + 1024);
  EXPECT_NEAR(f->fp_rate(), 0.01, 1e-9);
}

TEST(StableBloomFilterTest, SavedMidStreamItContinuesExactlyAsTheOriginal) {
  absl::StatusOr<StableBloomFilter> f = StableBloomFilter::CreateWithParams(
      ByHand(1 << 16, 3, 4, 0.02), {.seed = 7});
  ASSERT_TRUE(f.ok());
  for (uint64_t i = 0; i < 200'000; ++i) f->AddHash(Key(i, 7));
  const std::string image = f->Serialize();
  absl::StatusOr<StableBloomFilter> g = StableBloomFilter::Deserialize(image);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->FillRatio(), f->FillRatio());
  // The generator's state is saved: the same further adds give the same cells.
  for (uint64_t i = 200'000; i < 300'000; ++i)
    ASSERT_EQ(f->AddHash(Key(i, 7)), g->AddHash(Key(i, 7)));
  EXPECT_TRUE(f->Serialize() == g->Serialize());
}

TEST(StableBloomFilterTest, CorruptImagesAreRefusedByName) {
  absl::StatusOr<StableBloomFilter> f =
      StableBloomFilter::CreateWithParams(ByHand(4096, 2, 3, 0.05));
  ASSERT_TRUE(f.ok());
  std::string image = f->Serialize();
  image[64] = 9;  // d = 9
  absl::StatusOr<StableBloomFilter> g =
      StableBloomFilter::Deserialize(image, {.verify_checksum = false});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("stable filter image corrupt"),
            std::string::npos)
      << g.status();
}

TEST(StableBloomMathTest, SizingMeetsTheRateAndRejectsNonsense) {
  const StableParams p = Optimal(8 << 20, 0.01);
  EXPECT_NEAR(BloomMath::StableFalsePositiveRate(p, INFINITY), 0.01, 1e-6);
  EXPECT_GT(BloomMath::StableHalfLife(p), 100'000);
  EXPECT_FALSE(BloomMath::OptimalStableParams(8, 0.01).ok());
  EXPECT_FALSE(BloomMath::OptimalStableParams(1 << 20, 1.5).ok());
  EXPECT_FALSE(BloomMath::StableDecrementsFor(100, 9, 3, 0.01).ok());
  // From empty the rate starts at 0 and rises to the stable point.
  EXPECT_EQ(BloomMath::StableFalsePositiveRate(p, 0), 0);
  EXPECT_LT(BloomMath::StableFalsePositiveRate(p, 1000), 0.01);
  // Forgetting starts at 0 and tends to 1 - FPS.
  EXPECT_EQ(BloomMath::StableForgetProbability(p, 0), 0);
  EXPECT_NEAR(BloomMath::StableForgetProbability(p, 1e15), 0.99, 1e-6);
}

// --- The generational filter.

TEST(GenerationalBloomFilterTest, RemembersItsWindowAndForgetsPastIt) {
  absl::StatusOr<GenerationalBloomFilter> f =
      GenerationalBloomFilter::Create({.kind = FilterKind::kGenerational,
                                       .fp_rate = 0.01,
                                       .memory_bytes = 64 << 10,
                                       .generations = 4});
  ASSERT_TRUE(f.ok()) << f.status();
  const uint64_t c = f->generation_capacity();
  ASSERT_GT(c, 1000u);
  // Ten and a half generations' worth: a key that is a false positive in the
  // newest sets no bit there and does not count towards its share, so about
  // ten rotations, not exactly.
  const uint64_t total = 10 * c + c / 2;
  for (uint64_t i = 0; i < total; ++i) f->AddHash(Key(i, f->seed()));
  EXPECT_GE(f->rotations(), 9u);
  EXPECT_LE(f->rotations(), 10u);
  // The last (G - 1) c keys are all there; keys older than G c are gone but
  // for false positives.
  for (uint64_t i = total - 3 * c; i < total; ++i)
    ASSERT_TRUE(f->MayContainHash(Key(i, f->seed()))) << i;
  uint64_t old_present = 0;
  for (uint64_t i = 0; i < 4 * c; ++i)
    old_present += f->MayContainHash(Key(i, f->seed()));
  uint64_t never_present = 0;
  constexpr uint64_t kProbes = 200'000;
  for (uint64_t i = 0; i < kProbes; ++i)
    never_present += f->MayContainHash(Key(kProbeBase + i, f->seed()));
  const double measured = static_cast<double>(never_present) / kProbes;
  const double formula = f->FormulaFalsePositiveRate(total);
  std::printf("generational: c=%lu measured FPR %.5f formula %.5f\n",
              static_cast<unsigned long>(c), measured, formula);
  EXPECT_NEAR(measured, formula, 0.15 * formula);
  EXPECT_LT(formula, 0.01);
  EXPECT_LT(static_cast<double>(old_present) / (4 * c), 2 * formula);
  EXPECT_LE(f->EstimatedCount(), static_cast<double>(f->capacity()));
}

TEST(GenerationalBloomFilterTest, ARepeatedKeyIsCarriedIntoTheNewest) {
  absl::StatusOr<GenerationalBloomFilter> f =
      GenerationalBloomFilter::Create({.kind = FilterKind::kGenerational,
                                       .fp_rate = 0.01,
                                       .memory_bytes = 16 << 10,
                                       .generations = 2});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->Add("seen often"));
  for (int round = 0; round < 6; ++round) {
    f->Rotate();
    EXPECT_FALSE(f->Add("seen often")) << round;  // still remembered
  }
  f->Rotate();
  f->Rotate();
  EXPECT_FALSE(f->MayContain("seen often"));
}

TEST(GenerationalBloomFilterTest, RotatesByTime) {
  absl::StatusOr<GenerationalBloomFilter> f =
      GenerationalBloomFilter::Create({.kind = FilterKind::kGenerational,
                                       .fp_rate = 0.01,
                                       .memory_bytes = 16 << 10,
                                       .generations = 3,
                                       .generation_seconds = 0.05});
  ASSERT_TRUE(f.ok()) << f.status();
  f->Add("a");
  EXPECT_EQ(f->rotations(), 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  f->Add("b");
  EXPECT_GE(f->rotations(), 2u);
  EXPECT_LE(f->rotations(), 3u);
}

TEST(GenerationalBloomFilterTest, SavedAndLoadedKeepsRotationState) {
  absl::StatusOr<GenerationalBloomFilter> f =
      GenerationalBloomFilter::Create({.kind = FilterKind::kGenerational,
                                       .fp_rate = 0.02,
                                       .memory_bytes = 16 << 10,
                                       .generations = 3});
  ASSERT_TRUE(f.ok());
  for (uint64_t i = 0; i < 5 * f->generation_capacity() / 2; ++i)
    f->AddHash(Key(i, f->seed()));
  absl::StatusOr<GenerationalBloomFilter> g =
      GenerationalBloomFilter::Deserialize(f->Serialize());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->rotations(), f->rotations());
  for (uint64_t i = 0; i < 3 * f->generation_capacity(); ++i)
    ASSERT_EQ(f->AddHash(Key(i + 7, f->seed())),
              g->AddHash(Key(i + 7, g->seed())));
  EXPECT_TRUE(f->Serialize() == g->Serialize());
  EXPECT_FALSE(GenerationalBloomFilter::Create({.generations = 1}).ok());
}

}  // namespace
}  // namespace sieve
