// crawler/crawl/crawl_command.h: `sieve crawl`.
#ifndef SIEVE_CRAWLER_CRAWL_CRAWL_COMMAND_H_
#define SIEVE_CRAWLER_CRAWL_CRAWL_COMMAND_H_

#include "absl/status/statusor.h"
#include "crawler/cli/flag_parser.h"
#include "crawler/config/crawl_config.h"

namespace sieve {

// The crawl's settings: built-in defaults, then the --config file, then the
// flags in `args`.
absl::StatusOr<CrawlConfig> LoadCrawlConfig(const ParsedArgs& args);

// Runs `sieve crawl`; returns the exit code.
int RunCrawlCommand(const ParsedArgs& args);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CRAWL_CRAWL_COMMAND_H_
