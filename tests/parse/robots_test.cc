// Tests quote the RFC 9309 section they check.
#include "parse/robots.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

using ::testing::ElementsAre;

constexpr char kAgent[] = "SieveBot/1.0";

// One robots.txt file and what it allows: each check is (user agent, path,
// allowed). The table's rows quote the RFC 9309 section they check.
struct Check {
  const char* agent;
  const char* path;
  bool allowed;
};
struct RobotsCase {
  const char* name;
  std::string file;
  std::vector<Check> checks;
};

const RobotsCase kCases[] = {
    // §2.2.1: "Crawlers MUST use case-insensitive matching to find the group
    // that matches the product token and then obey the rules of the group."
    {"PicksTheGroupOfTheProductTokenCaseInsensitively",
     "User-agent: *\nDisallow: /\n\nUser-agent: SIEVEBOT\nDisallow: "
     "/private\n",
     {{kAgent, "/public", true},
      {kAgent, "/private/x", false},
      {"OtherBot/2.0", "/public", false}}},  // falls back to "*"
    // §2.2.1: "If there is more than one group matching the user-agent, the
    // matching groups' rules MUST be combined into one group."
    {"MergesEveryGroupNamingTheToken",
     "user-agent: sievebot\ndisallow: /a\n\nuser-agent: other\ndisallow: "
     "/b\n\nuser-agent: SieveBot\ndisallow: /c\n",
     {{kAgent, "/a", false}, {kAgent, "/b", true}, {kAgent, "/c", false}}},
    // §2.1/§2.2.1: consecutive user-agent lines share the group that follows
    // them.
    {"ConsecutiveUserAgentLinesShareOneGroup",
     "User-agent: a\nUser-agent: sievebot\nUser-agent: b\nDisallow: /x\n",
     {{kAgent, "/x", false}, {"a", "/x", false}}},
    // §2.2.1: "If no group matches the product token and there is no group
    // with a user-agent line with the "*" value, or there are no groups at
    // all, no rules MUST apply."
    {"NoMatchingGroupAndNoStarAllowsEverything",
     "User-agent: other\nDisallow: /\n",
     {{kAgent, "/x", true}}},
    {"NoGroupsAtAllAllowsEverything", "", {{kAgent, "/x", true}}},
    // A rule before any user-agent line belongs to no group.
    {"ARuleBeforeAnyUserAgentBelongsToNoGroup",
     "Disallow: /\n",
     {{kAgent, "/x", true}}},
    // §2.2.2: "The most specific match found MUST be used. The most specific
    // match is the match that has the most octets."
    {"LongestMatchWins",
     "User-agent: *\nDisallow: /shop\nAllow: /shop/public\nDisallow: "
     "/shop/public/secret\n",
     {{kAgent, "/shop/cart", false},
      {kAgent, "/shop/public/item", true},
      {kAgent, "/shop/public/secret.html", false},
      {kAgent, "/other", true}}},  // "If no match is found ... allowed"
    // §2.2.2: "If an allow rule and a disallow rule are equivalent, then the
    // allow rule SHOULD be used."
    {"AllowWinsATie",
     "User-agent: *\nDisallow: /page\nAllow: /page\n",
     {{kAgent, "/page", true}}},
    {"AllowWinsATieInEitherOrder",
     "User-agent: *\nAllow: /page\nDisallow: /page\n",
     {{kAgent, "/page", true}}},
    // Equal length, different patterns: still a tie, still allowed.
    {"AllowWinsATieOfDifferentPatterns",
     "User-agent: *\nDisallow: /a*\nAllow: /ab\n",
     {{kAgent, "/abc", true}}},
    // §2.2.3: "$" designates the end of the match pattern; "*" designates 0 or
    // more instances of any character.
    {"DollarAnchorsAndStarMatchesAnyRun",
     "User-agent: *\nDisallow: /*.pdf$\nDisallow: /tmp*/cache\nDisallow: "
     "/exact$\n",
     {{kAgent, "/docs/a.pdf", false},
      {kAgent, "/docs/a.pdf?download=1", true},
      {kAgent, "/docs/a.pdfx", true},
      {kAgent, "/tmp/cache", false},
      {kAgent, "/tmp123/x/cache/y", false},
      {kAgent, "/tmp/x", true},
      {kAgent, "/exact", false},
      {kAgent, "/exact/more", true}}},
    // §2.2.3: "If crawlers match special characters verbatim in the URI,
    // crawlers SHOULD use "%" encoding": /path/file-with-a-%2A.html matches
    // /path/file-with-a-*.html.
    {"EncodedSpecialCharactersMatchVerbatim",
     "User-agent: *\nDisallow: /path/file-with-a-%2A.html\nDisallow: "
     "/foo-%24\n",
     {{kAgent, "/path/file-with-a-*.html", false},
      {kAgent, "/path/file-with-a-b.html", true},
      {kAgent, "/foo-$", false}}},
    // §2.2.2: percent-encoding is normalised before comparison: non-ASCII
    // octets encoded, escapes of unreserved characters decoded
    // ("/foo/bar/%62%61%7A" is "/foo/bar/baz").
    {"NormalisesPercentEncodingOnBothSides",
     "User-agent: *\nDisallow: /foo/bar/%62%61%7A\nDisallow: "
     "/\xE3\x83\x84\nDisallow: /%7euser\n",
     {{kAgent, "/foo/bar/baz", false},
      {kAgent, "/%E3%83%84/x", false},
      {kAgent, "/%e3%83%84", false},
      {kAgent, "/~user/", false}}},
    // §2.2.2: "The crawler MUST use case-sensitive matching to find the
    // matching rule."
    {"PathsMatchCaseSensitively",
     "User-agent: *\nDisallow: /Private\n",
     {{kAgent, "/Private", false}, {kAgent, "/private", true}}},
    // §2.2.2: rules see the path and the query.
    {"MatchesThePathAndTheQuery",
     "User-agent: *\nDisallow: /*?sessionid=\n",
     {{kAgent, "/private/x?sessionid=1", false},
      {kAgent, "/private/x?y", true},
      {kAgent, "", true}}},  // "" is "/"
    // §2.2.2 (ABNF: path-pattern may be empty): "Disallow:" with no path
    // disallows nothing.
    {"EmptyDisallowAllowsEverything",
     "User-agent: *\nDisallow:\n",
     {{kAgent, "/", true}, {kAgent, "/anything", true}}},
    // §2.2.2: "The /robots.txt URI is implicitly allowed."
    {"RobotsTxtItselfIsAlwaysAllowed",
     "User-agent: *\nDisallow: /\n",
     {{kAgent, "/robots.txt", true}}},
};

class RobotsCaseTest : public ::testing::TestWithParam<RobotsCase> {};

TEST_P(RobotsCaseTest, AllowsWhatTheRfcAllows) {
  const RobotsTxt robots = RobotsTxt::Parse(GetParam().file);
  for (const Check& check : GetParam().checks) {
    EXPECT_EQ(robots.IsAllowed(check.agent, check.path), check.allowed)
        << check.agent << " " << check.path;
  }
}

INSTANTIATE_TEST_SUITE_P(Rfc9309, RobotsCaseTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<RobotsCase>& param) {
                           return std::string(param.param.name);
                         });

// §2.2: the file is UTF-8; a byte order mark before the first line must not
// hide it.
TEST(RobotsTest, SkipsAUtf8ByteOrderMark) {
  const RobotsTxt robots =
      RobotsTxt::Parse("\xEF\xBB\xBFUser-agent: *\nDisallow: /x\n");
  EXPECT_FALSE(robots.IsAllowed(kAgent, "/x"));
}

// §2.2 (ABNF: EOL = %x0A / %x0D / %x0D.0A).
TEST(RobotsTest, AcceptsCrlfCrAndLfLineEndings) {
  for (const char* eol : {"\r\n", "\r", "\n"}) {
    const std::string file = std::string("User-agent: *") + eol +
                             "Disallow: /x" + eol + "Allow: /x/y" + eol;
    const RobotsTxt robots = RobotsTxt::Parse(file);
    EXPECT_FALSE(robots.IsAllowed(kAgent, "/x/z"))
        << "eol " << static_cast<int>(eol[0]);
    EXPECT_TRUE(robots.IsAllowed(kAgent, "/x/y"))
        << "eol " << static_cast<int>(eol[0]);
  }
}

// §2.3.1.5: "Crawlers MUST try to parse each line of the robots.txt file.
// Crawlers MUST use the parseable rules." §2.2.3: "#" starts a comment.
TEST(RobotsTest, IgnoresGarbageLinesAndComments) {
  const RobotsTxt robots = RobotsTxt::Parse(
      "<html><body>not robots</body></html>\n\x01\x02\xFF garbage\nUser-agent: "
      "* # all\n"
      "Disalow: /typo\nfoo bar baz\n:::\nDisallow: /x # why\n# Disallow: "
      "/commented\n");
  EXPECT_FALSE(robots.IsAllowed(kAgent, "/x"));
  EXPECT_TRUE(robots.IsAllowed(kAgent, "/typo"));
  EXPECT_TRUE(robots.IsAllowed(kAgent, "/commented"));
}

// §2.5: "Crawlers SHOULD impose a parsing limit ... The parsing limit MUST be
// at least 500 kibibytes." Rules within the limit apply; rules after it (and
// the line it cuts) do not.
TEST(RobotsTest, ParsesTheFirst500KibibytesOnly) {
  std::string file = "User-agent: *\nDisallow: /early\n";
  while (file.size() < RobotsTxt::kMaxBytes - 20)
    file += "# filler filler filler\n";
  file += "Disallow: /straddles-the-limit-of-500-KiB\nDisallow: /late\n";
  ASSERT_GT(file.size(), RobotsTxt::kMaxBytes);
  const RobotsTxt robots = RobotsTxt::Parse(file);
  EXPECT_FALSE(robots.IsAllowed(kAgent, "/early"));
  EXPECT_TRUE(robots.IsAllowed(kAgent, "/straddles-the-limit-of-500-KiB"));
  EXPECT_TRUE(robots.IsAllowed(kAgent, "/late"));
}

// §2.2.4: other records (Crawl-delay is not in the RFC; Sitemap is named
// there).
TEST(RobotsTest, KeepsCrawlDelayPerGroupAndSitemaps) {
  const RobotsTxt robots = RobotsTxt::Parse(
      "Sitemap: https://a.com/sitemap.xml\nUser-agent: *\nCrawl-delay: 10\n\n"
      "User-agent: sievebot\nCrawl-delay: 2.5\nDisallow: /x\n"
      "sitemap: https://a.com/news.xml\nUser-agent: bad\nCrawl-delay: -3\n");
  EXPECT_EQ(robots.CrawlDelay(kAgent), 2.5);
  EXPECT_EQ(robots.CrawlDelay("Other"), 10.0);
  EXPECT_EQ(robots.CrawlDelay("bad"), std::nullopt);
  EXPECT_THAT(robots.Sitemaps(), ElementsAre("https://a.com/sitemap.xml",
                                             "https://a.com/news.xml"));
  // Crawl-delay does not close the group: the Disallow still belongs to
  // sievebot.
  EXPECT_FALSE(robots.IsAllowed(kAgent, "/x"));
}

// §2.3.1.1-§2.3.1.4: 2xx → parse; 4xx "unavailable" → MAY access any resource;
// 5xx or unreachable → MUST assume complete disallow. §2.3.1.2: past the
// redirect limit, MAY treat as unavailable.
TEST(RobotsTest, FetchStatusDecidesTheRules) {
  EXPECT_EQ(RobotsRuleForStatus(200), RobotsFetchRule::kParse);
  EXPECT_EQ(RobotsRuleForStatus(204), RobotsFetchRule::kParse);
  EXPECT_EQ(RobotsRuleForStatus(301), RobotsFetchRule::kAllowAll);
  EXPECT_EQ(RobotsRuleForStatus(404), RobotsFetchRule::kAllowAll);
  EXPECT_EQ(RobotsRuleForStatus(403), RobotsFetchRule::kAllowAll);
  EXPECT_EQ(RobotsRuleForStatus(500), RobotsFetchRule::kDisallowAll);
  EXPECT_EQ(RobotsRuleForStatus(503), RobotsFetchRule::kDisallowAll);
  EXPECT_EQ(RobotsRuleForStatus(429), RobotsFetchRule::kDisallowAll);
  EXPECT_EQ(RobotsRuleForStatus(0), RobotsFetchRule::kDisallowAll);

  const char* body = "User-agent: *\nDisallow: /x\n";
  EXPECT_FALSE(RobotsTxt::FromFetch(200, body).IsAllowed(kAgent, "/x"));
  EXPECT_TRUE(RobotsTxt::FromFetch(200, body).IsAllowed(kAgent, "/y"));
  EXPECT_TRUE(RobotsTxt::FromFetch(404, body).IsAllowed(kAgent, "/x"));
  EXPECT_FALSE(RobotsTxt::FromFetch(503, body).IsAllowed(kAgent, "/y"));
  EXPECT_FALSE(RobotsTxt::FromFetch(0, "").IsAllowed(kAgent, "/"));
  EXPECT_FALSE(RobotsTxt::DisallowAll().IsAllowed(kAgent, "/robots.txt"));
  EXPECT_TRUE(RobotsTxt::AllowAll().IsAllowed(kAgent, "/anything"));
}

}  // namespace
}  // namespace sieve
