// summary.json and the CDXJ index are written through the one atomic, durable
// file write (filter/durable_file.h): whole or not at all, and a full disk is
// an error that says so. The full disk is a temporary file that links to
// /dev/full, which fails every write with ENOSPC.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "crawler/output/cdxj_index.h"
#include "crawler/output/summary.h"
#include "gtest/gtest.h"
#include "tests/common/files.h"
#include "tests/common/temp_dir.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

TEST(OutputFilesTest, SummaryJsonIsTheSummarysJson) {
  const test::ScopedTempDir dir;
  CrawlSummary summary;
  summary.pages_this_run = 7;
  ASSERT_TRUE(WriteSummaryJson(dir / "summary.json", summary).ok());
  EXPECT_EQ(test::ReadFile(dir / "summary.json"),
            SummaryToJson(summary) + "\n");
  EXPECT_FALSE(fs::exists(dir / "summary.json.tmp"));
}

TEST(OutputFilesTest, SummaryJsonOnAFullDiskIsAnErrorAndLeavesNothing) {
  const test::ScopedTempDir dir;
  fs::create_symlink("/dev/full", dir / "summary.json.tmp");
  const absl::Status s = WriteSummaryJson(dir / "summary.json", CrawlSummary{});
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_FALSE(fs::exists(dir / "summary.json"));
  EXPECT_FALSE(fs::is_symlink(dir / "summary.json.tmp"));
}

TEST(OutputFilesTest, CdxjOnAFullDiskIsAnErrorAndLeavesNothing) {
  const test::ScopedTempDir dir;
  fs::create_symlink("/dev/full", dir / "a.cdxj.tmp");
  const absl::Status s = WriteCdxjFile(dir / "a.cdxj", {"b 1 {}", "a 2 {}"});
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_FALSE(fs::exists(dir / "a.cdxj"));
  EXPECT_FALSE(fs::is_symlink(dir / "a.cdxj.tmp"));
}

TEST(OutputFilesTest, CdxjIsSortedLines) {
  const test::ScopedTempDir dir;
  ASSERT_TRUE(WriteCdxjFile(dir / "a.cdxj", {"b 1 {}", "a 2 {}"}).ok());
  EXPECT_EQ(test::ReadFile(dir / "a.cdxj"), "a 2 {}\nb 1 {}\n");
}

}  // namespace
}  // namespace sieve
