// Helpers shared by the WARC tests: exchanges and reading records back (a
// scratch directory is tests/common/temp_dir.h's).
#ifndef SIEVE_TESTS_CRAWLER_OUTPUT_WARC_TEST_UTIL_H_
#define SIEVE_TESTS_CRAWLER_OUTPUT_WARC_TEST_UTIL_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "crawler/output/warc_exchange.h"
#include "crawler/output/warc_reader.h"
#include "crawler/output/warc_writer.h"

namespace sieve::testing_warc {

// A GET of `url` answered 200 with `body` as text/html.
WarcExchange Exchange(
    const std::string& url, const std::string& body,
    absl::Time date = absl::FromUnixMicros(1'700'000'000'123'456));

// Every record of a WARC file, read one gzip member after another; fails the
// test on a record that does not read.
std::vector<WarcRecord> ReadAll(const std::filesystem::path& warc);

// The files in `dir` whose names end with `suffix`, sorted.
std::vector<std::filesystem::path> FilesEndingWith(
    const std::filesystem::path& dir, const std::string& suffix);

// The command of webrecorder's warcio (npm), or "" when there is none:
// $SIEVE_WARCIO, else `warcio` on PATH.
std::string FindWarcio();

// The lines of a text file.
std::vector<std::string> Lines(const std::filesystem::path& file);

// A WarcWriter into `dir` (files rotated past `max_bytes`), software
// "Sieve/test"; fails the test if it does not open.
std::unique_ptr<WarcWriter> OpenWriter(const std::filesystem::path& dir,
                                       int64_t max_bytes = 1'000'000'000);

// `n` bytes that deflate cannot shrink (so file sizes are predictable), the
// same for the same seed.
std::string RandomBody(size_t n, uint64_t seed);

}  // namespace sieve::testing_warc

#endif  // SIEVE_TESTS_CRAWLER_OUTPUT_WARC_TEST_UTIL_H_
