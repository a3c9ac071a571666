#include "crawler/config/config_loader.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "crawler/config/config_keys.h"
#include "crawler/config/crawl_options.h"
#include "frontier/frontier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/files.h"

namespace sieve {
namespace {

using ::testing::HasSubstr;

using test::ReadFile;

TEST(ConfigLoaderTest, DefaultTomlMatchesBuiltInDefaults) {
  CrawlConfig from_file;
  ASSERT_TRUE(ApplyConfigFile(SIEVE_DEFAULT_TOML, from_file).ok());
  const CrawlConfig built_in;
  for (const ConfigKey& key : ConfigKeys()) {
    EXPECT_EQ(FormatConfigValue(key, from_file),
              FormatConfigValue(key, built_in))
        << key.path;
  }
}

// The caches kept per host hold every host the frontier keeps active, so
// robots.txt is not fetched again, nor a name asked again, while its host is
// being crawled (issue 36: 20,000 robots.txt origins for 38,766 active hosts).
TEST(ConfigDefaultsTest, PerHostCachesHoldEveryActiveHostOfTheFrontier) {
  const CrawlConfig config;
  absl::StatusOr<FrontierOptions> frontier = MakeFrontierOptions(config, "");
  ASSERT_TRUE(frontier.ok()) << frontier.status();
  const uint64_t active = MaxActiveHosts(*frontier);
  EXPECT_EQ(active, 65536u);
  EXPECT_GE(static_cast<uint64_t>(config.robots.cache_entries), active);
  EXPECT_GE(static_cast<uint64_t>(config.fetch.dns_cache_entries), active);
  // The key reaches the DNS cache.
  CrawlConfig small;
  ASSERT_TRUE(
      ApplyConfigToml("[fetch]\ndns_cache_entries = 4096\n", "test", small)
          .ok());
  EXPECT_EQ(MakeFetchOptions(small, {}).dns.max_entries, 4096u);
}

TEST(ConfigLoaderTest, DefaultTomlDocumentsEveryKeyWithAComment) {
  std::vector<std::string> lines =
      absl::StrSplit(ReadFile(SIEVE_DEFAULT_TOML), '\n');
  for (const ConfigKey& key : ConfigKeys()) {
    std::string name(key.path.substr(key.path.find('.') + 1));
    auto line =
        std::find_if(lines.begin(), lines.end(), [&](const std::string& l) {
          return absl::StartsWith(l, name + " = ");
        });
    ASSERT_NE(line, lines.end()) << key.path << " is missing from default.toml";
    // Above the key, past any keys grouped with it, stands a comment.
    auto above = line;
    while (above != lines.begin() && absl::StrContains(*(above - 1), " = "))
      --above;
    ASSERT_NE(above, lines.begin()) << key.path;
    EXPECT_TRUE(absl::StartsWith(*(above - 1), "#"))
        << key.path << " has no comment";
  }
}

TEST(ConfigLoaderTest, FileValuesOverrideDefaults) {
  CrawlConfig config;
  ASSERT_TRUE(
      ApplyConfigToml("[crawl]\nmax_pages = 7\nallow = [\"^http://a/\"]\n"
                      "[politeness]\ndelay = 2\n",
                      "t.toml", config)
          .ok());
  EXPECT_EQ(config.crawl.max_pages, 7);
  EXPECT_EQ(config.politeness.delay,
            2.0);  // An integer is accepted where a number is wanted.
  EXPECT_THAT(config.crawl.allow, ::testing::ElementsAre("^http://a/"));
  EXPECT_EQ(config.fetch.concurrency, CrawlConfig{}.fetch.concurrency);
}

TEST(ConfigLoaderTest, UnknownKeyIsAnError) {
  CrawlConfig config;
  absl::Status s =
      ApplyConfigToml("[crawl]\nmax_pagez = 7\n", "t.toml", config);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("t.toml: unknown key 'crawl.max_pagez'"));
}

TEST(ConfigLoaderTest, WrongTypeNamesKeyAndTypes) {
  CrawlConfig config;
  absl::Status s = ApplyConfigToml("[fetch]\nhttp2 = 1\n", "t.toml", config);
  EXPECT_EQ(std::string(s.message()),
            "t.toml: key 'fetch.http2': expected a boolean, got an integer");
}

TEST(ConfigLoaderTest, OutOfRangeValueIsAnError) {
  CrawlConfig config;
  absl::Status s =
      ApplyConfigToml("[sieve]\nfp_rate = 1.5\n", "t.toml", config);
  EXPECT_EQ(std::string(s.message()),
            "t.toml: key 'sieve.fp_rate': must be <= 0.5, got 1.5");
}

TEST(ConfigLoaderTest, ValueOutsideChoicesListsTheChoices) {
  CrawlConfig config;
  absl::Status s =
      ApplyConfigToml("[crawl]\nscope = \"planet\"\n", "t.toml", config);
  EXPECT_EQ(std::string(s.message()),
            "t.toml: key 'crawl.scope': must be one of host, domain, any; got "
            "\"planet\"");
}

TEST(ConfigLoaderTest, KeyOutsideATableIsAnError) {
  CrawlConfig config;
  absl::Status s = ApplyConfigToml("max_pages = 3\n", "t.toml", config);
  EXPECT_THAT(std::string(s.message()), HasSubstr("t.toml: key 'max_pages'"));
}

TEST(ConfigLoaderTest, ArrayOfNonStringsIsAnError) {
  CrawlConfig config;
  absl::Status s =
      ApplyConfigToml("[crawl]\ndeny = [1, 2]\n", "t.toml", config);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("expected an array of strings"));
}

TEST(ConfigLoaderTest, FlagTextIsParsedWithTheKeysTypeAndBounds) {
  CrawlConfig config;
  ASSERT_TRUE(ApplyFlagOverrides({{"max-pages", "12"},
                                  {"scope", "domain"},
                                  {"fp-rate", "0.02"},
                                  {"demo", "true"}},  // Bound to no key.
                                 config)
                  .ok());
  EXPECT_EQ(config.crawl.max_pages, 12);
  EXPECT_EQ(config.crawl.scope, ScopeMode::kDomain);
  EXPECT_DOUBLE_EQ(config.sieve.fp_rate, 0.02);
  EXPECT_EQ(std::string(
                ApplyFlagOverrides({{"max-pages", "many"}}, config).message()),
            "--max-pages: expected an integer, got 'many'");
  EXPECT_EQ(
      std::string(ApplyFlagOverrides({{"concurrency", "0"}}, config).message()),
      "--concurrency: must be >= 1, got 0");
}

// An older crawl's saved config.toml still loads (for --resume): a key this
// version replaced is read past, an unknown one is still an error.
TEST(ConfigLoaderTest, ARetiredKeyOfASavedConfigIsReadPast) {
  CrawlConfig config;
  EXPECT_TRUE(
      ApplyConfigToml("[fetch]\ndns_cache_seconds = 300\n", "t.toml", config)
          .ok());
  EXPECT_FALSE(
      ApplyConfigToml("[fetch]\ndns_cache_minutes = 5\n", "t.toml", config)
          .ok());
}

TEST(ConfigLoaderTest, FilterKindIsCheckedByTheFilterModulesParser) {
  CrawlConfig config;
  ASSERT_TRUE(
      ApplyConfigToml("[sieve]\nfilter = \"counting\"\n", "t.toml", config)
          .ok());
  EXPECT_EQ(config.sieve.filter, "counting");
  absl::Status s =
      ApplyConfigToml("[sieve]\nfilter = \"cuckoo\"\n", "t.toml", config);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("t.toml: key 'sieve.filter': unknown filter kind"));
}

TEST(ConfigKeysTest, EveryFlagNameIsUniqueAndEveryPathHasATable) {
  absl::flat_hash_set<std::string> flags;
  for (const ConfigKey& key : ConfigKeys()) {
    EXPECT_NE(key.path.find('.'), std::string_view::npos) << key.path;
    if (!key.flag.empty()) {
      EXPECT_TRUE(flags.insert(std::string(key.flag)).second) << key.flag;
      EXPECT_EQ(FindConfigKeyByFlag(key.flag), &key);
    }
    EXPECT_EQ(FindConfigKeyByPath(key.path), &key);
  }
}

}  // namespace
}  // namespace sieve
