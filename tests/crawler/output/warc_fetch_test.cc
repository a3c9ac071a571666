// From the wire to the archive: pages fetched from a loopback site with
// FetchOptions::keep_raw, written by WarcWriter, read back and checked; and the
// same site archived by `wget --warc-file` gives the same payload digests
// (skipped when wget is not installed).
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crawler/output/warc_reader.h"
#include "crawler/output/warc_writer.h"
#include "fetch/fetcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"
#include "tests/crawler/output/warc_test_util.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using ::sieve::fetch_test::FetchOne;
using ::sieve::fetch_test::HttpServer;
using ::sieve::fetch_test::TestOptions;
using ::sieve::testing_warc::ReadAll;
using ::testing::HasSubstr;
using ::testing::SizeIs;

std::string Html() {
  std::string page = "<html><body>";
  for (int i = 0; i < 500; ++i) page += "<p>archived as it came</p>";
  return page + "</body></html>";
}

class WarcFetchTest : public testing::Test {
 protected:
  void SetUp() override {
    httplib::Server& s = server_.server();
    // text/html: cpp-httplib gzips it for a client that accepts gzip.
    s.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(Html(), "text/html");
    });
    for (const char* path : {"/a.bin", "/mirror/a.bin"}) {
      s.Get(path, [](const httplib::Request&, httplib::Response& res) {
        res.set_content(std::string(3000, 'b'), "application/octet-stream");
      });
    }
    s.Get("/b.bin", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("other bytes", "application/octet-stream");
    });
    server_.Start();
  }

  // Fetches `paths` with keep_raw and archives each; returns the WARC path.
  std::filesystem::path Archive(const std::vector<std::string>& paths) {
    FetchOptions options = TestOptions();
    options.keep_raw = true;
    auto fetcher = *Fetcher::Create(options);
    WarcWriterOptions o;
    o.directory = dir_.path() / "warc";
    auto writer = *WarcWriter::Open(o);
    std::string file;
    for (const std::string& path : paths) {
      const absl::Time started = absl::Now();
      FetchResponse r = FetchOne(*fetcher, {.id = 1, .url = server_.Url(path)});
      EXPECT_TRUE(r.ok()) << r.error_message;
      EXPECT_TRUE(r.wire.captured());
      decoded_[path] = r.body;
      auto at = writer->WriteExchange(WarcExchangeFromFetch(r, started));
      EXPECT_TRUE(at.ok()) << at.status();
      if (at.ok()) file = at->file;
    }
    EXPECT_TRUE(writer->Close().ok());
    revisits_ = writer->stats().revisits;
    return o.directory / file;
  }

  HttpServer server_;
  test::ScopedTempDir dir_;
  std::map<std::string, std::string> decoded_;
  int64_t revisits_ = 0;
};

TEST_F(WarcFetchTest, ArchivesEachFetchAsItCrossedTheWire) {
  const auto warc = Archive({"/", "/a.bin", "/mirror/a.bin", "/b.bin"});
  const std::vector<WarcRecord> records = ReadAll(warc);
  ASSERT_THAT(records, SizeIs(9));
  std::map<std::string, const WarcRecord*> responses;
  for (const WarcRecord& r : records) {
    EXPECT_TRUE(VerifyWarcDigests(r).ok()) << VerifyWarcDigests(r);
    if (r.Field("WARC-Type") == "response" ||
        r.Field("WARC-Type") == "revisit") {
      responses[r.Field("WARC-Target-URI")] = &r;
      EXPECT_EQ(r.Field("WARC-IP-Address"), "127.0.0.1");
    }
    if (r.Field("WARC-Type") == "request") {
      EXPECT_THAT(r.block, HasSubstr("User-Agent: SieveBot/0.1\r\n"));
    }
  }
  // The page went over the wire gzip-coded: the record keeps it so (its
  // payload is not the HTML), while parsing got the HTML.
  const WarcRecord* home = responses[server_.Url("/")];
  ASSERT_NE(home, nullptr);
  EXPECT_THAT(home->block, HasSubstr("Content-Encoding: gzip"));
  EXPECT_EQ(decoded_["/"], Html());
  EXPECT_NE(home->Field("WARC-Payload-Digest"), Sha1Digest(Html()));
  // Same bytes at another URL: a revisit pointing at the first.
  const WarcRecord* mirror = responses[server_.Url("/mirror/a.bin")];
  ASSERT_NE(mirror, nullptr);
  EXPECT_EQ(mirror->Field("WARC-Type"), "revisit");
  EXPECT_EQ(mirror->Field("WARC-Refers-To-Target-URI"), server_.Url("/a.bin"));
  EXPECT_EQ(revisits_, 1);
}

TEST_F(WarcFetchTest, GivesTheSamePayloadDigestsAsWget) {
  if (std::system("wget --version >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "wget not installed: comparison skipped";
  }
  const std::vector<std::string> paths = {"/a.bin", "/b.bin"};
  const auto ours = ReadAll(Archive(paths));
  const std::filesystem::path wget_base = dir_.path() / "wget";
  std::string command = absl::StrCat(
      "cd ", dir_.path().string(), " && wget -q --tries=1 --timeout=5 ",
      "--no-warc-keep-log -O /dev/null --warc-file=", wget_base.string());
  for (const std::string& p : paths)
    absl::StrAppend(&command, " ", server_.Url(p));
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const auto theirs = ReadAll(wget_base.string() + ".warc.gz");
  std::map<std::string, std::string> wget_digest;
  for (const WarcRecord& r : theirs) {
    // Our reader and digest check on a file wget wrote.
    EXPECT_TRUE(VerifyWarcDigests(r).ok()) << VerifyWarcDigests(r);
    if (r.Field("WARC-Type") == "response") {
      // wget writes the URI in angle brackets (the WARC 1.0 examples' form).
      std::string uri = r.Field("WARC-Target-URI");
      if (uri.size() > 2 && uri.front() == '<')
        uri = uri.substr(1, uri.size() - 2);
      wget_digest[uri] = r.Field("WARC-Payload-Digest");
    }
  }
  int compared = 0;
  for (const WarcRecord& r : ours) {
    if (r.Field("WARC-Type") != "response") continue;
    const std::string uri = r.Field("WARC-Target-URI");
    ASSERT_TRUE(wget_digest.contains(uri)) << uri;
    EXPECT_EQ(r.Field("WARC-Payload-Digest"), wget_digest[uri]) << uri;
    ++compared;
  }
  EXPECT_EQ(compared, 2);
}

}  // namespace
}  // namespace sieve
