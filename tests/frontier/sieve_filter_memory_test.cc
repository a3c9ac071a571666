// The Sieve's filter past its RAM budget (SieveOptions::filter_memory_bytes):
// its full stages go to files, its RAM stops growing, nothing pushed is lost,
// and a checkpoint brings the stages on disk back.
#include <string>

#include "frontier/sieve.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"

namespace sieve {
namespace {

constexpr uint64_t kBudget = 64 << 10;
// 10,000 URLs designed for; 200,000 pushed: past the second stage each holds
// what the room left in 64 KiB holds (~24,000 URLs) and, full, goes to a file.
constexpr uint64_t kUrls = 200'000;

std::string Url(uint64_t i) {
  return "https://h" + std::to_string(i % 5003) + ".example/p/" +
         std::to_string(i);
}

SieveOptions Options(uint64_t filter_memory_bytes,
                     const std::filesystem::path& work_dir) {
  return SieveOptions{.expected_urls = 10'000,
                      .fp_rate = 0.01,
                      .filter_kind = FilterKind::kScalable,
                      .filter_memory_bytes = filter_memory_bytes,
                      .work_dir = work_dir};
}

uint64_t PushAll(Sieve& sieve) {
  uint64_t queued = 0;
  for (uint64_t i = 0; i < kUrls; ++i) queued += sieve.Push(Url(i)) ? 1 : 0;
  return queued;
}

TEST(SieveFilterMemoryTest, TheFilterStaysInItsBudgetAndLosesNothing) {
  test::ScopedTempDir dir;
  Sieve unbounded(Options(0, dir.path()));
  Sieve bounded(Options(kBudget, dir.path()));
  PushAll(unbounded);
  const uint64_t queued = PushAll(bounded);

  EXPECT_GT(unbounded.stats().filter_bytes, 4 * kBudget);
  EXPECT_EQ(unbounded.stats().filter_bytes_on_disk, 0u);
  const SieveStats stats = bounded.stats();
  EXPECT_LE(stats.filter_bytes, kBudget);
  EXPECT_GT(stats.filter_bytes_on_disk, 2 * kBudget);
  // The compound rate stays under fp_rate: at most 1 % of new URLs dropped.
  EXPECT_GE(queued, kUrls * 99 / 100);
  EXPECT_NEAR(stats.filter_estimated_count, kUrls, 0.05 * kUrls);
}

TEST(SieveFilterMemoryTest, ACheckpointBringsTheStagesOnDiskBack) {
  test::ScopedTempDir dir;
  const SieveStats before = [&] {
    Sieve sieve(Options(kBudget, dir.path()));
    PushAll(sieve);
    EXPECT_TRUE(sieve.Checkpoint(dir / "ckpt").ok());
    return sieve.stats();
  }();
  absl::StatusOr<std::unique_ptr<Sieve>> restored =
      Sieve::Restore(dir / "ckpt", Options(kBudget, dir.path()));
  ASSERT_TRUE(restored.ok()) << restored.status();
  const SieveStats after = (*restored)->stats();
  EXPECT_EQ(after.filter_bytes_on_disk, before.filter_bytes_on_disk);
  EXPECT_LE(after.filter_bytes, kBudget);
  // Every URL pushed before is seen, the newest stages' included.
  uint64_t queued_again = 0;
  for (uint64_t i = 0; i < kUrls; i += 7)
    queued_again += (*restored)->Push(Url(i)) ? 1 : 0;
  EXPECT_EQ(queued_again, 0u);
}

}  // namespace
}  // namespace sieve
