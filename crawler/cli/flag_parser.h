// crawler/cli/flag_parser.h: parses one subcommand's arguments against the
// Abseil flags it accepts.
//
// Abseil's own ParseCommandLine knows nothing of subcommands, exits 1 on --help
// and exits on the first bad flag. This parser looks each flag up with
// absl::FindCommandLineFlag, sets it with CommandLineFlag::ParseFrom (Abseil's
// own value parsing and messages), and returns errors as values, so the CLI can
// print one line and exit 2.
//
// Accepted forms: --name=value, --name value, --name (booleans), --noname
// (booleans), -- (ends flags). Names may use '-' or '_' ("--max-pages" ==
// "--max_pages"). -h and --help set `help`.
#ifndef SIEVE_CRAWLER_CLI_FLAG_PARSER_H_
#define SIEVE_CRAWLER_CLI_FLAG_PARSER_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"

namespace sieve {

struct ParsedArgs {
  std::vector<std::string> positional;
  // Flags given on the command line, by their dashed name ("max-pages").
  absl::flat_hash_set<std::string> specified;
  bool help = false;
};

// Parses `args` (the words after the subcommand). `allowed` lists the dashed
// names of the flags this subcommand takes; any other flag is an error. Sets
// the Abseil flags as a side effect.
absl::StatusOr<ParsedArgs> ParseFlags(
    std::span<const std::string_view> args,
    std::span<const std::string_view> allowed);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CLI_FLAG_PARSER_H_
