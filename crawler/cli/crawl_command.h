// crawler/cli/crawl_command.h: `sieve crawl`: settings, seeds, signals, the
// demo site, and the crawl loop (crawler/loop/crawler.h).
#ifndef SIEVE_CRAWLER_CLI_CRAWL_COMMAND_H_
#define SIEVE_CRAWLER_CLI_CRAWL_COMMAND_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/cli/flag_parser.h"
#include "crawler/config/crawl_config.h"
#include "crawler/loop/crawler.h"

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

// `sieve crawl`'s exit codes (docs/crawling.md, "Exit codes"). A second
// SIGINT/SIGTERM ends the process at once with 128 + the signal (130 for
// Ctrl-C).
inline constexpr int kCrawlExitOk = 0;       // Finished, or --max-pages.
inline constexpr int kCrawlExitFailure = 1;  // Output or checkpoint failed.
inline constexpr int kCrawlExitUsage = 2;    // Bad flags, config or seeds.
// Stopped with work left, resumable: SIGINT/SIGTERM, --max-run-time, or
// sieve.on_capacity = stop.
inline constexpr int kCrawlExitStopped = 3;

// The exit code of a run that ended for `reason`.
int CrawlExitCode(StopReason reason);

// Runs `sieve crawl`; returns the exit code (above).
int RunCrawlCommand(const ParsedArgs& args);

// `sieve help crawl`'s list of every settings-table key: path, value type,
// help, default and flag.
std::string CrawlSettingsHelp();

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CLI_CRAWL_COMMAND_H_
