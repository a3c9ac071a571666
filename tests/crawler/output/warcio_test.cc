// Our WARC files read by a reader no one here wrote: webrecorder's warcio
// (npm package `warcio`, installed by scripts/install-deps.sh). Skipped, with
// a message, when its command is not found: set SIEVE_WARCIO to its path or
// put `warcio` on PATH.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
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
using ::sieve::testing_warc::FindWarcio;
using ::sieve::testing_warc::Lines;
using ::sieve::testing_warc::ReadAll;
using ::testing::SizeIs;

// Runs `command`, returns its stdout lines; fails the test on a non-zero
// exit.
std::vector<std::string> RunCommand(const std::string& command) {
  std::vector<std::string> lines;
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr) << command;
  if (pipe == nullptr) return lines;
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), pipe)) > 0;)
    out.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0) << command << "\n" << out;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    lines.emplace_back(line);
  }
  return lines;
}

class WarcioTest : public testing::Test {
 protected:
  void SetUp() override {
    warcio_ = FindWarcio();
    if (warcio_.empty()) {
      GTEST_SKIP() << "warcio not found (scripts/install-deps.sh installs it "
                      "with npm; or set SIEVE_WARCIO): independent check "
                      "skipped";
    }
    WarcWriterOptions o;
    o.directory = dir_.path();
    o.info = {{"user-agent", "SieveBot/0.1"}};
    auto w = *WarcWriter::Open(o);
    // A plain page, a chunked one (de-chunked, field renamed), a gzip-coded
    // one (payload kept compressed), a cut one, a revisit, a page and its
    // revisit after a 304, and a resource.
    ASSERT_TRUE(
        w->WriteExchange(Exchange("http://a.test/", "<p>home</p>")).ok());
    WarcExchange chunked = Exchange("http://a.test/chunked", "hello world");
    chunked.response_head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
        "Transfer-Encoding: chunked\r\n\r\n";
    ASSERT_TRUE(w->WriteExchange(chunked).ok());
    WarcExchange gz = Exchange("http://a.test/gz", "");
    gz.payload = GzipMember("<p>compressed page</p>");
    gz.response_head = absl::StrCat(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: "
        "gzip\r\nContent-Length: ",
        gz.payload.size(), "\r\n\r\n");
    ASSERT_TRUE(w->WriteExchange(gz).ok());
    WarcExchange cut = Exchange("http://a.test/big", std::string(100, 'x'));
    cut.cut = BodyCut::kLength;
    ASSERT_TRUE(w->WriteExchange(cut).ok());
    auto revisit = w->WriteExchange(Exchange("http://b.test/", "<p>home</p>"));
    ASSERT_TRUE(revisit.ok());
    ASSERT_EQ(revisit->kind, WarcRecordKind::kRevisit);
    // A revisit crawl's 304 to its conditional request: a revisit of
    // profile server-not-modified referring to the page's first record.
    auto first = w->WriteExchange(Exchange("http://a.test/page", "<p>v1</p>"));
    ASSERT_TRUE(first.ok());
    WarcExchange not_modified = Exchange("http://a.test/page", "");
    not_modified.response_head =
        "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n";
    not_modified.original =
        WarcOriginal{.record_id = first->record_id,
                     .target_uri = "http://a.test/page",
                     .date = not_modified.date,
                     .payload_digest = first->payload_digest};
    auto unchanged = w->WriteExchange(not_modified);
    ASSERT_TRUE(unchanged.ok());
    ASSERT_EQ(unchanged->kind, WarcRecordKind::kRevisit);
    // A render's record: a resource under a urn:.
    ASSERT_TRUE(w->WriteResource({.target_uri = "urn:sieve:render:"
                                                "http://a.test/app",
                                  .date = not_modified.date,
                                  .content_type = "application/json",
                                  .block = R"({"dom":"<p>app</p>"})"})
                    .ok());
    ASSERT_TRUE(w->Close().ok());
    warc_ = dir_.path() / revisit->file;
  }

  test::ScopedTempDir dir_;
  std::string warcio_;
  std::filesystem::path warc_;
};

TEST_F(WarcioTest, IndexesEveryRecordAtTheOffsetsWeWrote) {
  const std::vector<WarcRecord> ours = ReadAll(warc_);
  ASSERT_THAT(ours, SizeIs(16));
  const std::vector<std::string> theirs = RunCommand(
      absl::StrCat(warcio_, " index ", warc_.string(),
                   " --fields offset,length,warc-type,warc-target-uri,"
                   "warc-payload-digest"));
  ASSERT_THAT(theirs, SizeIs(ours.size()));
  for (size_t i = 0; i < ours.size(); ++i) {
    const auto json = nlohmann::json::parse(theirs[i]);
    EXPECT_EQ(json["offset"].get<int64_t>(), ours[i].offset) << theirs[i];
    EXPECT_EQ(json["length"].get<int64_t>(), ours[i].length) << theirs[i];
    EXPECT_EQ(json["warc-type"], ours[i].Field("WARC-Type"));
    if (i > 0) {
      EXPECT_EQ(json["warc-target-uri"], ours[i].Field("WARC-Target-URI"));
    }
  }
}

TEST_F(WarcioTest, BuildsTheSameCdxjAsOurs) {
  std::vector<std::string> theirs =
      RunCommand(absl::StrCat(warcio_, " cdx-index ", warc_.string()));
  const std::vector<std::string> ours = Lines(CdxjPathFor(warc_));
  ASSERT_THAT(ours, SizeIs(8));
  // warcio also indexes request records; compare the responses, revisits
  // and the resource.
  std::vector<std::string> theirs_responses;
  for (const std::string& line : theirs) {
    const auto json = nlohmann::json::parse(line.substr(line.find('{')));
    if (json.value("mime", "") == "-" || json.contains("method")) continue;
    theirs_responses.push_back(line);
  }
  ASSERT_THAT(theirs_responses, SizeIs(ours.size()));
  std::sort(theirs_responses.begin(), theirs_responses.end());
  for (size_t i = 0; i < ours.size(); ++i) {
    const std::string key_ours = ours[i].substr(0, ours[i].find('{'));
    const std::string key_theirs =
        theirs_responses[i].substr(0, theirs_responses[i].find('{'));
    EXPECT_EQ(key_ours, key_theirs);  // SURT and timestamp.
    const auto a = nlohmann::json::parse(ours[i].substr(ours[i].find('{')));
    const auto b = nlohmann::json::parse(
        theirs_responses[i].substr(theirs_responses[i].find('{')));
    for (const char* field :
         {"url", "mime", "status", "digest", "length", "offset"}) {
      // A resource has no status: absent in both.
      EXPECT_EQ(a.value(field, "(absent)"), b.value(field, "(absent)"))
          << field << "\nours:   " << ours[i]
          << "\ntheirs: " << theirs_responses[i];
    }
  }
}

}  // namespace
}  // namespace sieve
