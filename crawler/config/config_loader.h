// crawler/config/config_loader.h: reads `sieve crawl` settings from TOML
// (toml++) and applies command-line overrides on top.
//
// Every error names its source (the file, or the flag), the key and what is
// wrong, e.g.
//   config/bad.toml: key 'fetch.concurrency': must be >= 1, got 0
//   config/bad.toml:3:7: TOML syntax error: ...
// Unknown keys are errors too: a misspelt setting must not be silently ignored.
#ifndef SIEVE_CRAWLER_CONFIG_CONFIG_LOADER_H_
#define SIEVE_CRAWLER_CONFIG_CONFIG_LOADER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crawler/config/crawl_config.h"

namespace sieve {

// Applies the settings in `toml_text` on top of `config`. `source` names the
// text in errors.
[[nodiscard]] absl::Status ApplyConfigToml(std::string_view toml_text,
                                           std::string_view source,
                                           CrawlConfig& config);

// Reads the file at `path` and applies it on top of `config`.
[[nodiscard]] absl::Status ApplyConfigFile(const std::string& path,
                                           CrawlConfig& config);

// Applies the command-line flags in `flag_values` (dashed name -> the text
// given, as crawler/cli/flag_parser.h returns them; booleans "true"/"false")
// that are bound to a config key, with the key's type and bounds. A list key's
// flag found in `repeated` gets one item per occurrence, unsplit (`--header
// 'A: 1, 2' --header 'B: 3'`); otherwise its text is split at commas. Flags
// bound to no key are ignored. Errors name the flag:
//   --concurrency: must be >= 1, got 0
//   --max-pages: expected an integer, got 'many'
[[nodiscard]] absl::Status ApplyFlagOverrides(
    const absl::flat_hash_map<std::string, std::string>& flag_values,
    CrawlConfig& config,
    const absl::flat_hash_map<std::string, std::vector<std::string>>& repeated =
        {});

// Applies `--set SECTION.KEY=VALUE` assignments, in order, to any key of the
// settings table (config_keys.h), with the key's type and bounds, as a flag
// would. A list key gets VALUE as one item: the first --set of it replaces
// the list, each further one adds an item. Booleans take true/false/1/0/
// yes/no. Errors name the assignment:
//   --set crawl.max_pages: expected an integer, got 'many'
//   --set crawl.nope=1: unknown key 'crawl.nope' (sieve help crawl lists...)
[[nodiscard]] absl::Status ApplySetOverrides(
    const std::vector<std::string>& assignments, CrawlConfig& config);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CONFIG_CONFIG_LOADER_H_
