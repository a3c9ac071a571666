// tests/crawler/crawl/revisit_test_util.h: what the revisit tests through
// the binary share (crawl_revisit_test.cc, crawl_revisit_resume_test.cc): the
// crawl's arguments against a ChangingSite, the gaps between a page's fetches
// as the records date them, politeness as the server saw it.
#ifndef SIEVE_TESTS_CRAWLER_CRAWL_REVISIT_TEST_UTIL_H_
#define SIEVE_TESTS_CRAWLER_CRAWL_REVISIT_TEST_UTIL_H_

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "tests/crawler/crawl/changing_site.h"

namespace sieve::testing_util {

constexpr double kDelay = 0.2;  // Seconds between two requests to the host.

// `sieve crawl` of the site into `out`, one request at a time, kDelay apart,
// no sitemaps, info logging; then `more`.
std::vector<std::string> RevisitArgs(const ChangingSite& site,
                                     const std::filesystem::path& out,
                                     std::vector<std::string> more);

// Seconds between consecutive fetches of `path` from `since` on, as the
// crawl's records date them (fetched_at: when the request started, which is
// what a due time counts from). The server's arrival times would shorten a
// gap by the first request's way to it, tens of ms under load.
std::vector<double> RecordGaps(const std::filesystem::path& out,
                               std::string_view path,
                               absl::Time since = absl::InfinitePast());

// Politeness as the server saw it: every request starts at least the delay
// after the previous one ended, never two at once.
void ExpectPolite(const ChangingSite& site);

// The crawl's records (pages.jsonl) by URL path, in file order.
std::map<std::string, std::vector<nlohmann::json>> RecordsByPath(
    const std::filesystem::path& out);

}  // namespace sieve::testing_util

#endif  // SIEVE_TESTS_CRAWLER_CRAWL_REVISIT_TEST_UTIL_H_
