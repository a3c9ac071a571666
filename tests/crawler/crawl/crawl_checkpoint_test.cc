// A damaged checkpoint is refused, named, and changes nothing: `sieve crawl
// --resume` on a checkpoint with a corrupted manifest, a flipped byte in any
// file, a truncated file or an unknown format version exits 1 with the file
// and the problem, and leaves every file of the out directory as it was.
#include <filesystem>
#include <map>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "filter/durable_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_util::FreshDir;
using testing_util::StartSieve;
using testing_util::WaitFor;

using test::ReadFile;

// Every regular file under `dir` and its bytes, but the lock (OUT/.lock holds
// the pid of whoever took it last).
std::map<std::string, std::string> Contents(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename() != ".lock") {
      out[fs::relative(e.path(), dir).string()] = ReadFile(e.path());
    }
  }
  return out;
}

class CrawlCheckpointTest : public ::testing::Test {
 protected:
  // One stopped crawl (its checkpoint is the last thing it wrote), made once.
  static void SetUpTestSuite() {
    base_ = new fs::path(FreshDir("checkpoint-base"));
    const int code =
        WaitFor(StartSieve({"crawl", "--demo", "--max-pages", "150", "--out",
                            (*base_ / "out").string()},
                           *base_ / "log.txt"));
    ASSERT_EQ(code, 0) << ReadFile(*base_ / "log.txt");
    const std::string current =
        ReadFile(*base_ / "out" / "checkpoint" / "CURRENT");
    snapshot_ = new std::string(current.substr(0, current.find('\n')));
  }
  static void TearDownTestSuite() {
    delete base_;
    delete snapshot_;
  }

  // A copy of the crawl to damage.
  fs::path Copy(const std::string& name) {
    const fs::path dir = FreshDir(name);
    fs::copy(*base_ / "out", dir / "out", fs::copy_options::recursive);
    return dir / "out";
  }
  fs::path Snapshot(const fs::path& out) {
    return out / "checkpoint" / *snapshot_;
  }

  // Resumes `out`: exit 1, the log names `expected`, nothing in `out`
  // changed.
  void ExpectRefused(const fs::path& out, const std::string& expected) {
    const std::map<std::string, std::string> before = Contents(out);
    const fs::path log = out.parent_path() / "resume.txt";
    EXPECT_EQ(WaitFor(StartSieve({"crawl", "--resume", out.string()}, log)), 1);
    EXPECT_THAT(ReadFile(log), HasSubstr(expected));
    EXPECT_TRUE(Contents(out) == before) << "the out directory changed";
  }

  static fs::path* base_;
  static std::string* snapshot_;
};

fs::path* CrawlCheckpointTest::base_ = nullptr;
std::string* CrawlCheckpointTest::snapshot_ = nullptr;

TEST_F(CrawlCheckpointTest, ACorruptedManifestIsRefused) {
  const fs::path out = Copy("corrupt-manifest");
  const fs::path manifest = Snapshot(out) / "MANIFEST";
  std::string bytes = ReadFile(manifest);
  bytes[bytes.size() / 2] ^= 0x01;
  ASSERT_TRUE(test::WriteFile(manifest, bytes));
  ExpectRefused(out, "MANIFEST");
}

TEST_F(CrawlCheckpointTest, AFlippedByteInAnyFileIsRefusedAndNamed) {
  const std::map<std::string, std::string> files =
      Contents(Snapshot(*base_ / "out"));
  ASSERT_GE(files.size(), 5u);  // MANIFEST, crawl.state, frontier.state, ...
  int i = 0;
  for (const auto& [name, bytes] : files) {
    if (name == "MANIFEST" || bytes.empty()) continue;
    SCOPED_TRACE(name);
    const fs::path out = Copy(absl::StrCat("flip-", i++));
    std::string damaged = bytes;
    damaged[damaged.size() / 2] ^= 0x20;
    ASSERT_TRUE(test::WriteFile(Snapshot(out) / name, damaged));
    ExpectRefused(out, absl::StrCat(name, ": checksum mismatch"));
  }
}

TEST_F(CrawlCheckpointTest, ATruncatedFileIsRefusedAndNamed) {
  const fs::path out = Copy("truncated");
  const fs::path state = Snapshot(out) / "frontier.state";
  const std::string bytes = ReadFile(state);
  ASSERT_TRUE(test::WriteFile(state, bytes.substr(0, bytes.size() - 7)));
  ExpectRefused(out, "frontier.state: truncated or extended");
}

TEST_F(CrawlCheckpointTest, AMissingFileIsRefusedAndNamed) {
  const fs::path out = Copy("missing");
  fs::remove(Snapshot(out) / "sieve" / "filter.bin");
  ExpectRefused(out, "filter.bin: missing");
}

TEST_F(CrawlCheckpointTest, AnUnknownFormatVersionIsRefused) {
  // A version from the future and one from the past, each with a correct
  // checksum: only the version is wrong.
  for (const auto& [version, expected] :
       {std::pair<int, std::string>{99, "format 99 is newer than this build"},
        std::pair<int, std::string>{1, "format 1 is too old"}}) {
    const fs::path out = Copy(absl::StrCat("version", version));
    const fs::path manifest = Snapshot(out) / "MANIFEST";
    std::string text = ReadFile(manifest);
    std::string body = text.substr(0, text.rfind("checksum "));
    body =
        absl::StrCat("sieve-snapshot ", version, body.substr(body.find('\n')));
    ASSERT_TRUE(test::WriteFile(
        manifest,
        absl::StrCat(body, "checksum ",
                     absl::Hex(Checksum64(body), absl::kZeroPad16), "\n")));
    ExpectRefused(out, expected);
  }
}

TEST_F(CrawlCheckpointTest, AnIntactCheckpointStillResumes) {
  // The control: the same copy, undamaged, is accepted (the demo site is gone,
  // so the resumed crawl records its fetches as errors, but it runs).
  const fs::path out = Copy("intact");
  const fs::path log = out.parent_path() / "resume.txt";
  // 0 when it finishes within --max-run-time, 3 when the time runs out.
  const int code = WaitFor(StartSieve(
      {"crawl", "--resume", out.string(), "--max-run-time", "2"}, log));
  EXPECT_TRUE(code == 0 || code == 3) << code << "\n" << ReadFile(log);
}

}  // namespace
}  // namespace sieve
