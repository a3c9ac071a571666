// crawler/cli/commands.h: the subcommands of `sieve` and the flags each
// accepts (generated from each command's settings table: ConfigKeys() for
// crawl, study::StudySettings() for study).
#ifndef SIEVE_CRAWLER_CLI_COMMANDS_H_
#define SIEVE_CRAWLER_CLI_COMMANDS_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawler/cli/flag_parser.h"

namespace sieve {

struct Command {
  std::string_view name;
  std::string_view summary;  // One line, for `sieve --help`.
  std::string_view usage;    // "sieve crawl --seeds FILE [flags]".
  std::string_view details;  // Paragraphs for `sieve help NAME`.
  // The flags it accepts, built from the command's settings table.
  std::vector<FlagSpec> (*flags)();
  // Runs the command; returns the process exit code (0 ok, 1 failure, 2 bad
  // usage).
  int (*run)(const ParsedArgs& args);
  // More help printed after the flags (crawl: every settings key), or null.
  std::string (*more_help)() = nullptr;
};

std::span<const Command> Commands();

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CLI_COMMANDS_H_
