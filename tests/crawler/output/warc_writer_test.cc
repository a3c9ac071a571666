#include "crawler/output/warc_writer.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "crawler/output/cdxj_index.h"
#include "crawler/output/warc_format.h"
#include "crawler/output/warc_reader.h"
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
using ::testing::HasSubstr;
using ::testing::SizeIs;
using ::testing::StartsWith;

TEST(WarcFormatTest, Base32AndSha1MatchPublishedVectors) {
  EXPECT_EQ(Base32("foobar"), "MZXW6YTBOI======");  // RFC 4648 section 10.
  EXPECT_EQ(Base32(""), "");
  // SHA-1("") = da39a3ee...; its Base32 as wget and warcio write it.
  EXPECT_EQ(Sha1Digest(""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
}

TEST(WarcFormatTest, RecordIdsAreRandomVersionFourUuids) {
  absl::BitGen gen;
  const std::string a = NewWarcRecordId(gen);
  const std::string b = NewWarcRecordId(gen);
  EXPECT_NE(a, b);
  EXPECT_THAT(a, StartsWith("<urn:uuid:"));
  ASSERT_EQ(a.size(), 47u);
  EXPECT_EQ(a[24], '4');  // Version nibble.
  EXPECT_THAT(std::string("89ab"), HasSubstr(std::string(1, a[29])));
}

TEST(WarcFormatTest, DatesCarryMicroseconds) {
  const absl::Time t = absl::FromUnixMicros(1'700'000'000'123'456);
  EXPECT_EQ(WarcDate(t), "2023-11-14T22:13:20.123456Z");
  EXPECT_EQ(CdxTimestamp(t), "20231114221320");
  absl::Time back;
  ASSERT_TRUE(ParseWarcDate(WarcDate(t), &back));
  EXPECT_EQ(back, t);
}

TEST(WarcWriterTest, WritesRequestAndResponseRecordsThatReadBackFromOffsets) {
  test::ScopedTempDir dir;
  std::unique_ptr<WarcWriter> w = OpenWriter(dir.path());
  std::vector<WarcLocation> at;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<WarcLocation> loc =
        w->WriteExchange(Exchange(absl::StrCat("http://a.test/p", i),
                                  absl::StrCat("<p>page ", i, "</p>")));
    ASSERT_TRUE(loc.ok()) << loc.status();
    EXPECT_EQ(loc->kind, WarcRecordKind::kResponse);
    at.push_back(*loc);
  }
  ASSERT_TRUE(w->Close().ok());
  EXPECT_EQ(w->stats().responses, 3);
  EXPECT_EQ(w->stats().records, 7);

  const std::filesystem::path warc = dir.path() / at[0].file;
  const std::vector<WarcRecord> records = ReadAll(warc);
  ASSERT_THAT(records, SizeIs(7));
  EXPECT_EQ(records[0].version, "WARC/1.1");
  EXPECT_EQ(records[0].Field("WARC-Type"), "warcinfo");
  EXPECT_EQ(records[0].Field("WARC-Filename"), at[0].file);
  EXPECT_THAT(records[0].block, HasSubstr("software: Sieve/test\r\n"));
  EXPECT_THAT(records[0].block, HasSubstr("user-agent: SieveBot/0.1\r\n"));
  for (const WarcRecord& r : records) {
    EXPECT_TRUE(VerifyWarcDigests(r).ok()) << VerifyWarcDigests(r);
  }
  for (int i = 0; i < 3; ++i) {
    const WarcRecord& request = records[1 + 2 * i];
    const WarcRecord& response = records[2 + 2 * i];
    EXPECT_EQ(request.Field("WARC-Type"), "request");
    EXPECT_EQ(response.Field("WARC-Type"), "response");
    EXPECT_EQ(response.Field("Content-Type"),
              "application/http;msgtype=response");
    EXPECT_EQ(request.Field("WARC-Concurrent-To"),
              response.Field("WARC-Record-ID"));
    EXPECT_EQ(response.Field("WARC-Concurrent-To"),
              request.Field("WARC-Record-ID"));
    EXPECT_EQ(response.Field("WARC-Date"), "2023-11-14T22:13:20.123456Z");
    EXPECT_EQ(response.Field("WARC-IP-Address"), "127.0.0.1");
    EXPECT_EQ(response.Field("WARC-Truncated"), "");
    EXPECT_EQ(response.Field("WARC-Payload-Digest"),
              Sha1Digest(absl::StrCat("<p>page ", i, "</p>")));
    EXPECT_THAT(request.block, StartsWith("GET /p"));
    // The location WriteExchange returned reads that URL's response alone.
    absl::StatusOr<WarcFileReader> reader = WarcFileReader::Open(warc);
    ASSERT_TRUE(reader.ok());
    absl::StatusOr<WarcRecord> direct = reader->ReadAt(at[i].offset);
    ASSERT_TRUE(direct.ok()) << direct.status();
    EXPECT_EQ(direct->length, at[i].length);
    EXPECT_EQ(direct->Field("WARC-Target-URI"),
              absl::StrCat("http://a.test/p", i));
    EXPECT_EQ(direct->offset, response.offset);
  }
}

TEST(WarcWriterTest, RotatesAtMaxBytesAndOpensEveryFileWithWarcinfo) {
  test::ScopedTempDir dir;
  std::unique_ptr<WarcWriter> w = OpenWriter(dir.path(), /*max_bytes=*/5000);
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(w->WriteExchange(Exchange(absl::StrCat("http://a.test/", i),
                                          RandomBody(1500, i)))
                    .ok());
  }
  ASSERT_TRUE(w->Close().ok());
  const auto warcs = FilesEndingWith(dir.path(), ".warc.gz");
  ASSERT_GE(warcs.size(), 4u);
  EXPECT_EQ(w->stats().files, static_cast<int64_t>(warcs.size()));
  int responses = 0;
  for (const auto& warc : warcs) {
    EXPECT_LE(std::filesystem::file_size(warc), 5000u);
    const std::vector<WarcRecord> records = ReadAll(warc);
    ASSERT_FALSE(records.empty());
    EXPECT_EQ(records[0].Field("WARC-Type"), "warcinfo") << warc;
    for (const WarcRecord& r : records) {
      EXPECT_TRUE(VerifyWarcDigests(r).ok());
      responses += r.Field("WARC-Type") == "response";
    }
    EXPECT_TRUE(std::filesystem::exists(CdxjPathFor(warc)));
  }
  EXPECT_EQ(responses, 12);
}

TEST(WarcWriterTest, WritesTheSameBytesAtAnotherUrlAsARevisit) {
  test::ScopedTempDir dir;
  std::unique_ptr<WarcWriter> w = OpenWriter(dir.path());
  const absl::Time t1 = absl::FromUnixSeconds(1'700'000'000);
  const absl::Time t2 = t1 + absl::Seconds(5);
  ASSERT_TRUE(w->WriteExchange(Exchange("http://a.test/x", "same", t1)).ok());
  absl::StatusOr<WarcLocation> second =
      w->WriteExchange(Exchange("http://mirror.test/x", "same", t2));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->kind, WarcRecordKind::kRevisit);
  ASSERT_TRUE(w->Close().ok());
  EXPECT_EQ(w->stats().revisits, 1);
  EXPECT_EQ(w->stats().responses, 1);

  absl::StatusOr<WarcFileReader> reader =
      WarcFileReader::Open(dir.path() / second->file);
  ASSERT_TRUE(reader.ok());
  absl::StatusOr<WarcRecord> revisit = reader->ReadAt(second->offset);
  ASSERT_TRUE(revisit.ok());
  EXPECT_EQ(revisit->Field("WARC-Type"), "revisit");
  EXPECT_EQ(revisit->Field("WARC-Profile"),
            "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest");
  EXPECT_EQ(revisit->Field("WARC-Refers-To-Target-URI"), "http://a.test/x");
  EXPECT_EQ(revisit->Field("WARC-Refers-To-Date"), WarcDate(t1));
  EXPECT_EQ(revisit->Field("WARC-Payload-Digest"), Sha1Digest("same"));
  EXPECT_THAT(revisit->block, StartsWith("HTTP/1.1 200 OK"));
  EXPECT_FALSE(absl::StrContains(revisit->block, "same"));
  EXPECT_TRUE(VerifyWarcDigests(*revisit).ok());
  const auto cdxj = Lines(CdxjPathFor(dir.path() / second->file));
  ASSERT_THAT(cdxj, SizeIs(2));
  EXPECT_THAT(cdxj[1], HasSubstr("\"mime\":\"warc/revisit\""));
}

TEST(WarcWriterTest, KeepsTheDigestTableWithinItsBound) {
  test::ScopedTempDir dir;
  WarcWriterOptions o;
  o.directory = dir.path();
  o.max_digests = 2;
  auto w = *WarcWriter::Open(o);
  for (const char* body : {"a", "b", "c", "c", "a"}) {
    ASSERT_TRUE(w->WriteExchange(Exchange(absl::StrCat("http://a.test/", body,
                                                       "/", w->stats().records),
                                          body))
                    .ok());
  }
  // "c" came when the table was full: written in full both times; "a" was
  // remembered and is revisited.
  EXPECT_EQ(w->stats().digests_dropped, 2);
  EXPECT_EQ(w->stats().revisits, 1);
  EXPECT_EQ(w->stats().responses, 4);
}

TEST(WarcWriterTest, MarksBodiesACapCutAndNeverRevisitsThem) {
  test::ScopedTempDir dir;
  std::unique_ptr<WarcWriter> w = OpenWriter(dir.path());
  WarcExchange by_length = Exchange("http://a.test/big", "partial");
  by_length.cut = BodyCut::kLength;
  WarcExchange by_time = Exchange("http://a.test/slow", "partial");
  by_time.cut = BodyCut::kTime;
  auto a = w->WriteExchange(by_length);
  auto b = w->WriteExchange(by_time);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(b->kind, WarcRecordKind::kResponse);
  ASSERT_TRUE(w->Close().ok());
  auto reader = *WarcFileReader::Open(dir.path() / a->file);
  EXPECT_EQ(reader.ReadAt(a->offset)->Field("WARC-Truncated"), "length");
  EXPECT_EQ(reader.ReadAt(b->offset)->Field("WARC-Truncated"), "time");
  EXPECT_EQ(w->stats().truncated, 2);
}

TEST(WarcWriterTest, RenamesTransferEncodingBecauseThePayloadIsDechunked) {
  test::ScopedTempDir dir;
  std::unique_ptr<WarcWriter> w = OpenWriter(dir.path());
  WarcExchange ex = Exchange("http://a.test/c", "hello");
  ex.response_head =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
      "Content-Type: text/plain\r\n\r\n";
  auto at = w->WriteExchange(ex);
  ASSERT_TRUE(at.ok());
  ASSERT_TRUE(w->Close().ok());
  auto record =
      *(*WarcFileReader::Open(dir.path() / at->file)).ReadAt(at->offset);
  EXPECT_EQ(record.block,
            "HTTP/1.1 200 OK\r\nX-Sieve-Transfer-Encoding: chunked\r\n"
            "Content-Type: text/plain\r\n\r\nhello");
  EXPECT_TRUE(VerifyWarcDigests(record).ok());
}

TEST(WarcWriterTest, WritesASortedCdxjThatPointsAtEachResponse) {
  test::ScopedTempDir dir;
  std::unique_ptr<WarcWriter> w = OpenWriter(dir.path());
  const std::vector<std::string> urls = {
      "http://www.b.test/z", "http://a.test/", "http://c.test:8080/Q?b=2&a=1"};
  std::string file;
  for (const std::string& u : urls) {
    auto at = w->WriteExchange(Exchange(u, "body of " + u));
    ASSERT_TRUE(at.ok());
    file = at->file;
  }
  ASSERT_TRUE(w->Close().ok());
  const auto lines = Lines(CdxjPathFor(dir.path() / file));
  ASSERT_THAT(lines, SizeIs(3));
  EXPECT_TRUE(std::is_sorted(lines.begin(), lines.end()));
  EXPECT_THAT(lines[0], StartsWith("test,a)/ 20231114221320 {\"url\":"));
  EXPECT_THAT(lines[1], StartsWith("test,b)/z 20231114221320 "));
  EXPECT_THAT(lines[2], StartsWith("test,c:8080)/q?a=1&b=2 "));
  auto reader = *WarcFileReader::Open(dir.path() / file);
  for (const std::string& line : lines) {
    const auto json = nlohmann::json::parse(line.substr(line.find('{')));
    EXPECT_EQ(json["status"], "200");
    EXPECT_EQ(json["mime"], "text/html");
    EXPECT_EQ(json["filename"], file);
    auto record = reader.ReadAt(std::stoll(json["offset"].get<std::string>()));
    ASSERT_TRUE(record.ok());
    EXPECT_EQ(record->Field("WARC-Target-URI"), json["url"]);
    EXPECT_EQ(record->length, std::stoll(json["length"].get<std::string>()));
    EXPECT_EQ("sha1:" + json["digest"].get<std::string>(),
              record->Field("WARC-Payload-Digest"));
  }
}

// A render's DOM and requests (crawler/render/render_archive.h): a resource
// record under a urn:, never a fetched URL's, its digests over the block.
TEST(WarcWriterTest, WritesAResourceUnderItsUrnAndRefusesAnyOtherUri) {
  test::ScopedTempDir dir;
  std::unique_ptr<WarcWriter> w = OpenWriter(dir.path());
  WarcResource resource{.target_uri = "urn:sieve:render:http://a.test/",
                        .date = absl::FromUnixSeconds(1700000000),
                        .content_type = "application/json",
                        .block = R"({"dom":"<p>x</p>"})"};
  auto at = w->WriteResource(resource);
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_EQ(at->kind, WarcRecordKind::kResource);
  resource.target_uri = "http://a.test/";
  EXPECT_TRUE(absl::IsInvalidArgument(w->WriteResource(resource).status()));
  ASSERT_TRUE(w->Close().ok());
  EXPECT_EQ(w->stats().resources, 1);
  auto record =
      (*WarcFileReader::Open(dir.path() / at->file)).ReadAt(at->offset);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->Field("WARC-Type"), "resource");
  EXPECT_EQ(record->Field("WARC-Target-URI"),
            "urn:sieve:render:http://a.test/");
  EXPECT_EQ(record->Field("Content-Type"), "application/json");
  EXPECT_EQ(record->Field("WARC-Record-ID"), at->record_id);
  EXPECT_EQ(record->block, R"({"dom":"<p>x</p>"})");
  EXPECT_EQ(record->Field("WARC-Payload-Digest"), Sha1Digest(record->block));
  EXPECT_TRUE(VerifyWarcDigests(*record).ok());
  const auto lines = Lines(CdxjPathFor(dir.path() / at->file));
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_THAT(lines[0], StartsWith("urn:sieve:render:http://a.test/ "
                                   "20231114221320 {\"url\":"));
  EXPECT_THAT(lines[0], HasSubstr("\"mime\":\"application/json\""));
}

}  // namespace
}  // namespace sieve
