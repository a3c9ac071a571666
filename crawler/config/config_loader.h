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

#include "absl/container/flat_hash_set.h"
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

// Applies the values of the command-line flags named in `specified`
// ("max-pages", ...) that are bound to a config key. The flags must already be
// parsed (see crawler/cli/flag_parser.h).
[[nodiscard]] absl::Status ApplyFlagOverrides(
    const absl::flat_hash_set<std::string>& specified, CrawlConfig& config);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CONFIG_CONFIG_LOADER_H_
