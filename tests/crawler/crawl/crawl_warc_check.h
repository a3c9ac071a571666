// The checks every `--warc` crawl test makes on an output directory's WARC
// files, with the library's own reader (crawler/output/warc_reader.h):
//   - every file reads record by record to its end and opens with warcinfo;
//   - every request, response and revisit record's digests verify;
//   - each file's CDXJ names exactly its response, revisit and resource
//     records (a render's, under a urn:), and
//     the record at each CDXJ offset is that URL's;
//   - the record at each pages.jsonl warc_file/warc_offset is that URL's
//     response or revisit, its WARC-Payload-Digest the page's `digest`.
// Failures are reported through gtest; the counts come back for the test's
// own assertions.
#ifndef SIEVE_TESTS_CRAWLER_CRAWL_CRAWL_WARC_CHECK_H_
#define SIEVE_TESTS_CRAWLER_CRAWL_CRAWL_WARC_CHECK_H_

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "crawler/output/warc_reader.h"

namespace sieve::testing_util {

struct CrawlWarc {
  std::vector<std::filesystem::path> files;  // OUT/warc/*.warc.gz, sorted.
  std::map<std::string, int> requests;       // Target URI -> records.
  std::map<std::string, int> responses;      // Response or revisit records.
  std::map<std::string, WarcRecord> last_response;  // The last one per URI.
  std::map<std::string, WarcRecord> resources;      // By their urn:.
  int revisits = 0;
};

// Reads and checks OUT/warc/ and OUT/pages.jsonl as above.
CrawlWarc CheckCrawlWarc(const std::filesystem::path& out);

}  // namespace sieve::testing_util

#endif  // SIEVE_TESTS_CRAWLER_CRAWL_CRAWL_WARC_CHECK_H_
