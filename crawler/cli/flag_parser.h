// crawler/cli/flag_parser.h: parses one subcommand's arguments against the
// flags it declares.
//
// A command's flags come from its settings table (crawler/config/config_keys.h
// for `sieve crawl`, study/study_flags.h for `sieve study`), so a flag is
// declared once: its name, value type, help and default all come from there.
// This parser only splits the words; values stay text, and the table's own
// parser turns them into typed settings with their bounds, so a bad value is
// reported with the flag's name (exit 2 from the CLI).
//
// Accepted forms:
//   --name=value, --name value (-name works too)
//   --name, --noname (booleans; also --name=true|false|1|0|yes|no)
//   -- (ends flags; the rest is positional)
//   -h, --help (sets `help`)
//   a flag declared `repeatable` may be given many times; each value is kept
//   in order (ParsedArgs::GetAll)
// Names may use '-' or '_' ("--max-pages" == "--max_pages").
//
// Example:
//   std::vector<sieve::FlagSpec> flags = {{.name = "out", .value_name = "DIR"}};
//   absl::StatusOr<sieve::ParsedArgs> args = sieve::ParseFlags(words, flags);
//   if (args.ok() && args->Has("out")) dir = args->Get("out");
#ifndef SIEVE_CRAWLER_CLI_FLAG_PARSER_H_
#define SIEVE_CRAWLER_CLI_FLAG_PARSER_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"

namespace sieve {

// One flag a command accepts.
struct FlagSpec {
  // Dashed name without the leading dashes ("max-pages").
  std::string name;
  // What the value looks like in help ("INT", "DIR", "host|domain|any"); empty
  // for a boolean flag, which takes no value.
  std::string value_name;
  // One line.
  std::string help;
  // The default as help shows it, or empty for none.
  std::string default_text = {};
  // The config key the flag overrides ("crawl.max_pages"), or empty.
  std::string config_path = {};
  // May be given many times (--header A --header B); every value is kept.
  bool repeatable = false;
};

struct ParsedArgs {
  std::vector<std::string> positional;
  // The flags given, by dashed name ("max-pages"), with their text; booleans
  // hold "true" or "false". A flag given twice keeps its last value.
  absl::flat_hash_map<std::string, std::string> values;
  // Every value of each repeatable flag given, in command-line order.
  absl::flat_hash_map<std::string, std::vector<std::string>> lists;
  bool help = false;

  bool Has(std::string_view name) const;
  // The text given for `name`, or `fallback` when it was not given.
  std::string Get(std::string_view name, std::string fallback = "") const;
  // Every value given for the repeatable flag `name` (none when absent).
  std::vector<std::string> GetAll(std::string_view name) const;
};

// Parses `args` (the words after the subcommand) against `flags`; any other
// flag is an error ("unknown flag --x"), as is a missing value ("flag --x
// needs a value") or a boolean given something else than true/false.
// Cost: O(words x flags).
absl::StatusOr<ParsedArgs> ParseFlags(std::span<const std::string_view> args,
                                      std::span<const FlagSpec> flags);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CLI_FLAG_PARSER_H_
