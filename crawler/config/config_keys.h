// crawler/config/config_keys.h: the one table of `sieve crawl`'s settings.
//
// Each row binds a TOML key to a field of CrawlConfig and gives its type (the
// kind of accessor), its bounds or accepted names, its help line and its
// command-line flag, if it has one. The default is the field's initialiser in
// CrawlConfig (crawl_config.h), read from `CrawlConfig{}`. Everything else is
// generated from this table, as Redis's config.c does:
//   - the TOML loader (config_loader.h) and the file `--resume` reads back;
//   - the crawl's command-line flags and the list of flags it accepts;
//   - `sieve help crawl` (flag, value type, help, default, config key).
// A test checks that config/default.toml documents every row with the same
// default, so adding a setting is one row here plus one field with its default.
//
// Example:
//   for (const sieve::ConfigKey& key : sieve::ConfigKeys())
//     std::cout << key.path << " = "
//               << sieve::FormatConfigValue(key, sieve::CrawlConfig{}) << "\n";
#ifndef SIEVE_CRAWLER_CONFIG_CONFIG_KEYS_H_
#define SIEVE_CRAWLER_CONFIG_CONFIG_KEYS_H_

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "crawler/config/crawl_config.h"

namespace sieve {

// A field holding one of a closed set of names (an enum, or a string some
// module parses), read and written by name through the module's own parser.
struct EnumField {
  // The field's value by name.
  std::string (*get)(const CrawlConfig&);
  // Stores the value named `name`; InvalidArgument (naming the accepted
  // names) otherwise.
  absl::Status (*set)(CrawlConfig&, std::string_view name);
  // The accepted names, for help texts.
  std::vector<std::string> (*names)();
};

// Accessors to one field of CrawlConfig, by type.
using ConfigField =
    std::variant<bool& (*)(CrawlConfig&), int64_t& (*)(CrawlConfig&),
                 double& (*)(CrawlConfig&), std::string& (*)(CrawlConfig&),
                 std::vector<std::string>& (*)(CrawlConfig&), EnumField>;

// The commands that take a key (ConfigKey::commands), a bit set: their flags
// and help list it.
enum ConfigCommand : uint8_t {
  kCrawlCommand = 1 << 0,          // sieve crawl
  kFrontierServeCommand = 1 << 1,  // sieve frontier serve
  // sieve cluster seed: the keys that decide a URL's normal form and its host
  // key, which every worker of a shared crawl and its seeds must agree on.
  kClusterSeedCommand = 1 << 2,
};

struct ConfigKey {
  // "table.key" in TOML, e.g. "crawl.max_pages".
  std::string_view path;
  // Command-line flag without dashes ("max-pages"), or empty for none.
  std::string_view flag;
  // One line.
  std::string_view help;
  ConfigField field;
  // Numbers: the closed range a value must lie in.
  double min = std::numeric_limits<double>::lowest();
  double max = std::numeric_limits<double>::max();
  // Strings: the accepted values separated by '|', or empty for any string.
  std::string_view choices = {};
  // Booleans: the flag sets the opposite value (`--insecure` sets
  // fetch.verify_tls = false; `--noinsecure` sets it true).
  bool flag_negates = false;
  // The commands that take it (ConfigCommand bits). Default: sieve crawl.
  uint8_t commands = kCrawlCommand;
};

// Every setting, in the order config/default.toml documents them.
std::span<const ConfigKey> ConfigKeys();

// The key bound to `flag` ("max-pages"), or nullptr.
const ConfigKey* FindConfigKeyByFlag(std::string_view flag);

// "path = value" lines (TOML values, FormatConfigValue) of every key that
// `command` takes (a ConfigCommand bit), in table order.
std::string FormatConfigKeysOf(uint8_t command, const CrawlConfig& config);

// The key at `path` ("crawl.max_pages"), or nullptr.
const ConfigKey* FindConfigKeyByPath(std::string_view path);

// True for a key an earlier version had and this one replaced: a saved
// OUT/config.toml may still hold it, so the loader reads past it (and
// `--resume` of an older crawl works). fetch.dns_cache_seconds became
// fetch.dns_min_ttl / dns_max_ttl / dns_negative_ttl (docs/crawling.md, DNS).
bool IsRetiredConfigKey(std::string_view path);

// "12", "0.5", "true", "\"host\"", "[\"a\", \"b\"]": the key's value in
// `config`, as TOML.
std::string FormatConfigValue(const ConfigKey& key, const CrawlConfig& config);

// What a flag of this key takes, for help: "INT", "NUM", "STR", "LIST",
// "host|domain|any" (the accepted names), or "" for a boolean.
std::string ConfigValueName(const ConfigKey& key);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CONFIG_CONFIG_KEYS_H_
