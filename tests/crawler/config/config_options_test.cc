// crawler/config/config_options.h: one row per setting naming its library
// option, and one default per setting.
#include "crawler/config/config_options.h"

#include <cstdint>
#include <optional>
#include <variant>

#include "crawler/config/config_keys.h"
#include "crawler/config/crawl_config.h"
#include "crawler/config/crawl_options.h"
#include "frontier/politeness.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

// A number or boolean setting's value in `config`, as a double.
std::optional<double> NumberOf(const ConfigKey& key, CrawlConfig& config) {
  if (auto* get = std::get_if<bool& (*)(CrawlConfig&)>(&key.field))
    return (*get)(config) ? 1.0 : 0.0;
  if (auto* get = std::get_if<int64_t& (*)(CrawlConfig&)>(&key.field))
    return static_cast<double>((*get)(config));
  if (auto* get = std::get_if<double& (*)(CrawlConfig&)>(&key.field))
    return (*get)(config);
  return std::nullopt;
}

TEST(ConfigOptionsTest, EverySettingHasOneRowInTheTablesOrder) {
  ASSERT_EQ(ConfigOptions().size(), ConfigKeys().size());
  for (size_t i = 0; i < ConfigKeys().size(); ++i) {
    EXPECT_EQ(ConfigOptions()[i].key, ConfigKeys()[i].path);
    EXPECT_FALSE(ConfigOptions()[i].option.empty()) << ConfigKeys()[i].path;
  }
  EXPECT_EQ(FindConfigOption("fetch.timeout")->option,
            "FetchOptions::total_timeout");
  EXPECT_EQ(FindConfigOption("nope"), nullptr);
}

// Each default is written once: where a library option takes the setting, the
// crawl's default is the library's, max_error_retries included (2, as
// frontier/politeness.h says why).
TEST(ConfigOptionsTest, TheCrawlsDefaultIsTheLibrarysDefault) {
  CrawlConfig config;
  int checked = 0;
  for (const ConfigOption& row : ConfigOptions()) {
    if (row.library_default == nullptr) continue;
    const ConfigKey* key = FindConfigKeyByPath(row.key);
    ASSERT_NE(key, nullptr) << row.key;
    std::optional<double> value = NumberOf(*key, config);
    ASSERT_TRUE(value.has_value()) << row.key << " is not a number";
    EXPECT_EQ(*value, row.library_default()) << row.key << " -> " << row.option;
    ++checked;
  }
  EXPECT_GE(checked, 25);
  ASSERT_NE(FindConfigOption("politeness.max_error_retries")->library_default,
            nullptr);
  EXPECT_EQ(config.politeness.max_error_retries, 2);
  EXPECT_EQ(PolitenessOptions{}.max_error_retries, 2);
}

// The names that differ between key and option reach the option they name.
TEST(ConfigOptionsTest, RenamedKeysSetTheOptionTheTableNames) {
  CrawlConfig c;
  c.fetch.timeout = 7;
  c.politeness.per_host_connections = 3;
  c.politeness.backoff_initial = 9;
  EXPECT_EQ(MakeFetchOptions(c, {}).total_timeout, absl::Seconds(7));
  EXPECT_EQ(MakePolitenessOptions(c).max_in_flight_per_host, 3);
  EXPECT_EQ(MakePolitenessOptions(c).backoff_base, absl::Seconds(9));
  EXPECT_EQ(FindConfigOption("politeness.per_host_connections")->option,
            "PolitenessOptions::max_in_flight_per_host");
  EXPECT_EQ(FindConfigOption("politeness.backoff_initial")->option,
            "PolitenessOptions::backoff_base");
}

}  // namespace
}  // namespace sieve
