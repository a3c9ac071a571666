// Pinned formats: tests/testdata/frontier_format_v2/ is a Frontier checkpoint
// written by the code of 26 Nov 2026 (snapshot MANIFEST format 2,
// frontier.state format 2, Sieve state format 2) from the workload of
// frontier_format_workload.h. Every later version must resume it, or refuse
// it with "format N is too old" and then change this test along with the
// format (and check in a new image with scripts/write-pinned-formats.sh).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "filter/durable_file.h"
#include "filter/key_hash.h"
#include "frontier/frontier.h"
#include "frontier/internal/host_snapshot.h"
#include "frontier/internal/snapshot.h"
#include "frontier/snapshot.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/files.h"
#include "tests/common/temp_dir.h"
#include "tests/frontier/frontier_format_workload.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using testing_format::kStart;
const fs::path kImage = fs::path(SIEVE_TESTDATA) / "frontier_format_v2";

class FrontierFormatTest : public ::testing::Test {
 protected:
  FrontierFormatTest() { fs::create_directories(root_ / "work"); }

  FrontierOptions Options() const {
    return testing_format::Options(root_ / "work");
  }
  void Workload(const fs::path& dir) {
    ASSERT_TRUE(testing_format::Workload(dir, root_ / "work").ok());
  }

  // Restores the checkpoint under `dir` (copied first: a restore may open
  // its store in place) and hands everything out.
  struct Resumed {
    FrontierStats stats;
    std::vector<std::string> urls;
  };
  Resumed Resume(const fs::path& dir, const std::string& name) {
    const fs::path copy = root_ / name;
    fs::copy(dir, copy, fs::copy_options::recursive);
    Resumed out;
    absl::StatusOr<std::unique_ptr<Frontier>> f =
        Frontier::Restore(copy, Options());
    EXPECT_TRUE(f.ok()) << f.status();
    if (!f.ok()) return out;
    out.stats = (*f)->stats();
    for (int i = 0; i < 100; ++i) {
      NextUrl next = (*f)->Next(kStart + absl::Hours(i));
      if (next.state != NextUrl::kReady) break;
      out.urls.push_back(absl::StrCat(next.url.url, " ", next.url.depth, " ",
                                      next.url.metadata));
      EXPECT_TRUE((*f)->Done(next.url.url,
                             FetchOutcome::Success(absl::Milliseconds(5)),
                             kStart + absl::Hours(i))
                      .ok());
    }
    return out;
  }

  // The live snapshot directory of the image (CURRENT names it).
  static fs::path Live(const fs::path& dir) {
    std::string current = test::ReadFile(dir / "CURRENT");
    while (!current.empty() && current.back() == '\n') current.pop_back();
    return dir / current;
  }

  const test::ScopedTempDir root_;
};

TEST_F(FrontierFormatTest,
       ResumesThePinnedCheckpointAsTodaysCodeResumesItsOwn) {
  ASSERT_TRUE(fs::exists(kImage / "CURRENT")) << kImage;
  Workload(root_ / "today");
  const Resumed pinned = Resume(kImage, "pinned");
  const Resumed today = Resume(root_ / "today", "today_copy");
  EXPECT_EQ(pinned.stats.queued, 26u);  // 24 queued + 2 in flight.
  EXPECT_EQ(pinned.stats.dispatched, 6u);
  EXPECT_EQ(pinned.stats.done, 4u);
  EXPECT_EQ(pinned.stats.added, 30u);
  EXPECT_EQ(pinned.stats.crawl_delays_capped, 1u);
  EXPECT_EQ(pinned.urls.size(), 26u);
  EXPECT_EQ(pinned.urls, today.urls);
  EXPECT_EQ(pinned.stats.queued, today.stats.queued);
  EXPECT_EQ(pinned.stats.done, today.stats.done);
}

// Each saved format, rewritten as version 1 with a correct checksum, is
// refused by name.
TEST_F(FrontierFormatTest, ASnapshotManifestOfAnOlderFormatIsRefusedByName) {
  const std::string text = test::ReadFile(Live(kImage) / "MANIFEST");
  ASSERT_FALSE(text.empty());
  ASSERT_TRUE(ParseSnapshotManifest(text, "MANIFEST").ok());
  std::string body = text.substr(0, text.rfind("checksum "));
  body = "sieve-snapshot 1" + body.substr(body.find('\n'));
  const std::string old = absl::StrCat(
      body, "checksum ", absl::Hex(Checksum64(body), absl::kZeroPad16), "\n");
  absl::StatusOr<std::vector<ManifestEntry>> parsed =
      ParseSnapshotManifest(old, "MANIFEST");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("format 1 is too old"));
}

TEST_F(FrontierFormatTest, AFrontierStateOfAnOlderFormatIsRefusedByName) {
  const std::string bytes = test::ReadFile(Live(kImage) / "frontier.state");
  ASSERT_GT(bytes.size(), 20u);
  ASSERT_TRUE(DecodeHostSnapshot(bytes).ok());
  // "SIEVEFRS" | u32 version (little-endian) | ... | u64 XXH3-64.
  std::string body = bytes.substr(0, bytes.size() - 8);
  body[8] = 1;
  body[9] = body[10] = body[11] = 0;
  std::string old = body;
  const uint64_t sum = Fingerprint64(body);
  for (int i = 0; i < 8; ++i) old.push_back(static_cast<char>(sum >> (8 * i)));
  absl::StatusOr<HostSnapshot> decoded = DecodeHostSnapshot(old);
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(decoded.status().message(), HasSubstr("format 1 is too old"));
}

TEST_F(FrontierFormatTest, ASieveStateOfAnOlderFormatIsRefusedByName) {
  const std::string text = test::ReadFile(Live(kImage) / "sieve" / "state");
  ASSERT_TRUE(internal::DecodeManifest(text).ok());
  // "sieve-snapshot", then "format 2", then the other keys.
  const size_t at = text.find("\nformat 2\n");
  ASSERT_NE(at, std::string::npos);
  std::string old = text;
  old.replace(at, 10, "\nformat 1\n");
  absl::StatusOr<internal::SnapshotManifest> decoded =
      internal::DecodeManifest(old);
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(decoded.status().message(), HasSubstr("format 1 is too old"));
}

}  // namespace
}  // namespace sieve
