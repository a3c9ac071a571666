// crawler/crawl/crawl_command.h: `sieve crawl`: settings, seeds, signals, the
// demo site, and the crawl loop (crawler/crawl/crawler.h).
#ifndef SIEVE_CRAWLER_CRAWL_CRAWL_COMMAND_H_
#define SIEVE_CRAWLER_CRAWL_CRAWL_COMMAND_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/cli/flag_parser.h"
#include "crawler/config/crawl_config.h"

namespace sieve {

// The flags `sieve crawl` accepts: --config, --resume and --demo, then one
// for each row of the settings table (config_keys.h) that names a flag, with
// its value type, help, default and config key from there.
std::vector<FlagSpec> CrawlFlags();

// The crawl's settings: built-in defaults, then the --config file, then the
// flags in `args`.
absl::StatusOr<CrawlConfig> LoadCrawlConfig(const ParsedArgs& args);

// The same on top of `base` (the demo's settings, or a resumed crawl's saved
// config.toml).
absl::StatusOr<CrawlConfig> LoadCrawlConfigOver(CrawlConfig base,
                                                const ParsedArgs& args);

// `config` as a TOML file with every key (what a crawl saves as
// OUT/config.toml, so --resume continues with the same settings).
std::string ConfigToToml(const CrawlConfig& config);

// The text of config/demo.toml, compiled in.
std::string_view DemoConfigToml();

// Runs `sieve crawl`; returns the exit code (0 done or stopped cleanly, 1
// failed, 2 bad usage).
int RunCrawlCommand(const ParsedArgs& args);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CRAWL_CRAWL_COMMAND_H_
