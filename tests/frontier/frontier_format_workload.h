// tests/frontier/frontier_format_workload.h: the workload whose checkpoint is
// pinned in tests/testdata/frontier_format_v2/. frontier_format_test.cc runs
// it to compare today's checkpoint with the pinned one; the tool
// write_frontier_format.cc (scripts/write-pinned-formats.sh) runs it to write
// a new pinned image when a format changes on purpose.
#ifndef SIEVE_TESTS_FRONTIER_FRONTIER_FORMAT_WORKLOAD_H_
#define SIEVE_TESTS_FRONTIER_FRONTIER_FORMAT_WORKLOAD_H_

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "frontier/frontier.h"

namespace sieve::testing_format {

inline const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

// The frontier the workload and the resumes use; its RocksDB under
// `work_dir`.
inline FrontierOptions Options(const std::filesystem::path& work_dir) {
  return {
      .sieve = {.expected_urls = 1000, .fp_rate = 1e-4, .work_dir = work_dir},
      .politeness = {.min_delay = absl::ZeroDuration(),
                     .max_crawl_delay = absl::Seconds(30),
                     .max_in_flight_per_host = 2}};
}

// 30 URLs over 3 hosts; 6 handed out, 4 of them done, 2 in flight; a
// Crawl-delay above the cap recorded; then a checkpoint into `dir`.
inline absl::Status Workload(const std::filesystem::path& dir,
                             const std::filesystem::path& work_dir) {
  absl::StatusOr<std::unique_ptr<Frontier>> f =
      Frontier::Create(Options(work_dir));
  if (!f.ok()) return f.status();
  for (int i = 0; i < 30; ++i) {
    if (!(*f)->Add(absl::StrCat("http://h", i % 3, ".test/", i),
                   absl::StrCat("h", i % 3, ".test"), i % 4,
                   absl::StrCat("m", i))) {
      return absl::InternalError(absl::StrCat("Add of URL ", i, " refused"));
    }
  }
  std::vector<std::string> taken;
  for (int i = 0; i < 6; ++i) {
    NextUrl next = (*f)->Next(kStart);
    if (next.state != NextUrl::kReady)
      return absl::InternalError(absl::StrCat("Next ", i, " not ready"));
    taken.push_back(next.url.url);
  }
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<UrlFate> done = (*f)->Done(
        taken[i], FetchOutcome::Success(absl::Milliseconds(5)), kStart);
    if (!done.ok()) return done.status();
  }
  (*f)->SetCrawlDelay("h1.test", absl::Seconds(90));
  return (*f)->Checkpoint(dir);
}

}  // namespace sieve::testing_format

#endif  // SIEVE_TESTS_FRONTIER_FRONTIER_FORMAT_WORKLOAD_H_
