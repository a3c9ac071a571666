// crawler/cli/frontier_command.h: `sieve frontier serve`, the frontier as a
// URLFrontier gRPC service (docs/urlfrontier.md). Its flags are the
// [frontier_server] rows of the settings table (config_keys.h), with
// sieve.expected_urls, sieve.fp_rate and log.level.
//
// Example:
//   sieve frontier serve --listen 127.0.0.1:7071 --data /var/lib/frontier
#ifndef SIEVE_CRAWLER_CLI_FRONTIER_COMMAND_H_
#define SIEVE_CRAWLER_CLI_FRONTIER_COMMAND_H_

#include <vector>

#include "crawler/cli/flag_parser.h"

namespace sieve {

std::vector<FlagSpec> FrontierFlags();

// Serves until SIGINT or SIGTERM, then stops cleanly (calls in progress get
// a few seconds). Prints "listening on HOST:PORT" on stdout once serving.
// Exit code 0, 1 (the store or the address failed) or 2 (bad usage).
int RunFrontierCommand(const ParsedArgs& args);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CLI_FRONTIER_COMMAND_H_
