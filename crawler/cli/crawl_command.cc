// crawler/cli/crawl_command.cc: `sieve crawl`'s flags, its settings (config
// file, --set, flags) and their help, the settings saved for --resume, and
// the exit codes. Running the command is crawl_run.cc's.
#include "crawler/cli/crawl_command.h"

#include <sstream>
#include <string>
#include <type_traits>
#include <variant>

#include "absl/strings/str_cat.h"
#include "crawler/config/config_keys.h"
#include "crawler/config/config_loader.h"
#include "crawler/config/config_options.h"
#include "crawler/config/crawl_options.h"
#include "crawler/loop/crawler.h"
#include "toml++/toml.h"

namespace sieve {

std::vector<FlagSpec> CrawlFlags() {
  std::vector<FlagSpec> flags = {
      {.name = "config",
       .value_name = "FILE",
       .help = "TOML config file; flags override it"},
      {.name = "resume",
       .value_name = "DIR",
       .help = "continue the crawl whose output directory is DIR"},
      {.name = "demo",
       .value_name = "",
       .help = "crawl the built-in demo site on 127.0.0.1"},
      {.name = "set",
       .value_name = "SECTION.KEY=VALUE",
       .help = "set any setting listed below (repeatable; a list key takes "
               "one item per --set)",
       .repeatable = true},
      {.name = "print-config",
       .value_name = "",
       .help = "print the settings this command line resolves to (TOML) and "
               "exit"},
  };
  const CrawlConfig defaults;
  for (const ConfigKey& key : ConfigKeys()) {
    // The server's settings are `sieve frontier serve`'s flags.
    if (key.flag.empty() || (key.commands & kCrawlCommand) == 0) continue;
    std::string default_text = FormatConfigValue(key, defaults);
    if (key.flag_negates)
      default_text = default_text == "true" ? "false" : "true";
    flags.push_back(
        {.name = std::string(key.flag),
         .value_name = ConfigValueName(key),
         .help = std::string(key.help),
         .default_text = std::move(default_text),
         .config_path = std::string(key.path),
         // A list key's flag gives one item each time (--header A --header B).
         .repeatable = std::holds_alternative<
             std::vector<std::string>& (*)(CrawlConfig&)>(key.field)});
  }
  return flags;
}

absl::StatusOr<CrawlConfig> LoadCrawlConfigOver(CrawlConfig config,
                                                const ParsedArgs& args) {
  if (args.Has("config")) {
    if (absl::Status s = ApplyConfigFile(args.Get("config"), config); !s.ok())
      return s;
  }
  // --set first, then the named flags (the more specific spelling wins).
  if (absl::Status s = ApplySetOverrides(args.GetAll("set"), config); !s.ok())
    return s;
  if (absl::Status s = ApplyFlagOverrides(args.values, config, args.lists);
      !s.ok())
    return s;
  return config;
}

std::string CrawlSettingsHelp() {
  std::string text =
      "Settings (every key of config/default.toml; --set SECTION.KEY=VALUE "
      "or the flag shown):\n";
  const CrawlConfig defaults;
  for (const ConfigKey& key : ConfigKeys()) {
    const std::string value = ConfigValueName(key);
    absl::StrAppend(&text, "  ", std::string(key.path), "=",
                    value.empty() ? "BOOL" : value, "  ", std::string(key.help),
                    " (default ", FormatConfigValue(key, defaults));
    // The server's keys have flags of `sieve frontier serve`, not of crawl.
    if (!key.flag.empty() && (key.commands & kCrawlCommand) != 0)
      absl::StrAppend(&text, "; flag --", std::string(key.flag));
    // The library option it sets (config_options.h), to grep from.
    if (const ConfigOption* option = FindConfigOption(key.path))
      absl::StrAppend(&text, "; option ", std::string(option->option));
    absl::StrAppend(&text, ")\n");
  }
  return text;
}

absl::StatusOr<CrawlConfig> LoadCrawlConfig(const ParsedArgs& args) {
  return LoadCrawlConfigOver(CrawlConfig{}, args);
}

std::string ConfigToToml(const CrawlConfig& config) {
  // toml++ writes the values, so quotes, backslashes and control characters
  // in patterns and the user agent are escaped as TOML requires.
  CrawlConfig& c = const_cast<CrawlConfig&>(config);  // Shared accessors.
  toml::table root;
  for (const ConfigKey& key : ConfigKeys()) {
    const std::string_view path = key.path;
    const size_t dot = path.find('.');
    const std::string section(path.substr(0, dot));
    const std::string name(path.substr(dot + 1));
    if (!root.contains(section)) root.insert(section, toml::table{});
    toml::table& table = *root[section].as_table();
    std::visit(
        [&](const auto& field) {
          using Field = std::decay_t<decltype(field)>;
          if constexpr (std::is_same_v<Field, EnumField>) {
            table.insert(name, field.get(c));
          } else if constexpr (std::is_same_v<
                                   Field,
                                   std::vector<
                                       std::string>& (*)(CrawlConfig&)>) {
            toml::array list;
            for (const std::string& item : field(c)) list.push_back(item);
            table.insert(name, std::move(list));
          } else {
            table.insert(name, field(c));
          }
        },
        key.field);
  }
  std::ostringstream out;
  out << "# Settings of this crawl, read again by sieve crawl --resume.\n\n"
      << root << "\n";
  return out.str();
}

int CrawlExitCode(StopReason reason) {
  switch (reason) {
    case StopReason::kFinished:
    case StopReason::kMaxPages:
      return kCrawlExitOk;
    case StopReason::kMaxRunTime:
    case StopReason::kInterrupted:
    case StopReason::kCapacity:
      return kCrawlExitStopped;
  }
  return kCrawlExitStopped;
}

}  // namespace sieve
