// Revisits through the `sieve` binary (docs/crawling.md, "Revisits"): a
// loopback site whose pages change when the test says (changing_site.h),
// crawled with --revisit: the interval, conditional GETs and 304s, the
// records' "changed", WARC revisit records read by warcio, the adaptive
// intervals, politeness, and kill -9 then --resume (the history on disk, in
// the checkpoint's store).
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "crawler/config/crawl_config.h"
#include "crawler/crawl/crawl_options.h"
#include "crawler/crawl/crawl_state.h"
#include "crawler/crawl/url_history.h"
#include "crawler/output/warc_reader.h"
#include "frontier/snapshot.h"
#include "frontier/url_record_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/changing_site.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/output/warc_test_util.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using testing_util::ChangingSite;
using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

constexpr double kDelay = 0.2;  // Seconds between two requests to the host.

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

// Seconds between one request for a path and the next.
std::vector<double> Gaps(const std::vector<ChangingSite::Request>& requests) {
  std::vector<double> gaps;
  for (size_t i = 1; i < requests.size(); ++i) {
    gaps.push_back(
        absl::ToDoubleSeconds(requests[i].start - requests[i - 1].start));
  }
  return gaps;
}

// Seconds between consecutive fetches of `path` from `since` on, as the
// crawl's records date them (fetched_at: when the request started, which is
// what a due time counts from). The server's arrival times would shorten a
// gap by the first request's way to it, tens of ms under load.
std::vector<double> RecordGaps(const fs::path& out, std::string_view path,
                               absl::Time since = absl::InfinitePast()) {
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

// Politeness as the server saw it: every request starts at least the delay
// after the previous one ended, never two at once.
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

// The per-URL history a crawl's checkpoint holds, by path, read as a resumed
// crawl reads it: from the frontier's store (CrawlFrontier::UrlRecords),
// restored from the snapshot into a scratch directory of its own. There is
// no crawl.history file: the history is in the store's column family.
std::map<std::string, UrlHistory> CheckpointHistory(const fs::path& out) {
  std::map<std::string, UrlHistory> by_path;
  absl::StatusOr<SnapshotReader> snapshot =
      SnapshotReader::Open(out / "checkpoint");
  EXPECT_TRUE(snapshot.ok()) << snapshot.status();
  if (!snapshot.ok()) return by_path;
  EXPECT_FALSE(snapshot->Contains("crawl.history"));
  const fs::path work = FreshDir(out.filename().string() + "-history");
  absl::StatusOr<std::unique_ptr<CrawlFrontier>> frontier =
      RestoreFrontier(CrawlConfig{}, work, *snapshot);
  EXPECT_TRUE(frontier.ok()) << frontier.status();
  if (!frontier.ok()) return by_path;
  absl::StatusOr<UrlRecordStore*> store = (*frontier)->UrlRecords();
  EXPECT_TRUE(store.ok()) << store.status();
  if (!store.ok()) return by_path;
  EXPECT_TRUE((*store)
                  ->ForEach([&](std::string_view url, std::string_view bytes) {
                    absl::StatusOr<UrlHistory> h = DecodeUrlHistory(bytes);
                    if (!h.ok()) return h.status();
                    by_path[PathOf(std::string(url))] = *std::move(h);
                    return absl::OkStatus();
                  })
                  .ok());
  return by_path;
}

std::map<std::string, std::vector<nlohmann::json>> RecordsByPath(
    const fs::path& out) {
  std::map<std::string, std::vector<nlohmann::json>> by_path;
  for (nlohmann::json& page : ReadPages(out))
    by_path[PathOf(page["url"])].push_back(std::move(page));
  return by_path;
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

TEST(CrawlRevisitTest, KillDuringRevisitsThenResumeLosesNothing) {
  ChangingSite site;
  const fs::path out = FreshDir("revisit-resume");
  const fs::path log = out.parent_path() / "revisit-resume.log";
  const std::vector<std::string> args =
      RevisitArgs(site, out,
                  {"--revisit", "fixed", "--revisit-min", "1", "--set",
                   "crawl.checkpoint_seconds=1"});
  const pid_t pid = StartSieve(args, log);
  // Past two rounds of revisits, and a checkpoint after them.
  absl::SleepFor(absl::Seconds(3.5));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  WaitFor(pid);
  const size_t before = site.requests().size();
  ASSERT_GE(site.requests("/never.html").size(), 2u) << ReadFile(log);
  // What the killed run acknowledged (its last checkpoint) holds every
  // page's history, validators included, in the frontier's store: each
  // page's fetches are the records of it the checkpoint covers (pages.jsonl
  // up to its offset), not one lost.
  {
    std::map<std::string, UrlHistory> saved = CheckpointHistory(out);
    absl::StatusOr<SnapshotReader> snapshot =
        SnapshotReader::Open(out / "checkpoint");
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    absl::StatusOr<CrawlState> state = ReadCrawlState(*snapshot);
    ASSERT_TRUE(state.ok()) << state.status();
    std::map<std::string, uint32_t> acknowledged;
    std::istringstream covered(
        ReadFile(out / "pages.jsonl").substr(0, state->pages_offset));
    for (std::string line; std::getline(covered, line);) {
      const nlohmann::json record = nlohmann::json::parse(line);
      const int status = record.value("status", 0);
      if ((status >= 200 && status < 300) || status == 304)
        ++acknowledged[PathOf(record["url"].get<std::string>())];
    }
    for (const std::string path :
         {"/", "/always.html", "/never.html", "/plain.html", "/set.html"}) {
      ASSERT_TRUE(saved.contains(path)) << path;
      EXPECT_GE(saved[path].fetches, 1u) << path;
      EXPECT_EQ(saved[path].fetches, acknowledged[path]) << path;
      EXPECT_GT(saved[path].next_due, absl::InfinitePast()) << path;
    }
    EXPECT_EQ(saved.size(), 5u);
    EXPECT_FALSE(saved["/never.html"].etag.empty());
    EXPECT_FALSE(saved["/never.html"].last_modified.empty());
    EXPECT_TRUE(saved["/plain.html"].etag.empty());
    EXPECT_FALSE(saved["/plain.html"].digest.empty());
  }
  // Long enough for every due time of the checkpoint to be in the past.
  absl::SleepFor(absl::Seconds(2));
  const absl::Time resumed = absl::Now();
  const int code = WaitFor(StartSieve(
      {"crawl", "--resume", out.string(), "--max-run-time", "3.5"}, log));
  ASSERT_EQ(code, 3) << ReadFile(log);

  // Every page goes on being revisited, with its history: the resumed run's
  // first request for a page with validators is conditional, and never.html
  // gets only 304s.
  for (const std::string path :
       {"/", "/always.html", "/never.html", "/plain.html", "/set.html"}) {
    std::vector<ChangingSite::Request> after;
    for (const ChangingSite::Request& r : site.requests(path))
      if (r.start >= resumed) after.push_back(r);
    ASSERT_GE(after.size(), 2u) << path;
    if (path == "/never.html" || path == "/set.html") {
      EXPECT_FALSE(after[0].if_none_match.empty()) << path;
      for (const ChangingSite::Request& r : after) EXPECT_EQ(r.status, 304);
    }
    // Overdue pages are fetched once at the resume, then at the interval:
    // no due time left in the past.
    for (double gap : RecordGaps(out, path, resumed))
      EXPECT_GE(gap, 0.999) << path;
  }
  EXPECT_GT(site.requests().size(), before);
  ExpectPolite(site);
  // The records of both runs: no partial line, each revisit says "changed".
  std::map<std::string, std::vector<nlohmann::json>> records =
      RecordsByPath(out);
  for (const auto& [path, list] : records) {
    for (size_t i = 1; i < list.size(); ++i)
      EXPECT_TRUE(list[i].contains("changed")) << list[i].dump();
  }
}

// A history record a resumed crawl cannot decode (damage, or a newer
// version's format): the resume stops with an error naming the URL, no crash.
TEST(CrawlRevisitTest, AHistoryRecordThatDoesNotDecodeStopsTheResumeByName) {
  ChangingSite site;
  const fs::path out = FreshDir("revisit-bad-record");
  const fs::path log = out.parent_path() / "revisit-bad-record.log";
  ASSERT_EQ(
      WaitFor(StartSieve(RevisitArgs(site, out,
                                     {"--revisit", "fixed", "--revisit-min",
                                      "1", "--max-run-time", "1.5"}),
                         log)),
      3)
      << ReadFile(log);
  const std::string bad_url = site.root_url() + "never.html";
  {
    // A new checkpoint: the last one's, with never.html's record replaced.
    absl::StatusOr<CrawlState> state;
    std::unique_ptr<CrawlFrontier> frontier;
    {
      absl::StatusOr<SnapshotReader> snapshot =
          SnapshotReader::Open(out / "checkpoint");
      ASSERT_TRUE(snapshot.ok()) << snapshot.status();
      state = ReadCrawlState(*snapshot);
      ASSERT_TRUE(state.ok()) << state.status();
      absl::StatusOr<std::unique_ptr<CrawlFrontier>> restored = RestoreFrontier(
          CrawlConfig{}, FreshDir("revisit-bad-record-work"), *snapshot);
      ASSERT_TRUE(restored.ok()) << restored.status();
      frontier = *std::move(restored);
    }
    absl::StatusOr<UrlRecordStore*> store = frontier->UrlRecords();
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Get(bad_url)->has_value());
    ASSERT_TRUE((*store)->Put(bad_url, "\x7fnot a history").ok());
    ASSERT_TRUE(
        WriteCheckpoint(out / "checkpoint", *state, *frontier, nullptr).ok());
  }
  const int code = WaitFor(StartSieve(
      {"crawl", "--resume", out.string(), "--max-run-time", "2"}, log));
  EXPECT_EQ(code, 1);  // An error, not a crash (128 + signal).
  const std::string text = ReadFile(log);
  EXPECT_THAT(text, testing::HasSubstr(bad_url));
  EXPECT_THAT(text, testing::HasSubstr("does not decode"));
}

}  // namespace
}  // namespace sieve
