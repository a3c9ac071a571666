// RobotsMatcher must answer exactly as RobotsTxt::IsAllowed does (the
// reference, RFC 9309 2.2.2 and 2.2.3), only with bounded work per URL.
#include "parse/robots_matcher.h"

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "parse/robots.h"

namespace sieve {
namespace {

constexpr char kAgent[] = "SieveBot/1.0";

void ExpectSameAnswers(const std::string& file,
                       const std::vector<std::string>& paths) {
  const RobotsTxt robots = RobotsTxt::Parse(file);
  const RobotsMatcher matcher = RobotsMatcher::Compile(robots, kAgent);
  for (const std::string& path : paths) {
    EXPECT_EQ(matcher.IsAllowed(path), robots.IsAllowed(kAgent, path))
        << "file:\n"
        << file << "path: " << path;
  }
}

// §2.2.2: the longest match wins, allow wins a tie, no match allows.
TEST(RobotsMatcherTest, TheLongestMatchWinsAndAllowWinsATie) {
  const RobotsMatcher m = RobotsMatcher::Compile(
      RobotsTxt::Parse("User-agent: *\nDisallow: /a\nAllow: /a/b\n"
                       "Disallow: /a/b/c\nAllow: /x\nDisallow: /x\n"
                       "Disallow: /*.pdf$\nAllow: /docs/*.pdf$\n"),
      kAgent);
  EXPECT_TRUE(m.IsAllowed("/"));
  EXPECT_FALSE(m.IsAllowed("/a"));
  EXPECT_TRUE(m.IsAllowed("/a/b"));
  EXPECT_FALSE(m.IsAllowed("/a/b/c/d"));
  EXPECT_TRUE(m.IsAllowed("/x/y"));
  EXPECT_FALSE(m.IsAllowed("/files/r.pdf"));
  EXPECT_TRUE(m.IsAllowed("/files/r.pdf?x"));
  EXPECT_TRUE(m.IsAllowed("/docs/r.pdf"));
  EXPECT_TRUE(m.IsAllowed("/robots.txt"));
}

// §2.2.3: '*' matches any run of octets, a final '$' anchors.
TEST(RobotsMatcherTest, MatchesWildcardsAndAnchors) {
  ExpectSameAnswers(
      "User-agent: *\nDisallow: /*/private/*\nDisallow: /*?sessionid=\n"
      "Allow: /*/private/ok$\nDisallow: *$\nAllow: /fish*.php\n"
      "Disallow: /a*b*c$\nDisallow: /exact$\nDisallow: /mid$dle\n",
      {"/",
       "/x/private/y",
       "/x/private/ok",
       "/x/private/ok/",
       "/p?sessionid=1",
       "/fish.php",
       "/fishheads/catfish.php?id=2",
       "/abc",
       "/aXbYc",
       "/abcd",
       "/ac",
       "/exact",
       "/exact/",
       "/mid$dle",
       "/mid%24dle",
       "",
       "/robots.txt",
       "/a%2Fb",
       "/%7Euser",
       "/~user",
       "/caf\xC3\xA9"});
}

TEST(RobotsMatcherTest, KeepsTheGroupChoiceAndCrawlDelay) {
  const RobotsTxt robots = RobotsTxt::Parse(
      "User-agent: *\nDisallow: /\n\nUser-agent: sievebot\nCrawl-delay: 3\n"
      "Disallow: /private\n");
  const RobotsMatcher mine = RobotsMatcher::Compile(robots, kAgent);
  const RobotsMatcher other = RobotsMatcher::Compile(robots, "OtherBot");
  EXPECT_TRUE(mine.IsAllowed("/public"));
  EXPECT_FALSE(mine.IsAllowed("/private/x"));
  EXPECT_FALSE(other.IsAllowed("/public"));
  EXPECT_EQ(mine.crawl_delay(), 3.0);
  EXPECT_EQ(other.crawl_delay(), std::nullopt);
}

TEST(RobotsMatcherTest, DisallowAllAndAllowAllCompile) {
  EXPECT_FALSE(
      RobotsMatcher::Compile(RobotsTxt::DisallowAll(), kAgent).IsAllowed("/"));
  EXPECT_TRUE(
      RobotsMatcher::Compile(RobotsTxt::AllowAll(), kAgent).IsAllowed("/x"));
}

// Differential: random files over a small alphabet, so patterns and paths
// collide often, must give RobotsTxt's answers. Fixed seed: deterministic.
TEST(RobotsMatcherTest, AgreesWithTheReferenceOnRandomRules) {
  std::mt19937 gen(20240522);
  const std::string alphabet = "/ab*$?=";
  auto random_text = [&](size_t max_length) {
    std::string s = "/";
    const size_t length = gen() % max_length;
    for (size_t i = 0; i < length; ++i) s.push_back(alphabet[gen() % 7]);
    return s;
  };
  for (int round = 0; round < 300; ++round) {
    std::string file = "User-agent: *\n";
    const int rules = 1 + static_cast<int>(gen() % 8);
    for (int r = 0; r < rules; ++r) {
      absl::StrAppend(
          &file, gen() % 2 ? "Allow: " : "Disallow: ", random_text(8), "\n");
    }
    std::vector<std::string> paths;
    for (int p = 0; p < 20; ++p) {
      std::string path = random_text(10);
      std::erase_if(path, [](char c) { return c == '*' || c == '$'; });
      paths.push_back(path);
    }
    ExpectSameAnswers(file, paths);
    if (HasFailure()) return;
  }
}

// The cap: past kMaxWildcardRules '*' patterns the rest are ignored and
// counted; plain patterns are never dropped.
TEST(RobotsMatcherTest, IgnoresWildcardRulesPastTheCap) {
  std::string file = "User-agent: *\n";
  for (size_t i = 0; i < RobotsMatcher::kMaxWildcardRules + 5; ++i) {
    absl::StrAppend(&file, "Disallow: /*w", i, "x\n");
  }
  absl::StrAppend(&file, "Disallow: /plain\n");
  const RobotsMatcher m =
      RobotsMatcher::Compile(RobotsTxt::Parse(file), kAgent);
  EXPECT_EQ(m.ignored_wildcard_rules(), 5u);
  EXPECT_FALSE(m.IsAllowed("/a/w0x"));
  EXPECT_FALSE(m.IsAllowed(
      absl::StrCat("/a/w", RobotsMatcher::kMaxWildcardRules - 1, "x")));
  EXPECT_TRUE(
      m.IsAllowed(absl::StrCat("/a/w", RobotsMatcher::kMaxWildcardRules, "x")));
  EXPECT_FALSE(m.IsAllowed("/plain/y"));
}

TEST(RobotsMatcherTest, ItsSizeEstimateGrowsWithTheRules) {
  std::string file = "User-agent: *\n";
  const size_t empty = RobotsMatcher::Compile(RobotsTxt::Parse(file), kAgent)
                           .approximate_bytes();
  for (int i = 0; i < 1000; ++i) {
    absl::StrAppend(&file, "Disallow: /dir", i, "/\nDisallow: /*x", i, "\n");
  }
  const size_t full = RobotsMatcher::Compile(RobotsTxt::Parse(file), kAgent)
                          .approximate_bytes();
  EXPECT_GT(empty, 0u);
  EXPECT_GT(full, empty + 1000 * 8) << "at least a byte per pattern byte";
}

TEST(RobotsMatcherTest, RepeatedRulesDoNotCountAgainstTheCap) {
  std::string file = "User-agent: *\n";
  for (size_t i = 0; i < 3 * RobotsMatcher::kMaxWildcardRules; ++i) {
    absl::StrAppend(&file, "Disallow: /*same\n");
  }
  absl::StrAppend(&file, "Disallow: /*other\n");
  const RobotsMatcher m =
      RobotsMatcher::Compile(RobotsTxt::Parse(file), kAgent);
  EXPECT_EQ(m.ignored_wildcard_rules(), 0u);
  EXPECT_FALSE(m.IsAllowed("/x/other"));
}

}  // namespace
}  // namespace sieve
