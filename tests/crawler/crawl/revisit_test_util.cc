#include "tests/crawler/crawl/revisit_test_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"

namespace sieve::testing_util {

namespace fs = std::filesystem;

std::vector<std::string> RevisitArgs(const ChangingSite& site,
                                     const fs::path& out,
                                     std::vector<std::string> more) {
  std::vector<std::string> args = {"crawl",
                                   site.root_url(),
                                   "--out",
                                   out.string(),
                                   "--delay",
                                   absl::StrCat(kDelay),
                                   "--per-host-connections",
                                   "1",
                                   "--sitemaps",
                                   "off",
                                   "--log-level",
                                   "info"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::vector<double> RecordGaps(const fs::path& out, std::string_view path,
                               absl::Time since) {
  std::vector<absl::Time> starts;
  for (const nlohmann::json& r : ReadPages(out)) {
    if (PathOf(r["url"].get<std::string>()) != path) continue;
    absl::Time at;
    std::string error;
    EXPECT_TRUE(absl::ParseTime(
        absl::RFC3339_full, r["fetched_at"].get<std::string>(), &at, &error))
        << error;
    if (at >= since) starts.push_back(at);
  }
  std::sort(starts.begin(), starts.end());
  std::vector<double> gaps;
  for (size_t i = 1; i < starts.size(); ++i)
    gaps.push_back(absl::ToDoubleSeconds(starts[i] - starts[i - 1]));
  return gaps;
}

void ExpectPolite(const ChangingSite& site) {
  std::vector<ChangingSite::Request> all = site.requests();
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
  for (size_t i = 1; i < all.size(); ++i) {
    EXPECT_GE(absl::ToDoubleSeconds(all[i].start - all[i - 1].end),
              kDelay * 0.95)
        << all[i - 1].path << " then " << all[i].path;
  }
}

std::map<std::string, std::vector<nlohmann::json>> RecordsByPath(
    const fs::path& out) {
  std::map<std::string, std::vector<nlohmann::json>> by_path;
  for (nlohmann::json& page : ReadPages(out))
    by_path[PathOf(page["url"])].push_back(std::move(page));
  return by_path;
}

}  // namespace sieve::testing_util
