#include "crawler/cli/flag_parser.h"

#include <algorithm>
#include <string>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace sieve {
namespace {

bool IsAllowed(std::span<const std::string_view> allowed,
               std::string_view name) {
  return std::find(allowed.begin(), allowed.end(), name) != allowed.end();
}

absl::CommandLineFlag* FindFlag(std::string_view dashed) {
  return absl::FindCommandLineFlag(
      absl::StrReplaceAll(std::string(dashed), {{"-", "_"}}));
}

}  // namespace

absl::StatusOr<ParsedArgs> ParseFlags(
    std::span<const std::string_view> args,
    std::span<const std::string_view> allowed) {
  ParsedArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg == "--") {
      for (++i; i < args.size(); ++i) parsed.positional.emplace_back(args[i]);
      break;
    }
    if (arg == "-h" || arg == "--help" || arg == "-help") {
      parsed.help = true;
      continue;
    }
    if (!arg.starts_with("-") || arg == "-") {
      parsed.positional.emplace_back(arg);
      continue;
    }
    std::string_view body = arg.substr(arg.starts_with("--") ? 2 : 1);
    std::string name(body.substr(0, body.find('=')));
    std::replace(name.begin(), name.end(), '_', '-');
    bool has_value = body.find('=') != std::string_view::npos;
    std::string value(has_value ? body.substr(body.find('=') + 1) : "");

    absl::CommandLineFlag* flag =
        IsAllowed(allowed, name) ? FindFlag(name) : nullptr;
    if (flag == nullptr && !has_value && name.starts_with("no")) {
      // --nofoo for a boolean --foo.
      std::string positive = name.substr(2);
      absl::CommandLineFlag* negated =
          IsAllowed(allowed, positive) ? FindFlag(positive) : nullptr;
      if (negated != nullptr && negated->IsOfType<bool>()) {
        flag = negated;
        name = positive;
        value = "false";
        has_value = true;
      }
    }
    if (flag == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    }
    if (!has_value) {
      if (flag->IsOfType<bool>()) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = std::string(args[++i]);
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("flag --", name, " needs a value"));
      }
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid value '", value, "' for --", name, ": ", error));
    }
    parsed.specified.insert(name);
  }
  return parsed;
}

}  // namespace sieve
