#include "tests/crawler/crawl/crawl_warc_check.h"

#include <set>
#include <utility>

#include "crawler/output/cdxj_index.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/output/warc_test_util.h"

namespace sieve::testing_util {

CrawlWarc CheckCrawlWarc(const std::filesystem::path& out) {
  CrawlWarc warc;
  const std::filesystem::path dir = out / "warc";
  warc.files = testing_warc::FilesEndingWith(dir, ".warc.gz");
  for (const std::filesystem::path& file : warc.files) {
    const std::vector<WarcRecord> records = testing_warc::ReadAll(file);
    // ReadAll fails the test on a record that does not read; the records
    // must also cover the file to its last byte.
    int64_t end = 0;
    for (const WarcRecord& r : records) end = r.offset + r.length;
    EXPECT_EQ(end, static_cast<int64_t>(std::filesystem::file_size(file)))
        << file << " does not parse to its end";
    if (records.empty()) {
      ADD_FAILURE() << file << " holds no record";
      continue;
    }
    EXPECT_EQ(records[0].Field("WARC-Type"), "warcinfo") << file;
    std::set<std::pair<int64_t, std::string>> indexed;
    for (size_t i = 1; i < records.size(); ++i) {
      const WarcRecord& r = records[i];
      const std::string type = r.Field("WARC-Type");
      const std::string uri = r.Field("WARC-Target-URI");
      EXPECT_TRUE(VerifyWarcDigests(r).ok())
          << file << " @" << r.offset << " " << uri << ": "
          << VerifyWarcDigests(r);
      if (type == "request") {
        ++warc.requests[uri];
      } else if (type == "response" || type == "revisit") {
        ++warc.responses[uri];
        warc.last_response[uri] = r;
        if (type == "revisit") ++warc.revisits;
        indexed.insert({r.offset, uri});
      } else if (type == "resource") {
        EXPECT_TRUE(uri.starts_with("urn:")) << uri;
        warc.resources[uri] = r;
        indexed.insert({r.offset, uri});
      } else {
        ADD_FAILURE() << file << " @" << r.offset << ": record type " << type;
      }
    }
    // The CDXJ lists exactly the response, revisit and resource records, at
    // their offsets.
    std::set<std::pair<int64_t, std::string>> cdxj;
    for (const std::string& line : testing_warc::Lines(CdxjPathFor(file))) {
      const size_t brace = line.find('{');
      if (brace == std::string::npos) {
        ADD_FAILURE() << "not a CDXJ line: " << line;
        continue;
      }
      const nlohmann::json j = nlohmann::json::parse(line.substr(brace));
      EXPECT_EQ(j["filename"], file.filename().string()) << line;
      cdxj.insert({std::stoll(j["offset"].get<std::string>()),
                   j["url"].get<std::string>()});
    }
    EXPECT_EQ(cdxj, indexed) << CdxjPathFor(file);
  }
  // pages.jsonl points at each page's response record.
  for (const nlohmann::json& page : ReadPages(out)) {
    if (!page.contains("warc_file")) continue;
    const std::filesystem::path file =
        dir / page["warc_file"].get<std::string>();
    absl::StatusOr<WarcFileReader> reader = WarcFileReader::Open(file);
    if (!reader.ok()) {
      ADD_FAILURE() << page.dump() << ": " << reader.status();
      continue;
    }
    absl::StatusOr<WarcRecord> r =
        reader->ReadAt(page["warc_offset"].get<int64_t>());
    if (!r.ok()) {
      ADD_FAILURE() << page.dump() << ": " << r.status();
      continue;
    }
    EXPECT_EQ(r->Field("WARC-Target-URI"), page["url"]) << page.dump();
    const std::string type = r->Field("WARC-Type");
    EXPECT_TRUE(type == "response" || type == "revisit") << page.dump();
    // The record's digest is the archive's, so the two join on it too.
    if (page.contains("digest")) {
      EXPECT_EQ(r->Field("WARC-Payload-Digest"), page["digest"]) << page.dump();
    }
  }
  return warc;
}

}  // namespace sieve::testing_util
