// Revisits through the `sieve` binary (docs/crawling.md, "Revisits"): a
// loopback site whose pages change when the test says (changing_site.h),
// crawled with --revisit: the interval, conditional GETs and 304s, the
// records' "changed", WARC revisit records read by warcio, the adaptive
// intervals, politeness (resumes: crawl_revisit_resume_test.cc).

#include <httplib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "crawler/output/warc_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "re2/re2.h"
#include "tests/crawler/crawl/changing_site.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/revisit_test_util.h"
#include "tests/crawler/output/warc_test_util.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using testing_util::ChangingSite;
using testing_util::ExpectPolite;
using testing_util::FreshDir;
using testing_util::kDelay;
using testing_util::PathOf;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::RecordGaps;
using testing_util::RecordsByPath;
using testing_util::RevisitArgs;
using testing_util::StartSieve;
using testing_util::WaitFor;

// Seconds between one request for a path and the next.
std::vector<double> Gaps(const std::vector<ChangingSite::Request>& requests) {
  std::vector<double> gaps;
  for (size_t i = 1; i < requests.size(); ++i) {
    gaps.push_back(
        absl::ToDoubleSeconds(requests[i].start - requests[i - 1].start));
  }
  return gaps;
}

TEST(CrawlRevisitTest, FixedRevisitsAtTheIntervalWith304sUnchangedAndArchived) {
  ChangingSite site;
  const fs::path out = FreshDir("revisit-fixed");
  const fs::path log = out.parent_path() / "revisit-fixed.log";
  const int code =
      WaitFor(StartSieve(RevisitArgs(site, out,
                                     {"--revisit", "fixed", "--revisit-min",
                                      "1", "--max-run-time", "5", "--warc"}),
                         log));
  ASSERT_EQ(code, 3) << ReadFile(log);  // Stopped by the time limit.

  for (const std::string path :
       {"/", "/always.html", "/never.html", "/plain.html"}) {
    const std::vector<ChangingSite::Request> requests = site.requests(path);
    ASSERT_GE(requests.size(), 3u) << path;
    for (double gap : RecordGaps(out, path)) {
      EXPECT_GE(gap, 0.999) << path;  // revisit_min, jitter only adds.
    }
    for (double gap : Gaps(requests)) {
      // 1 s + 10 % jitter, behind at most the host's other 4 pages.
      EXPECT_LE(gap, 1.1 + 5 * kDelay + 0.5) << path;
    }
    // The first request is unconditional; every revisit sends validators
    // when the page had some.
    EXPECT_TRUE(requests[0].if_none_match.empty()) << path;
    for (size_t i = 1; i < requests.size(); ++i) {
      if (path == "/plain.html") {
        EXPECT_TRUE(requests[i].if_none_match.empty());
      } else if (path != "/") {
        EXPECT_FALSE(requests[i].if_none_match.empty()) << path << " " << i;
        EXPECT_FALSE(requests[i].if_modified_since.empty()) << path;
      }
    }
  }
  const std::vector<ChangingSite::Request> never = site.requests("/never.html");
  for (size_t i = 1; i < never.size(); ++i) {
    EXPECT_EQ(never[i].status, 304) << i;
    EXPECT_EQ(never[i].body_bytes, 0u) << i;
  }
  ExpectPolite(site);

  // Records: a first fetch has no "changed"; revisits say what they found.
  std::map<std::string, std::vector<nlohmann::json>> records =
      RecordsByPath(out);
  for (const auto& [path, list] : records) {
    ASSERT_FALSE(list.empty());
    EXPECT_FALSE(list[0].contains("changed")) << list[0].dump();
    for (size_t i = 1; i < list.size(); ++i) {
      ASSERT_TRUE(list[i].contains("changed")) << list[i].dump();
      if (path == "/always.html") {
        EXPECT_TRUE(list[i]["changed"].get<bool>()) << list[i].dump();
      } else {
        EXPECT_FALSE(list[i]["changed"].get<bool>()) << list[i].dump();
      }
      if (path == "/never.html") {
        EXPECT_EQ(list[i]["status"], 304) << list[i].dump();
        EXPECT_EQ(list[i]["bytes"], 0) << list[i].dump();
        // The digest of the copy it still has.
        EXPECT_EQ(list[i]["digest"], list[0]["digest"]) << list[i].dump();
      }
    }
  }
  ASSERT_GE(records["/never.html"].size(), 3u);

  // WARC: a 304 is a revisit of profile server-not-modified, an unchanged
  // body without validators one of identical-payload-digest, each referring
  // to the URL's first (response) record.
  std::map<std::string, std::string> response_id;  // By URL: first response.
  int not_modified = 0, identical = 0;
  std::vector<fs::path> files =
      testing_warc::FilesEndingWith(out / "warc", ".warc.gz");
  ASSERT_FALSE(files.empty());
  for (const fs::path& file : files) {
    for (const WarcRecord& record : testing_warc::ReadAll(file)) {
      const std::string type = record.Field("WARC-Type");
      const std::string uri = record.Field("WARC-Target-URI");
      EXPECT_TRUE(VerifyWarcDigests(record).ok()) << uri;
      if (type == "response" && !response_id.contains(uri))
        response_id[uri] = record.Field("WARC-Record-ID");
      if (type != "revisit") continue;
      const std::string profile = record.Field("WARC-Profile");
      EXPECT_EQ(record.Field("WARC-Refers-To-Target-URI"), uri);
      EXPECT_FALSE(record.Field("WARC-Refers-To-Date").empty());
      EXPECT_EQ(record.Field("WARC-Refers-To"), response_id[uri]) << uri;
      if (PathOf(uri) == "/never.html") {
        EXPECT_EQ(
            profile,
            "http://netpreserve.org/warc/1.1/revisit/server-not-modified");
        ++not_modified;
      } else if (PathOf(uri) == "/plain.html") {
        EXPECT_EQ(profile,
                  "http://netpreserve.org/warc/1.1/revisit/"
                  "identical-payload-digest");
        ++identical;
      }
    }
  }
  EXPECT_EQ(not_modified, static_cast<int>(never.size()) - 1);
  EXPECT_GE(identical, 2);
  // The CDXJ lists them as revisits.
  int cdxj_revisits = 0;
  for (const fs::path& cdxj :
       testing_warc::FilesEndingWith(out / "warc", ".cdxj")) {
    for (const std::string& line : testing_warc::Lines(cdxj))
      if (line.find("\"mime\":\"warc/revisit\"") != std::string::npos)
        ++cdxj_revisits;
  }
  EXPECT_GE(cdxj_revisits, not_modified + identical);

  // An independent reader: warcio reads every record, revisits included.
  const std::string warcio = testing_warc::FindWarcio();
  if (warcio.empty()) {
    GTEST_SKIP() << "warcio not found (scripts/install-deps.sh installs it "
                    "with npm; or set SIEVE_WARCIO): independent check "
                    "skipped";
  }
  int warcio_revisits = 0;
  for (const fs::path& file : files) {
    const fs::path listing = out.parent_path() / "warcio.txt";
    ASSERT_EQ(std::system(absl::StrCat(warcio, " index ", file.string(),
                                       " --fields warc-type,warc-profile > ",
                                       listing.string())
                              .c_str()),
              0);
    for (const std::string& line : testing_warc::Lines(listing)) {
      const nlohmann::json j = nlohmann::json::parse(line);
      if (j.value("warc-type", "") == "revisit") ++warcio_revisits;
    }
  }
  EXPECT_GE(warcio_revisits, not_modified + identical);
}

TEST(CrawlRevisitTest,
     AdaptiveShortensForAChangingPageAndReachesMaxForAStable) {
  ChangingSite site;
  const fs::path out = FreshDir("revisit-adaptive");
  const fs::path log = out.parent_path() / "revisit-adaptive.log";
  constexpr double kMin = 0.5, kMax = 3;
  const int code = WaitFor(StartSieve(
      RevisitArgs(site, out,
                  {"--revisit", "adaptive", "--revisit-min", absl::StrCat(kMin),
                   "--revisit-max", absl::StrCat(kMax), "--max-run-time", "9"}),
      log));
  ASSERT_EQ(code, 3) << ReadFile(log);

  const std::vector<double> always = Gaps(site.requests("/always.html"));
  ASSERT_GE(always.size(), 4u);
  for (double gap : RecordGaps(out, "/always.html"))
    EXPECT_GE(gap, kMin - 0.001);
  // Changed at every visit: the interval shrinks towards revisit_min.
  EXPECT_LT(always.back(), 0.75 * always.front())
      << "first " << always.front() << " last " << always.back();
  EXPECT_LE(always.back(), kMin * 1.1 + 5 * kDelay + 0.5);

  // Never changed, and its Last-Modified is years old: revisit_max (less its
  // jitter) from the first fetch.
  const std::vector<double> never = Gaps(site.requests("/never.html"));
  ASSERT_GE(never.size(), 2u);
  for (double gap : never) {
    EXPECT_GE(gap, kMax * 0.9 - 0.05);
    EXPECT_LE(gap, kMax + 5 * kDelay + 0.5);
  }
  // Never changed, no dates: nothing to estimate from until the first
  // unchanged revisit, then revisit_max.
  const std::vector<double> plain = Gaps(site.requests("/plain.html"));
  ASSERT_GE(plain.size(), 2u);
  EXPECT_LT(plain[0], kMax * 0.9);
  EXPECT_GE(plain[1], kMax * 0.9 - 0.05);
  EXPECT_LE(plain[1], kMax + 5 * kDelay + 0.5);
  ExpectPolite(site);
}

TEST(CrawlRevisitTest, AdaptiveRevisitsArePlannedWithinTheHostsCrawlDelay) {
  // robots.txt asks for 0.5 s between requests: 2 a second, where the
  // crawl's own delay (kDelay) would allow 5. /always.html changes at every
  // visit and, planned by the crawl's delay alone, would be revisited every
  // revisit_min (5 a second, all the host's allowance); the other four pages
  // are planned at revisit_max (4 / 3 a second with "/").
  ChangingSite site("User-agent: *\nCrawl-delay: 0.5\n");
  const fs::path out = FreshDir("revisit-crawl-delay");
  const fs::path log = out.parent_path() / "revisit-crawl-delay.log";
  fs::remove(log);  // The address is read from it.
  constexpr double kMin = 0.2, kMax = 3, kAllowance = 2;
  const pid_t pid = StartSieve(
      RevisitArgs(site, out,
                  {"--revisit", "adaptive", "--revisit-min", absl::StrCat(kMin),
                   "--revisit-max", absl::StrCat(kMax), "--max-run-time", "9",
                   "--metrics", "127.0.0.1:0"}),
      log);
  const RE2 said(R"(metrics: http://127\.0\.0\.1:(\d+)/metrics)");
  const RE2 planned_re(R"((?m)^sieve_revisit_planned_per_second (\S+))");
  int port = 0;
  std::vector<double> planned;
  int failed_in_a_row = 0;  // 10 (a second): the crawl has ended.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline && failed_in_a_row < 10) {
    if (port == 0) {
      (void)RE2::PartialMatch(ReadFile(log), said, &port);
    } else {
      httplib::Client client("127.0.0.1", port);
      client.set_connection_timeout(1);
      client.set_read_timeout(1);
      httplib::Result scrape = client.Get("/metrics");
      double value = 0;
      if (!scrape || scrape->status != 200) {
        ++failed_in_a_row;
      } else {
        failed_in_a_row = 0;
        if (RE2::PartialMatch(scrape->body, planned_re, &value) && value > 0)
          planned.push_back(value);
      }
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_EQ(WaitFor(pid), 3) << ReadFile(log);
  ASSERT_GT(port, 0) << ReadFile(log);
  ASSERT_FALSE(planned.empty()) << ReadFile(log);
  // Never above the allowance; and at the end, with /always.html known to
  // change at every visit, all of it.
  for (double value : planned) EXPECT_LE(value, kAllowance + 0.01);
  EXPECT_GE(planned.back(), kAllowance - 0.01) << absl::StrJoin(planned, " ");
  // The politeness the server saw: Crawl-delay, not kDelay, apart (less a
  // margin for the requests' way to it under load).
  const std::vector<ChangingSite::Request> requests = site.requests();
  for (size_t i = 1; i < requests.size(); ++i) {
    if (requests[i - 1].path == "/robots.txt") continue;
    EXPECT_GE(absl::ToDoubleSeconds(requests[i].start - requests[i - 1].start),
              0.4);
  }
}

}  // namespace
}  // namespace sieve
