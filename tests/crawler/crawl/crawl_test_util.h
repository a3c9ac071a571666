// Helpers of the crawler's end-to-end tests: reading pages.jsonl back,
// running a crawl in-process or the `sieve` binary as a child process.
#ifndef SIEVE_TESTS_CRAWLER_CRAWL_CRAWL_TEST_UTIL_H_
#define SIEVE_TESTS_CRAWLER_CRAWL_CRAWL_TEST_UTIL_H_

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/loop/crawler.h"
#include "nlohmann/json.hpp"
#include "tests/common/files.h"
#include "tests/common/temp_dir.h"

namespace sieve::testing_util {

// FreshDir (an empty directory in the process's scratch root) and ReadFile
// are tests/common's.
using ::sieve::test::FreshDir;
using ::sieve::test::ReadFile;

// Every record of DIR/pages.jsonl (a partial last line is an error: the test
// fails).
std::vector<nlohmann::json> ReadPages(const std::filesystem::path& out);

// "/p/1.html" for "http://127.0.0.1:123/p/1.html".
std::string PathOf(const std::string& url);

// Settings for fast loopback crawls: no delay, short timeouts, output in `out`.
CrawlConfig FastConfig(const std::filesystem::path& out);

// Runs a crawl in-process.
absl::StatusOr<CrawlSummary> CrawlInProcess(
    const CrawlConfig& config, const std::vector<std::string>& seeds);

// Starts the sieve binary with `args`; its stdout+stderr go to `log`.
pid_t StartSieve(const std::vector<std::string>& args,
                 const std::filesystem::path& log);
// The same with a file-size limit (RLIMIT_FSIZE) of `max_file_bytes` and
// SIGXFSZ ignored, so a write past it fails with EFBIG.
pid_t StartSieveWithFileLimit(const std::vector<std::string>& args,
                              const std::filesystem::path& log,
                              uint64_t max_file_bytes);
// Waits for the child; returns its exit code, or 128+signal.
int WaitFor(pid_t pid);

// The most of `starts` (in any order) within one second of each other: what
// a server saw of a requests-per-second cap over any sliding second.
int MostStartsInASecond(std::vector<absl::Time> starts);

}  // namespace sieve::testing_util

#endif  // SIEVE_TESTS_CRAWLER_CRAWL_CRAWL_TEST_UTIL_H_
