// The scalable filter's stages on disk (FilterOptions::disk_stages): past its
// RAM budget the filter opens its stages in files, its RAM stops growing, no
// key is lost, and the stages are saved and read back, to files or to memory.
#include <filesystem>
#include <string>

#include "filter/scalable_bloom_filter.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"
#include "tests/filter/test_keys.h"

namespace sieve {
namespace {

using testing_keys::kAbsentBase;
using testing_keys::KeySet;

constexpr uint64_t kCapacity = 10'000;
constexpr double kFpRate = 0.01;
// 10,000 then 20,000, 40,000, 80,000 keys: four stages.
constexpr uint64_t kKeys = 100'000;

ScalableBloomFilter WithBudget(uint64_t ram_budget_bytes,
                               const std::string& dir) {
  return *ScalableBloomFilter::Create(
      {.capacity = kCapacity,
       .fp_rate = kFpRate,
       .disk_stages = {.ram_budget_bytes = ram_budget_bytes, .dir = dir}});
}

void AddAll(ScalableBloomFilter& filter, const KeySet& keys) {
  for (size_t i = 0; i < keys.size(); ++i) filter.Add(keys[i]);
}

uint64_t MissedKeys(const ScalableBloomFilter& filter, const KeySet& keys) {
  uint64_t missed = 0;
  for (size_t i = 0; i < keys.size(); ++i)
    missed += filter.MayContain(keys[i]) ? 0 : 1;
  return missed;
}

double FalsePositiveShare(const ScalableBloomFilter& filter) {
  const KeySet absent(kAbsentBase, 100'000);
  uint64_t positives = 0;
  for (size_t i = 0; i < absent.size(); ++i)
    positives += filter.MayContain(absent[i]) ? 1 : 0;
  return static_cast<double>(positives) / static_cast<double>(absent.size());
}

TEST(DiskStagesTest, PastItsBudgetTheFilterKeepsItsStagesOnDisk) {
  test::ScopedTempDir dir;
  const KeySet keys(0, kKeys);
  ScalableBloomFilter in_ram = WithBudget(0, "");
  const uint64_t first_stage = in_ram.MemoryBytes();
  AddAll(in_ram, keys);

  ScalableBloomFilter bounded = WithBudget(first_stage + 1024, dir.string());
  AddAll(bounded, keys);

  EXPECT_EQ(bounded.stage_count(), 4u);
  EXPECT_GT(in_ram.MemoryBytes(), 10 * first_stage);
  EXPECT_LE(bounded.MemoryBytes(), first_stage + 1024);
  EXPECT_GT(bounded.DiskBytes(), 9 * first_stage);
  EXPECT_EQ(in_ram.DiskBytes(), 0u);
  // Fresh adds differ by the stages' false positives only.
  EXPECT_NEAR(bounded.inserted_count(), in_ram.inserted_count(), 0.005 * kKeys);
  EXPECT_EQ(MissedKeys(bounded, keys), 0u);
  EXPECT_LT(FalsePositiveShare(bounded), 1.5 * kFpRate);
  EXPECT_NEAR(bounded.EstimatedCount(), kKeys, 0.05 * kKeys);
  // The files are unlinked as they are made: nothing is left to clean up.
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(DiskStagesTest, StagesOnDiskAreSavedAndReadBack) {
  test::ScopedTempDir dir;
  const KeySet keys(0, kKeys);
  ScalableBloomFilter filter = WithBudget(1, dir.string());
  AddAll(filter, keys);
  ASSERT_GT(filter.DiskBytes(), 0u);
  const std::string saved = filter.Serialize();

  // Back to files, and (no directory) to anonymous memory files.
  for (const std::string& to : {dir.string(), std::string()}) {
    absl::StatusOr<ScalableBloomFilter> loaded =
        ScalableBloomFilter::Deserialize(
            saved, {.disk_stages = {.ram_budget_bytes = 1, .dir = to}});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(loaded->DiskBytes(), filter.DiskBytes()) << to;
    EXPECT_EQ(loaded->MemoryBytes(), filter.MemoryBytes()) << to;
    EXPECT_EQ(MissedKeys(*loaded, keys), 0u) << to;
    EXPECT_EQ(loaded->Serialize(), saved) << to;
    // And it goes on filling, its next stage on disk too.
    const KeySet more(kKeys, 100'000);
    AddAll(*loaded, more);
    EXPECT_EQ(loaded->stage_count(), 5u) << to;
    EXPECT_EQ(MissedKeys(*loaded, more), 0u) << to;
    EXPECT_LE(loaded->MemoryBytes(), filter.MemoryBytes() + 1024) << to;
  }
}

TEST(DiskStagesTest, ASetOperationRefusesStagesOnDisk) {
  test::ScopedTempDir dir;
  const KeySet keys(0, 30'000);
  ScalableBloomFilter a = WithBudget(1, dir.string());
  ScalableBloomFilter b = WithBudget(1, dir.string());
  AddAll(a, keys);
  AddAll(b, keys);
  EXPECT_EQ(a.UnionWith(b).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(a.IntersectWith(b).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(DiskStagesTest, ADirectoryThatCannotTakeAFileKeepsTheStageFilling) {
  // The stage cannot open: the newest keeps filling (its rate climbs), and no
  // key is lost.
  const KeySet keys(0, 30'000);
  ScalableBloomFilter filter = WithBudget(1, "/nonexistent/sieve-test-dir");
  AddAll(filter, keys);
  EXPECT_EQ(filter.stage_count(), 1u);
  EXPECT_EQ(MissedKeys(filter, keys), 0u);
}

}  // namespace
}  // namespace sieve
