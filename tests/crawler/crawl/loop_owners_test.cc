// The crawl loop's owners on their own (crawler/loop/record_sink.h,
// crawler/policy/link_fate.h): what each counts and writes.
#include <filesystem>
#include <string>

#include "crawler/loop/record_sink.h"
#include "crawler/policy/link_fate.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"

namespace sieve {
namespace {

using testing_util::FreshDir;
using testing_util::ReadPages;

TEST(LinkFateTest, EachRefusalHasOneReasonAndOneCounter) {
  LinkFateCounts counts;
  counts.Count(AddOutcome::kQueued);
  counts.Count(AddOutcome::kSeen);
  counts.Count(AddOutcome::kDenied);
  counts.Count(AddOutcome::kNotAllowed);
  counts.Count(AddOutcome::kCalendar);
  counts.Count(AddOutcome::kDisallowed);
  EXPECT_EQ(counts.queued, 1);
  EXPECT_EQ(counts.filtered, 2u);
  EXPECT_EQ(counts.traps, 1u);
  EXPECT_EQ(counts.calendar_traps, 1u);
  EXPECT_EQ(counts.query_variant_traps, 0u);
  EXPECT_EQ(counts.robots_disallowed, 1u);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kDenied), SkipReason::kDenyPattern);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kDisallowed), SkipReason::kRobots);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kSeen), std::nullopt);
  EXPECT_EQ(AddOutcome::kInScope, AddOutcome::kQueued);
}

TEST(RecordSinkTest, CountsWhatItWritesAndSkipsEachUrlOncePerReason) {
  const std::filesystem::path out = FreshDir("record-sink");
  CrawlCounters counters;
  CrawlState state;
  absl::StatusOr<std::unique_ptr<RecordSink>> sink = RecordSink::Open(
      out, /*resume=*/false, state, /*skipped=*/true, counters, nullptr);
  ASSERT_TRUE(sink.ok()) << sink.status();
  PageRecord page{.url = "http://a.test/", .status = 200, .bytes = 10};
  page.links_found = 3;
  page.links_new = 2;
  ASSERT_TRUE((*sink)->Write(page).ok());
  PageRecord sitemap{.url = "http://a.test/sitemap.xml", .status = 404};
  sitemap.links_found = 5;
  sitemap.error = "http_4xx";
  ASSERT_TRUE((*sink)->Write(sitemap, /*count_links=*/false).ok());
  LinkOutcomes links;
  links.Count(AddOutcome::kOffSite);
  links.skipped.push_back(
      {.url = "http://b.test/", .reason = SkipReason::kOffScope});
  links.skipped.push_back(
      {.url = "http://b.test/", .reason = SkipReason::kOffScope});
  ASSERT_TRUE((*sink)->CountLinks(links, page.url).ok());
  ASSERT_TRUE((*sink)->Sync(state).ok());

  EXPECT_EQ(counters.pages, 2u);
  EXPECT_EQ(counters.bytes, 10u);
  EXPECT_EQ(counters.links_found, 3u) << "a sitemap's entries are not links";
  EXPECT_EQ(counters.links_new, 2u);
  EXPECT_EQ(counters.failures[static_cast<size_t>(FailureCode::kHttp4xx)], 1u);
  EXPECT_EQ(counters.off_site, 1u);
  EXPECT_EQ(counters.skipped[static_cast<size_t>(SkipReason::kOffScope)], 1u);
  EXPECT_EQ((*sink)->status_classes()[2], 1u);
  EXPECT_EQ((*sink)->status_classes()[4], 1u);
  EXPECT_EQ(ReadPages(out).size(), 2u);
  EXPECT_EQ(state.pages_offset,
            std::filesystem::file_size(out / "pages.jsonl"));
  EXPECT_EQ(state.skipped_offset,
            std::filesystem::file_size(out / "skipped.jsonl"));
}

}  // namespace
}  // namespace sieve
