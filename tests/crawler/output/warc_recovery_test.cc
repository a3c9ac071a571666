// WARC recovery after a crash (crawler/output/warc_recovery.h): the index
// rebuilt from the files, the cut back to a checkpoint, and a torn record read
// back as data loss. The writer's own tests are warc_writer_test.cc.
#include "crawler/output/warc_recovery.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crawler/output/cdxj_index.h"
#include "crawler/output/warc_reader.h"
#include "crawler/output/warc_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/common/temp_dir.h"
#include "tests/crawler/output/warc_test_util.h"

namespace sieve {
namespace {

using ::sieve::testing_warc::Exchange;
using ::sieve::testing_warc::FilesEndingWith;
using ::sieve::testing_warc::Lines;
using ::sieve::testing_warc::OpenWriter;
using ::sieve::testing_warc::RandomBody;
using ::sieve::testing_warc::ReadAll;
using ::testing::SizeIs;
using ::testing::StartsWith;

TEST(WarcRecoveryTest, RebuildsTheSameIndexTheWriterWrote) {
  test::ScopedTempDir dir;
  std::unique_ptr<WarcWriter> w = OpenWriter(dir.path());
  std::string file;
  for (const char* u :
       {"http://b.test/", "http://a.test/x", "http://c.test/"}) {
    auto at = w->WriteExchange(Exchange(u, std::string("body ") + u));
    ASSERT_TRUE(at.ok());
    file = at->file;
  }
  ASSERT_TRUE(
      w->WriteExchange(Exchange("http://d.test/", "body http://b.test/"))
          .ok());  // A revisit.
  ASSERT_TRUE(w->WriteResource({.target_uri = "urn:sieve:render:http://b.test/",
                                .date = absl::FromUnixSeconds(1700000000),
                                .content_type = "application/json",
                                .block = "{}"})
                  .ok());
  ASSERT_TRUE(w->Close().ok());
  const std::filesystem::path warc = dir.path() / file;
  const auto written = Lines(CdxjPathFor(warc));
  ASSERT_THAT(written, SizeIs(5));
  ASSERT_TRUE(IndexWarcFile(
                  warc, static_cast<int64_t>(std::filesystem::file_size(warc)))
                  .ok());
  EXPECT_EQ(Lines(CdxjPathFor(warc)), written);
}

TEST(WarcRecoveryTest, CutsBackToTheCheckpointAndTheIndexMatches) {
  test::ScopedTempDir dir;
  std::unique_ptr<WarcWriter> w = OpenWriter(dir.path(), /*max_bytes=*/6000);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(w->WriteExchange(Exchange(absl::StrCat("http://a.test/", i),
                                          RandomBody(1000, i)))
                    .ok());
  }
  absl::StatusOr<std::vector<WarcFileState>> checkpoint = w->Sync();
  ASSERT_TRUE(checkpoint.ok());
  ASSERT_THAT(*checkpoint, SizeIs(1));
  EXPECT_FALSE((*checkpoint)[0].closed);
  // After the checkpoint: more pages, a rotation into a second file...
  for (int i = 2; i < 8; ++i) {
    ASSERT_TRUE(w->WriteExchange(Exchange(absl::StrCat("http://a.test/", i),
                                          RandomBody(1000, i)))
                    .ok());
  }
  ASSERT_GE(w->stats().files, 2);
  w.reset();
  // ... and a torn record at the end of the first file, as a kill leaves it.
  const std::filesystem::path first = dir.path() / (*checkpoint)[0].file;
  {
    std::ofstream torn(first, std::ios::app | std::ios::binary);
    torn << std::string("\x1f\x8b\x08\x00garbage", 11);
  }
  ASSERT_TRUE(RecoverWarcDirectory(dir.path(), *checkpoint).ok());

  EXPECT_EQ(static_cast<int64_t>(std::filesystem::file_size(first)),
            (*checkpoint)[0].length);
  EXPECT_THAT(FilesEndingWith(dir.path(), ".warc.gz"), SizeIs(1));
  EXPECT_THAT(FilesEndingWith(dir.path(), ".cdxj"), SizeIs(1));
  const std::vector<WarcRecord> records = ReadAll(first);  // To its end.
  ASSERT_THAT(records, SizeIs(5));
  int64_t end = 0;
  for (const WarcRecord& r : records) {
    EXPECT_TRUE(VerifyWarcDigests(r).ok());
    end = r.offset + r.length;
  }
  EXPECT_EQ(end, (*checkpoint)[0].length);
  const auto lines = Lines(CdxjPathFor(first));
  ASSERT_THAT(lines, SizeIs(2));
  EXPECT_THAT(lines[0], StartsWith("test,a)/0 "));
  EXPECT_THAT(lines[1], StartsWith("test,a)/1 "));
  EXPECT_EQ(NextWarcSerial(*checkpoint), 1);
}

TEST(WarcRecoveryTest, StatesRoundTripThroughCheckpointJson) {
  const std::vector<WarcFileState> states = {
      {"sieve-20261122140555123-00000.warc.gz", 1000, true},
      {"sieve-20261122140556123-00001.warc.gz", 42, false}};
  auto back = WarcFileStatesFromJson(WarcFileStatesToJson(states));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_THAT(*back, SizeIs(2));
  EXPECT_EQ((*back)[1].file, states[1].file);
  EXPECT_EQ((*back)[1].length, 42);
  EXPECT_FALSE((*back)[1].closed);
  EXPECT_EQ(NextWarcSerial(*back), 2);
  EXPECT_FALSE(
      WarcFileStatesFromJson(
          nlohmann::json::parse(
              R"([{"file":"../etc/passwd.warc.gz","length":1,"closed":true}])"))
          .ok());
  EXPECT_FALSE(
      WarcFileStatesFromJson(nlohmann::json::parse(R"({"a":1})")).ok());
}

TEST(WarcRecoveryTest, RefusesAFileShorterThanTheCheckpoint) {
  test::ScopedTempDir dir;
  std::unique_ptr<WarcWriter> w = OpenWriter(dir.path());
  ASSERT_TRUE(w->WriteExchange(Exchange("http://a.test/", "x")).ok());
  auto states = *w->Sync();
  states[0].length += 100;
  EXPECT_EQ(
      TruncateWarcFile(dir.path() / states[0].file, states[0].length).code(),
      absl::StatusCode::kDataLoss);
}

TEST(WarcReaderTest, ReportsATornRecordAsDataLoss) {
  test::ScopedTempDir dir;
  std::unique_ptr<WarcWriter> w = OpenWriter(dir.path());
  auto at = w->WriteExchange(Exchange("http://a.test/", RandomBody(3000, 1)));
  ASSERT_TRUE(at.ok());
  ASSERT_TRUE(w->Close().ok());
  const std::filesystem::path file = dir.path() / at->file;
  std::filesystem::resize_file(file, at->offset + at->length / 2);
  auto reader = *WarcFileReader::Open(file);
  EXPECT_EQ(reader.ReadAt(at->offset).status().code(),
            absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace sieve
