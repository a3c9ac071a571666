// crawl.state across versions (crawler/loop/crawl_state.h): the pinned
// format-1 image is read, other formats and a checkpoint with the older
// crawl.history file are refused by name; the domain budget's table comes
// back from its file.
#include "crawler/loop/crawl_state.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "crawler/policy/domain_budget.h"
#include "frontier/snapshot.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"

namespace sieve {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::filesystem::path(SIEVE_TESTDATA) / name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// tests/testdata/crawl_state_v1/crawl.state was written by a 40-page demo
// crawl (format 1); every later version must read it, or refuse it by name.
TEST(CrawlStateFormatTest, ThePinnedFormat1ImageIsRead) {
  const std::string text = ReadTestdata("crawl_state_v1/crawl.state");
  ASSERT_FALSE(text.empty());
  absl::StatusOr<CrawlState> state = DecodeCrawlState(text, "crawl.state");
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->sequence, 2u);
  EXPECT_EQ(state->pages_offset, 14392u);
  EXPECT_EQ(state->counters.pages, 40u);
  EXPECT_THAT(state->seed_hosts, SizeIs(1));
  EXPECT_THAT(state->warc_files, SizeIs(1));
}

TEST(CrawlStateFormatTest, AnotherFormatIsRefusedByName) {
  std::string text = ReadTestdata("crawl_state_v1/crawl.state");
  ASSERT_EQ(text.rfind("{\"format\":1,", 0), 0u);
  text.replace(0, 11, "{\"format\":0");
  absl::StatusOr<CrawlState> old = DecodeCrawlState(text, "crawl.state");
  EXPECT_THAT(std::string(old.status().message()),
              HasSubstr("crawl.state: format 0 is too old"));
  text.replace(0, 11, "{\"format\":9");
  absl::StatusOr<CrawlState> newer = DecodeCrawlState(text, "crawl.state");
  EXPECT_THAT(std::string(newer.status().message()),
              HasSubstr("format 9 is newer than this build"));
}

TEST(CrawlStateFormatTest, ACheckpointWithTheOlderHistoryFileIsRefused) {
  const test::ScopedTempDir scratch;
  const std::filesystem::path dir = scratch / "checkpoint";
  absl::StatusOr<SnapshotWriter> writer = SnapshotWriter::Begin(dir);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE(
      writer->AddFile("crawl.state", ReadTestdata("crawl_state_v1/crawl.state"))
          .ok());
  ASSERT_TRUE(writer->AddFile("crawl.history", "sieve-url-history 1\n").ok());
  ASSERT_TRUE(writer->Commit().ok());
  absl::StatusOr<SnapshotReader> snapshot = SnapshotReader::Open(dir);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  absl::StatusOr<CrawlState> state = ReadCrawlState(*snapshot);
  EXPECT_TRUE(absl::IsFailedPrecondition(state.status())) << state.status();
  EXPECT_THAT(std::string(state.status().message()),
              HasSubstr("crawl.history"));
}

// The domain budget's counts survive a checkpoint: domains.budget beside
// crawl.state is read back into CrawlState::domain_budget.
TEST(CrawlStateFormatTest, TheDomainBudgetsTableComesBackFromItsFile) {
  DomainBudget budget({.base = 3, .per_referrer = 0});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(budget.Admit("trap.test"));
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "domain-budget-checkpoint";
  std::filesystem::remove_all(dir);
  absl::StatusOr<SnapshotWriter> writer = SnapshotWriter::Begin(dir);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE(
      writer->AddFile("crawl.state", ReadTestdata("crawl_state_v1/crawl.state"))
          .ok());
  ASSERT_TRUE(writer->AddFile("domains.budget", budget.Save()).ok());
  ASSERT_TRUE(writer->Commit().ok());
  absl::StatusOr<SnapshotReader> snapshot = SnapshotReader::Open(dir);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  absl::StatusOr<CrawlState> state = ReadCrawlState(*snapshot);
  ASSERT_TRUE(state.ok()) << state.status();
  DomainBudget restored({.base = 3, .per_referrer = 0});
  ASSERT_TRUE(restored.Load(state->domain_budget).ok());
  EXPECT_EQ(restored.Count("trap.test"), 3u);
  EXPECT_FALSE(restored.Admit("trap.test"));
}

}  // namespace
}  // namespace sieve
