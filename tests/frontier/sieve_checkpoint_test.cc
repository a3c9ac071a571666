// Checkpoint/Restore: one consistent snapshot of filter, queue (RAM and disk)
// and counters.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "frontier/sieve.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using ::testing::Optional;

std::string Url(int i) {
  return "http://h" + std::to_string(i % 11) + ".test/x/" + std::to_string(i);
}

struct Layout {
  std::string name;
  size_t budget;
  bool verify;
};

class SieveCheckpointTest : public ::testing::TestWithParam<Layout> {
 protected:
  // Each call's work directory is a new, empty one.
  SieveOptions Options() {
    const fs::path work = scratch_ / ("work" + std::to_string(++work_dirs_));
    fs::create_directories(work);
    return SieveOptions{.expected_urls = 10'000,
                        .memory_budget_bytes = GetParam().budget,
                        .verify_positives = GetParam().verify,
                        .work_dir = work};
  }
  const test::ScopedTempDir scratch_;
  int work_dirs_ = 0;
};

TEST_P(SieveCheckpointTest, RestoreBringsBackQueueFilterAndCounters) {
  const fs::path dir = scratch_ / "checkpoint";
  fs::create_directories(dir);
  Sieve s(Options());
  for (int i = 0; i < 3000; ++i)
    ASSERT_TRUE(s.Push(Url(i), "d" + std::to_string(i)));
  for (int i = 0; i < 700; ++i) ASSERT_THAT(s.Pop(), Optional(Url(i)));
  ASSERT_TRUE(s.Checkpoint(dir).ok());
  const SieveStats before = s.stats();
  // Changes after the checkpoint are not in it.
  for (int i = 3000; i < 3100; ++i) s.Push(Url(i));
  for (int i = 0; i < 50; ++i) s.Pop();

  for (int round = 0; round < 2;
       ++round) {  // The snapshot survives a restore unchanged.
    absl::StatusOr<std::unique_ptr<Sieve>> restored =
        Sieve::Restore(dir, Options());
    ASSERT_TRUE(restored.ok()) << restored.status();
    Sieve& r = **restored;
    const SieveStats after = r.stats();
    EXPECT_EQ(after.size, before.size);
    EXPECT_EQ(after.pushed, before.pushed);
    EXPECT_EQ(after.queued, before.queued);
    EXPECT_EQ(after.popped, before.popped);
    EXPECT_EQ(after.false_positives_caught, before.false_positives_caught);
    EXPECT_EQ(after.filter_estimated_count, before.filter_estimated_count);
    EXPECT_EQ(r.filter().kind(), s.filter().kind());
    // The filter came back: everything pushed before the checkpoint is still
    // seen.
    EXPECT_FALSE(r.Push(Url(5)));
    EXPECT_FALSE(r.Push(Url(2999)));
    EXPECT_TRUE(r.Push(Url(3000)));  // Pushed only after the checkpoint.
    for (int i = 700; i < 3000; ++i) {
      std::optional<SieveEntry> e = r.PopEntry();
      ASSERT_TRUE(e.has_value()) << i;
      ASSERT_EQ(e->url, Url(i));
      ASSERT_EQ(e->payload, "d" + std::to_string(i));
    }
    EXPECT_THAT(r.Pop(), Optional(Url(3000)));
    EXPECT_EQ(r.Pop(), std::nullopt);
  }
}

TEST_P(SieveCheckpointTest, OnlyTheLatestSnapshotIsKept) {
  const fs::path dir = scratch_ / "checkpoint";
  fs::create_directories(dir);
  Sieve s(Options());
  for (int round = 0; round < 3; ++round) {
    s.Push(Url(round));
    ASSERT_TRUE(s.Checkpoint(dir).ok());
  }
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("CURRENT", "ckpt-000003"));
  absl::StatusOr<std::unique_ptr<Sieve>> restored =
      Sieve::Restore(dir, Options());
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ((*restored)->size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, SieveCheckpointTest,
    ::testing::Values(Layout{"in_memory", size_t{1} << 20, false},
                      Layout{"spilled", 2048, false},
                      Layout{"lossless_spilled", 2048, true}),
    [](const ::testing::TestParamInfo<Layout>& param_info) {
      return param_info.param.name;
    });

// VmHWM of /proc/self/status (peak resident bytes), 0 when unreadable.
size_t PeakResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream kb(line.substr(6));
      size_t value = 0;
      kb >> value;
      return value << 10;
    }
  }
  return 0;
}

// The filter goes to the snapshot as it lies in RAM: a checkpoint never holds
// a second copy of it (at 10^8 URLs that copy would be 120 MB, every
// checkpoint_seconds).
TEST(SieveCheckpointMemoryTest, ACheckpointDoesNotCopyTheFilter) {
  const test::ScopedTempDir scratch;
  Sieve s(SieveOptions{.expected_urls = 20'000'000, .work_dir = scratch / "w"});
  for (int i = 0; i < 1000; ++i) s.Push(Url(i));
  ASSERT_GT(s.stats().filter_bytes, size_t{16} << 20);
  // Writing 5 to clear_refs resets VmHWM to the RSS of now (Linux 4.0+).
  if (std::ofstream clear("/proc/self/clear_refs"); !(clear << "5")) {
    GTEST_SKIP() << "cannot reset the peak RSS (/proc/self/clear_refs)";
  }
  const size_t before = PeakResidentBytes();
  if (before == 0) GTEST_SKIP() << "no VmHWM in /proc/self/status";
  ASSERT_TRUE(s.Checkpoint(scratch / "checkpoint").ok());
  EXPECT_LT(PeakResidentBytes(), before + (size_t{8} << 20))
      << "filter bytes: " << s.stats().filter_bytes;
}

TEST(SieveCheckpointErrorsTest, AnUnpublishedSnapshotIsIgnored) {
  const test::ScopedTempDir dir;
  Sieve s(SieveOptions{.expected_urls = 100});
  s.Push("http://a/");
  ASSERT_TRUE(s.Checkpoint(dir).ok());
  // A crash during the next checkpoint leaves a half-written staging directory
  // behind.
  fs::create_directories(dir / "ckpt-000002.tmp");
  std::ofstream(dir / "ckpt-000002.tmp" / "MANIFEST")
      << "sieve-snapshot\nformat 1\n";
  absl::StatusOr<std::unique_ptr<Sieve>> restored =
      Sieve::Restore(dir, {.expected_urls = 100});
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_THAT((*restored)->Pop(), Optional(std::string("http://a/")));
  // And the next checkpoint cleans it up.
  ASSERT_TRUE((*restored)->Checkpoint(dir).ok());
  EXPECT_FALSE(fs::exists(dir / "ckpt-000002.tmp"));
}

TEST(SieveCheckpointErrorsTest, RestoreReportsWhatIsWrong) {
  const test::ScopedTempDir dir;
  EXPECT_EQ(Sieve::Restore(dir / "missing", {}).status().code(),
            absl::StatusCode::kNotFound);

  Sieve s(SieveOptions{.expected_urls = 100});
  ASSERT_TRUE(s.Checkpoint(dir).ok());
  EXPECT_EQ(Sieve::Restore(dir, {.verify_positives = true}).status().code(),
            absl::StatusCode::kInvalidArgument);
  std::ofstream(dir / "ckpt-000001" / "MANIFEST", std::ios::trunc)
      << "sieve-snapshot\nformat 1\n";
  EXPECT_EQ(Sieve::Restore(dir, {}).status().code(),
            absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace sieve
