#include "crawler/cli/flag_parser.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"

namespace sieve {
namespace {

const FlagSpec* FindSpec(std::span<const FlagSpec> flags,
                         std::string_view name) {
  for (const FlagSpec& flag : flags) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

bool IsBoolean(const FlagSpec& flag) { return flag.value_name.empty(); }

}  // namespace

bool ParsedArgs::Has(std::string_view name) const {
  return values.contains(std::string(name));
}

std::string ParsedArgs::Get(std::string_view name, std::string fallback) const {
  auto it = values.find(std::string(name));
  return it == values.end() ? std::move(fallback) : it->second;
}

std::vector<std::string> ParsedArgs::GetAll(std::string_view name) const {
  auto it = lists.find(std::string(name));
  return it == lists.end() ? std::vector<std::string>{} : it->second;
}

absl::StatusOr<ParsedArgs> ParseFlags(std::span<const std::string_view> args,
                                      std::span<const FlagSpec> flags) {
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
    const size_t eq = body.find('=');
    std::string name(body.substr(0, eq));
    std::replace(name.begin(), name.end(), '_', '-');
    bool has_value = eq != std::string_view::npos;
    std::string value(has_value ? body.substr(eq + 1) : "");

    const FlagSpec* flag = FindSpec(flags, name);
    if (flag == nullptr && !has_value && name.starts_with("no")) {
      // --nofoo for a boolean --foo.
      const FlagSpec* negated = FindSpec(flags, name.substr(2));
      if (negated != nullptr && IsBoolean(*negated)) {
        flag = negated;
        value = "false";
        has_value = true;
      }
    }
    if (flag == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    }
    if (IsBoolean(*flag)) {
      if (!has_value || value == "true" || value == "1" || value == "yes") {
        value = "true";
      } else if (value == "false" || value == "0" || value == "no") {
        value = "false";
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("invalid value '", value, "' for --", flag->name,
                         ": expected true or false"));
      }
    } else if (!has_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("flag --", flag->name, " needs a value"));
      }
      value = std::string(args[++i]);
    }
    if (flag->repeatable) parsed.lists[flag->name].push_back(value);
    parsed.values[flag->name] = std::move(value);
  }
  return parsed;
}

}  // namespace sieve
