// The scalable filter's stages on disk (FilterOptions::disk_stages): past its
// RAM budget the filter fills each stage in RAM and then writes it to a file,
// its RAM stops growing, no key is lost, and the stages are saved and read
// back, to files or to memory.
#include <algorithm>
#include <filesystem>
#include <fstream>
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

// Bytes this process has handed to write system calls (/proc/self/io's
// wchar), or -1 where the kernel does not count them.
int64_t BytesWritten() {
  std::ifstream io("/proc/self/io");
  std::string name;
  int64_t value;
  while (io >> name >> value) {
    if (name == "wchar:") return value;
  }
  return -1;
}

// The first stage's RAM, and a budget of five: the second stage (blocked, for
// twice the keys) fits beside it; the third needs the second's room, so the
// second goes to a file and the third holds what four first stages of RAM
// hold (~35,000 keys), as does every later one.
uint64_t FirstStageBytes() { return WithBudget(0, "").MemoryBytes(); }
uint64_t Budget() { return 5 * FirstStageBytes(); }

TEST(DiskStagesTest, PastItsBudgetTheFilterKeepsItsStagesOnDisk) {
  test::ScopedTempDir dir;
  const KeySet keys(0, 150'000);
  ScalableBloomFilter in_ram = WithBudget(0, "");
  AddAll(in_ram, keys);

  ScalableBloomFilter bounded = WithBudget(Budget(), dir.string());
  AddAll(bounded, keys);

  // Past the budget the stages stop doubling: 10,000, 20,000, then ~35,000
  // keys each (in RAM: 10,000, 20,000, 40,000, 80,000).
  EXPECT_EQ(in_ram.stage_count(), 4u);
  EXPECT_GT(bounded.stage_count(), in_ram.stage_count());
  EXPECT_GT(in_ram.MemoryBytes(), 10 * FirstStageBytes());
  EXPECT_LE(bounded.MemoryBytes(), Budget());
  EXPECT_GT(bounded.DiskBytes(), 2 * FirstStageBytes());
  EXPECT_EQ(in_ram.DiskBytes(), 0u);
  // Fresh adds differ by the stages' false positives only.
  EXPECT_NEAR(bounded.inserted_count(), in_ram.inserted_count(),
              0.005 * keys.size());
  EXPECT_EQ(MissedKeys(bounded, keys), 0u);
  EXPECT_LT(FalsePositiveShare(bounded), 1.5 * kFpRate);
  EXPECT_NEAR(bounded.EstimatedCount(), keys.size(), 0.05 * keys.size());
  // The files are unlinked as they are made: nothing is left to clean up.
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(DiskStagesTest, AStageIsFilledInRamAndWrittenToItsFileOnce) {
  test::ScopedTempDir dir;
  ScalableBloomFilter filter = WithBudget(Budget(), dir.string());
  // Into the third stage: the second is in its file, the third fills in RAM.
  const KeySet keys(0, 3 * kCapacity + kCapacity / 2);
  AddAll(filter, keys);
  ASSERT_EQ(filter.stage_count(), 3u);
  const uint64_t on_disk = filter.DiskBytes();
  EXPECT_GT(on_disk, 2 * FirstStageBytes());
  EXPECT_GT(filter.MemoryBytes(), 4 * FirstStageBytes());
  EXPECT_LE(filter.MemoryBytes(), Budget());

  // Adds to a stage write nothing (a stage in a file took one 64-byte pwrite
  // per fresh key: 160,000 bytes here). The sanitizers write a few 16-byte
  // probes of their own to a pipe, so the bound is a block per 100 keys.
  const KeySet more(kAbsentBase, kCapacity / 4);
  const int64_t written_before = BytesWritten();
  if (written_before < 0) GTEST_SKIP() << "no /proc/self/io wchar here";
  AddAll(filter, more);
  EXPECT_LT(BytesWritten() - written_before,
            static_cast<int64_t>(64 * more.size() / 100));
  ASSERT_EQ(filter.stage_count(), 3u);

  // Full, it goes to its file in one pass; the next stage fills in RAM.
  const KeySet rest(2 * kAbsentBase, 4 * kCapacity);
  AddAll(filter, rest);
  ASSERT_EQ(filter.stage_count(), 4u);
  EXPECT_GT(filter.DiskBytes(), on_disk + 3 * FirstStageBytes());
  EXPECT_LE(filter.MemoryBytes(), Budget());
  EXPECT_EQ(MissedKeys(filter, keys) + MissedKeys(filter, more) +
                MissedKeys(filter, rest),
            0u);
}

TEST(DiskStagesTest, StagesOnDiskAreSavedAndReadBack) {
  test::ScopedTempDir dir;
  const KeySet keys(0, kKeys);
  ScalableBloomFilter filter = WithBudget(Budget(), dir.string());
  AddAll(filter, keys);
  ASSERT_GT(filter.DiskBytes(), 0u);
  const std::string saved = filter.Serialize();

  // Back to files, and (no directory) to anonymous memory files; at the same
  // budget the newest stage goes on filling in RAM, at a smaller one it is
  // written to a file too.
  for (const std::string& to : {dir.string(), std::string()}) {
    for (const uint64_t budget : {Budget(), uint64_t{1}}) {
      SCOPED_TRACE(testing::Message() << to << " budget " << budget);
      absl::StatusOr<ScalableBloomFilter> loaded =
          ScalableBloomFilter::Deserialize(
              saved, {.disk_stages = {.ram_budget_bytes = budget, .dir = to}});
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      if (budget == Budget()) {
        EXPECT_EQ(loaded->DiskBytes(), filter.DiskBytes());
        EXPECT_EQ(loaded->MemoryBytes(), filter.MemoryBytes());
      } else {
        EXPECT_GT(loaded->DiskBytes(), filter.DiskBytes());
        EXPECT_LT(loaded->MemoryBytes(), filter.MemoryBytes());
      }
      EXPECT_EQ(MissedKeys(*loaded, keys), 0u);
      EXPECT_EQ(loaded->Serialize(), saved);
      // And it goes on filling, its next stages on disk too.
      const KeySet more(kKeys, 100'000);
      AddAll(*loaded, more);
      EXPECT_GT(loaded->stage_count(), filter.stage_count());
      EXPECT_EQ(MissedKeys(*loaded, more), 0u);
      EXPECT_LE(loaded->MemoryBytes(), std::max(budget, filter.MemoryBytes()));
    }
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
  // The second stage, bound for disk, fills in RAM; full, it cannot be
  // written to a file: it keeps filling (its rate climbs), and no key is lost.
  const KeySet keys(0, 40'000);
  ScalableBloomFilter filter = WithBudget(1, "/nonexistent/sieve-test-dir");
  AddAll(filter, keys);
  EXPECT_EQ(filter.stage_count(), 2u);
  EXPECT_EQ(filter.DiskBytes(), 0u);
  EXPECT_EQ(MissedKeys(filter, keys), 0u);
}

}  // namespace
}  // namespace sieve
