// Revisit crawls stopped and resumed, through the `sieve` binary
// (docs/crawling.md, "Revisits"): kill -9 during revisits then --resume loses
// nothing the checkpoint acknowledged (the history on disk, in the
// checkpoint's store), and a history record that does not decode stops the
// resume by name.
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "crawler/config/crawl_config.h"
#include "crawler/config/crawl_options.h"
#include "crawler/loop/crawl_state.h"
#include "crawler/policy/url_history.h"
#include "frontier/snapshot.h"
#include "frontier/url_record_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/changing_site.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/revisit_test_util.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using testing_util::ChangingSite;
using testing_util::ExpectPolite;
using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadFile;
using testing_util::RecordGaps;
using testing_util::RecordsByPath;
using testing_util::RevisitArgs;
using testing_util::StartSieve;
using testing_util::WaitFor;

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

TEST(CrawlRevisitTest, KillDuringRevisitsThenResumeLosesNothing) {
  ChangingSite site;
  const fs::path out = FreshDir("revisit-resume");
  const fs::path log = out.parent_path() / "revisit-resume.log";
  const std::vector<std::string> args =
      RevisitArgs(site, out,
                  {"--revisit", "fixed", "--revisit-min", "1", "--set",
                   "crawl.checkpoint_seconds=1"});
  const pid_t pid = StartSieve(args, log);
  // Past two rounds of revisits (every page fetched, /never.html twice),
  // then two checkpoint periods so a checkpoint covers them: waited for at
  // the server, not guessed, so a loaded machine only makes it slower.
  const absl::Time give_up = absl::Now() + absl::Seconds(60);
  const auto two_rounds = [&] {
    if (site.requests("/never.html").size() < 2) return false;
    for (const char* path : {"/", "/always.html", "/plain.html", "/set.html"})
      if (site.requests(path).empty()) return false;
    return true;
  };
  while (!two_rounds() && absl::Now() < give_up)
    absl::SleepFor(absl::Milliseconds(50));
  absl::SleepFor(absl::Seconds(2.5));
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
