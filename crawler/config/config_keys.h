// crawler/config/config_keys.h: the table that binds each TOML key (and its
// command-line flag, when it has one) to a field of CrawlConfig, with the
// constraint its value must meet.
//
// One table serves the TOML loader, the flag overrides and `sieve help crawl`,
// so a setting is declared once.
#ifndef SIEVE_CRAWLER_CONFIG_CONFIG_KEYS_H_
#define SIEVE_CRAWLER_CONFIG_CONFIG_KEYS_H_

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "crawler/config/crawl_config.h"

namespace sieve {

// Accessors to one field of CrawlConfig, by type.
using ConfigField =
    std::variant<bool& (*)(CrawlConfig&), int64_t& (*)(CrawlConfig&),
                 double& (*)(CrawlConfig&), std::string& (*)(CrawlConfig&),
                 std::vector<std::string>& (*)(CrawlConfig&)>;

struct ConfigKey {
  std::string_view path;  // "table.key" in TOML, e.g. "crawl.max_pages".
  std::string_view
      flag;  // Command-line flag without dashes ("max-pages"), or empty.
  std::string_view help;  // One line.
  ConfigField field;
  // Numbers: the closed range a value must lie in.
  double min = std::numeric_limits<double>::lowest();
  double max = std::numeric_limits<double>::max();
  // Strings: the accepted values separated by '|', or empty for any string.
  std::string_view choices = {};
};

// Every setting, in the order config/default.toml documents them.
std::span<const ConfigKey> ConfigKeys();

// The key bound to `flag` ("max-pages"), or nullptr.
const ConfigKey* FindConfigKeyByFlag(std::string_view flag);

// "12", "0.5", "true", "\"host\"", "[\"a\", \"b\"]": the key's value in
// `config`, as TOML.
std::string FormatConfigValue(const ConfigKey& key, const CrawlConfig& config);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CONFIG_CONFIG_KEYS_H_
