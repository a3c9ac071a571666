// The link policy on its own (crawler/policy/link_policy.h): each rule a
// discovered URL meets before the frontier (normalisation, scope verdicts,
// depth, trap control, robots.txt, the Sieve) gives its outcome and skip
// reason, and only a URL that passes them all reaches the frontier, under its
// host key. A recording frontier stands in for the Sieve.
#include "crawler/policy/link_policy.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "crawler/policy/robots_cache.h"
#include "crawler/policy/scope.h"
#include "crawler/policy/trap_guard.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Queues each URL once (a perfect Sieve) and records what it was given.
class RecordingFrontier final : public CrawlFrontier {
 public:
  struct Added {
    std::string url, host;
    uint32_t depth;
    bool operator==(const Added&) const = default;
  };
  bool Add(std::string_view url, std::string_view host, uint32_t depth,
           std::string_view /*metadata*/) override {
    if (!seen_.insert(std::string(url)).second) return false;
    added.push_back({std::string(url), std::string(host), depth});
    return true;
  }
  NextUrl Next(absl::Time) override { return {}; }
  absl::StatusOr<UrlFate> Done(std::string_view, const FetchOutcome&,
                               absl::Time) override {
    return absl::UnimplementedError("not here");
  }
  void SetCrawlDelay(std::string_view, absl::Duration) override {}
  absl::Status Checkpoint(SnapshotWriter&) override {
    return absl::UnimplementedError("not here");
  }
  FrontierStats stats() const override { return {}; }
  FrontierFilterStats filter_stats() const override { return {}; }
  absl::Status status() const override { return absl::OkStatus(); }

  std::vector<Added> added;

 private:
  absl::flat_hash_set<std::string> seen_;
};

class LinkPolicyRulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Scope> scope = Scope::Create({.mode = ScopeMode::kHost,
                                                 .deny = {"/denied/"},
                                                 .max_url_length = 60,
                                                 .max_path_segment_repeats = 2},
                                                {"a.test"});
    ASSERT_TRUE(scope.ok()) << scope.status();
    scope_ = std::make_unique<Scope>(*std::move(scope));
    policy_.scope = scope_.get();
    policy_.robots = &robots_;
    policy_.frontier = &frontier_;
    policy_.traps = &traps_;
    policy_.max_depth = 2;
  }

  AddOutcome Add(std::string_view url, uint32_t depth = 1,
                 const Origin& origin = {.referrer = "http://a.test/"}) {
    return AddDiscovered(policy_, url, depth, origin);
  }

  std::unique_ptr<Scope> scope_;
  RobotsCache robots_;
  RecordingFrontier frontier_;
  TrapGuard traps_{{.max_query_variants = 2, .max_date_variants = 2}};
  LinkPolicy policy_;
};

TEST_F(LinkPolicyRulesTest, AnInScopeLinkIsNormalisedAndQueuedUnderItsHostKey) {
  EXPECT_EQ(Add("HTTP://A.test:80/x/../page#frag"), AddOutcome::kQueued);
  EXPECT_THAT(frontier_.added, ElementsAre(RecordingFrontier::Added{
                                   "http://a.test/page", "a.test", 1}));
  // The same URL again is the Sieve's to refuse.
  EXPECT_EQ(Add("http://a.test/page"), AddOutcome::kSeen);
  EXPECT_EQ(frontier_.added.size(), 1u);
}

TEST_F(LinkPolicyRulesTest, EachScopeVerdictIsItsOutcomeAndNothingIsQueued) {
  EXPECT_EQ(Add("http://b.test/"), AddOutcome::kOffSite);
  EXPECT_EQ(Add("http://a.test/denied/1"), AddOutcome::kDenied);
  EXPECT_EQ(Add("http://a.test/" + std::string(60, 'x')), AddOutcome::kTooLong);
  EXPECT_EQ(Add("http://a.test/r/r/r/r/"), AddOutcome::kRepeatedPath);
  EXPECT_EQ(Add("mailto:someone@a.test"), AddOutcome::kInvalid);
  EXPECT_THAT(frontier_.added, IsEmpty());
}

TEST_F(LinkPolicyRulesTest, AllowPatternsRefuseWhatMatchesNone) {
  absl::StatusOr<Scope> scope =
      Scope::Create({.allow = {"/docs/"}}, {"a.test"});
  ASSERT_TRUE(scope.ok());
  policy_.scope = &*scope;
  EXPECT_EQ(Add("http://a.test/blog/1"), AddOutcome::kNotAllowed);
  EXPECT_EQ(Add("http://a.test/docs/1"), AddOutcome::kQueued);
}

TEST_F(LinkPolicyRulesTest, DepthPastTheLimitIsRefusedAndZeroMeansNoLimit) {
  EXPECT_EQ(Add("http://a.test/d2", 2), AddOutcome::kQueued);
  EXPECT_EQ(Add("http://a.test/d3", 3), AddOutcome::kBeyondDepth);
  policy_.max_depth = 0;
  EXPECT_EQ(Add("http://a.test/d99", 99), AddOutcome::kQueued);
}

TEST_F(LinkPolicyRulesTest, QueryVariantsAndCalendarsStopAtTheirCaps) {
  EXPECT_EQ(Add("http://a.test/list?page=1"), AddOutcome::kQueued);
  EXPECT_EQ(Add("http://a.test/list?page=2"), AddOutcome::kQueued);
  EXPECT_EQ(Add("http://a.test/list?page=3"), AddOutcome::kQueryVariants);
  EXPECT_EQ(Add("http://a.test/cal/2026/01/"), AddOutcome::kQueued);
  EXPECT_EQ(Add("http://a.test/cal/2026/02/"), AddOutcome::kQueued);
  EXPECT_EQ(Add("http://a.test/cal/2026/03/"), AddOutcome::kCalendar);
  // Another path has counts of its own.
  EXPECT_EQ(Add("http://a.test/other?page=3"), AddOutcome::kQueued);
}

TEST_F(LinkPolicyRulesTest, RobotsTxtRefusesOnceKnownAndNotBefore) {
  EXPECT_EQ(Add("http://a.test/private/1"), AddOutcome::kQueued);
  FetchResponse robots;
  robots.status = 200;
  robots.body = "User-agent: *\nDisallow: /private/\n";
  robots_.Store(RobotsCache::Key("http", "a.test", 80),
                InterpretRobotsResponse(robots, "sievebot"));
  EXPECT_EQ(Add("http://a.test/private/2"), AddOutcome::kDisallowed);
  EXPECT_EQ(Add("http://a.test/public/2"), AddOutcome::kQueued);
}

TEST_F(LinkPolicyRulesTest, ARequisiteMayLeaveTheHostButNotPassADenyPattern) {
  const Origin requisite{.referrer = "http://a.test/", .requisite = true};
  EXPECT_EQ(Add("http://cdn.test/style.css", 5, requisite),
            AddOutcome::kQueued);
  EXPECT_EQ(Add("http://cdn.test/denied/x.png", 1, requisite),
            AddOutcome::kDenied);
}

TEST(LinkOutcomesTest, EveryRefusalHasItsSkipReasonAndIsKeptWhenRecorded) {
  EXPECT_EQ(SkipReasonOf(AddOutcome::kQueued), std::nullopt);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kSeen), std::nullopt);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kInvalid), std::nullopt);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kOffSite), SkipReason::kOffScope);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kNotAllowed), SkipReason::kNotAllowed);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kDenied), SkipReason::kDenyPattern);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kTooLong), SkipReason::kTrapLength);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kRepeatedPath), SkipReason::kTrapRepeat);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kBeyondDepth), SkipReason::kMaxDepth);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kDisallowed), SkipReason::kRobots);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kOverOutlinkCap), SkipReason::kOutlinkCap);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kQueryVariants), SkipReason::kTrapQuery);
  EXPECT_EQ(SkipReasonOf(AddOutcome::kCalendar), SkipReason::kTrapCalendar);

  LinkPolicy policy;
  LinkOutcomes outcomes;
  outcomes.Note(policy, "http://b.test/", AddOutcome::kOffSite);
  EXPECT_THAT(outcomes.skipped, IsEmpty());  // record_skipped is off
  policy.record_skipped = true;
  outcomes.Note(policy, "http://b.test/", AddOutcome::kOffSite);
  outcomes.Note(policy, "http://a.test/", AddOutcome::kQueued);
  ASSERT_EQ(outcomes.skipped.size(), 1u);
  EXPECT_EQ(outcomes.skipped[0].url, "http://b.test/");
  EXPECT_EQ(outcomes.skipped[0].reason, SkipReason::kOffScope);
  EXPECT_EQ(outcomes.off_site, 2u);
  EXPECT_EQ(outcomes.queued, 1);
}

}  // namespace
}  // namespace sieve
