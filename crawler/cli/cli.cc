#include "crawler/cli/cli.h"

#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crawler/cli/commands.h"
#include "crawler/version.h"

namespace sieve {
namespace {

constexpr int kExitUsage = 2;

const Command* FindCommand(std::string_view name) {
  for (const Command& command : Commands()) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

void PrintOverview(std::ostream& out) {
  out << "sieve " << kSieveVersion
      << ": a web crawler whose to-visit queue is a FIFO guarded by a Bloom "
         "filter.\n\n"
         "Usage: sieve COMMAND [flags]\n\nCommands:\n";
  for (const Command& command : Commands()) {
    out << "  " << command.name << std::string(10 - command.name.size(), ' ')
        << command.summary << "\n";
  }
  out << "  help      show a command's flags: sieve help COMMAND\n\n"
         "Run 'sieve help COMMAND' for a command's flags.\n";
}

// "  --max-pages=INT   stop after ... (default 0; config crawl.max_pages)"
std::string FlagLine(const FlagSpec& flag) {
  std::string help = flag.help;
  if (!flag.default_text.empty() || !flag.config_path.empty()) {
    absl::StrAppend(&help, " (default ", flag.default_text,
                    flag.config_path.empty() ? "" : "; config ",
                    flag.config_path, ")");
  }
  std::string left = absl::StrCat(
      "  --", flag.name, flag.value_name.empty() ? "" : "=", flag.value_name);
  if (left.size() < 30) left.resize(30, ' ');
  return absl::StrCat(left, " ", help);
}

void PrintCommandHelp(const Command& command, std::ostream& out) {
  out << "sieve " << command.name << ": " << command.summary
      << "\n\nUsage: " << command.usage << "\n\n"
      << command.details << "\n";
  const std::vector<FlagSpec> flags = command.flags();
  if (!flags.empty()) {
    out << "\nFlags:\n";
    for (const FlagSpec& flag : flags) out << FlagLine(flag) << "\n";
    out << FlagLine({.name = "help", .value_name = "", .help = "this text"})
        << "\n";
  }
  if (command.more_help != nullptr) out << "\n" << command.more_help();
}

// Prints "<who>: <message>" as one line on stderr; returns the usage exit code.
int UsageError(std::string_view who, std::string_view message) {
  std::cerr << who << ": " << message << "\n";
  return kExitUsage;
}

}  // namespace

int RunCli(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty()) {
    PrintOverview(std::cerr);
    return kExitUsage;
  }
  std::string_view first = args[0];
  if (first == "--help" || first == "-h" || first == "-help") {
    PrintOverview(std::cout);
    return 0;
  }
  if (first == "--version") return FindCommand("version")->run(ParsedArgs{});
  if (first == "help") {
    if (args.size() == 1) {
      PrintOverview(std::cout);
      return 0;
    }
    const Command* command = FindCommand(args[1]);
    if (command == nullptr) {
      return UsageError("sieve",
                        absl::StrCat("unknown command '", std::string(args[1]),
                                     "' (try 'sieve --help')"));
    }
    PrintCommandHelp(*command, std::cout);
    return 0;
  }
  if (first.starts_with("-")) {
    return UsageError(
        "sieve", absl::StrCat("unknown flag ", std::string(first),
                              " (a command comes first; try 'sieve --help')"));
  }
  const Command* command = FindCommand(first);
  if (command == nullptr) {
    return UsageError("sieve",
                      absl::StrCat("unknown command '", std::string(first),
                                   "' (try 'sieve --help')"));
  }
  const std::vector<FlagSpec> flags = command->flags();
  absl::StatusOr<ParsedArgs> parsed =
      ParseFlags(std::span(args).subspan(1), flags);
  if (!parsed.ok()) {
    std::string name(command->name);
    return UsageError(absl::StrCat("sieve ", name),
                      absl::StrCat(parsed.status().message(),
                                   " (try 'sieve help ", name, "')"));
  }
  if (parsed->help) {
    PrintCommandHelp(*command, std::cout);
    return 0;
  }
  return command->run(*parsed);
}

}  // namespace sieve
