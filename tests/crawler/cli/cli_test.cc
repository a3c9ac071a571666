// `sieve`'s command line as a user meets it: help exits 0, usage errors exit 2
// with one clear line.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "crawler/config/config_keys.h"
#include "crawler/config/config_loader.h"
#include "crawler/config/config_options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "study/study_flags.h"
#include "tests/common/files.h"
#include "tests/common/temp_dir.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct SieveRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr together.
};

SieveRun RunSieve(const std::string& args) {
  std::string command = std::string(SIEVE_BINARY) + " " + args + " 2>&1";
  SieveRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    run.output.append(buffer.data(), n);
  int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// Writes `text` to DIR/name; its path.
std::string WriteConfig(const sieve::test::ScopedTempDir& dir,
                        const std::string& name, const std::string& text) {
  EXPECT_TRUE(sieve::test::WriteFile(dir / name, text));
  return (dir / name).string();
}

// One command line and what the user sees: the exit code, then the whole
// output when `output` is set, else the pieces it must and must not hold.
struct CliCase {
  const char* name;
  const char* args;
  int exit_code;
  const char* output = nullptr;
  std::vector<const char*> holds = {};
  std::vector<const char*> lacks = {};
};

const CliCase kCliCases[] = {
    {.name = "HelpListsTheCommandsAndExitsZero",
     .args = "--help",
     .exit_code = 0,
     .holds = {"crawl", "study", "version"}},
    {.name = "VersionPrintsTheVersion",
     .args = "version",
     .exit_code = 0,
     .holds = {"sieve "}},
    {.name = "FrontierWithoutServeExitsTwo",
     .args = "frontier",
     .exit_code = 2,
     .holds = {"expected 'serve'"}},
    {.name = "AScopeFlagOutsideTheEnumListsTheModesAndExitsTwo",
     .args = "crawl --seeds=x --scope=planet",
     .exit_code = 2,
     .output = "sieve crawl: --scope: must be one of host, domain, any; got "
               "\"planet\"\n"},
    {.name = "AnHtmlParserFlagOutsideTheEnumListsTheParsersAndExitsTwo",
     .args = "crawl --seeds=x --html-parser=lexbor",
     .exit_code = 2,
     .output = "sieve crawl: --html-parser: must be one of tokenizer, gumbo; "
               "got \"lexbor\"\n"},
    {.name = "UnknownFlagIsOneLineAndExitsTwo",
     .args = "crawl --no-such-flag",
     .exit_code = 2,
     .output = "sieve crawl: unknown flag --no-such-flag (try 'sieve help "
               "crawl')\n"},
    {.name = "FlagOfAnotherCommandIsUnknown",
     .args = "version --max-pages=3",
     .exit_code = 2,
     .holds = {"unknown flag --max-pages"}},
    {.name = "BadFlagValueNamesTheFlagAndExitsTwo",
     .args = "crawl --max-pages=many",
     .exit_code = 2,
     .holds = {"--max-pages", "'many'"}},
    {.name = "OutOfRangeFlagValueExitsTwo",
     .args = "crawl --seeds=x --concurrency=0",
     .exit_code = 2,
     .holds = {"--concurrency: must be >= 1, got 0"}},
    {.name = "UnknownCommandExitsTwo",
     .args = "crawlx",
     .exit_code = 2,
     .output = "sieve: unknown command 'crawlx' (try 'sieve --help')\n"},
    {.name = "NoCommandPrintsUsageAndExitsTwo",
     .args = "",
     .exit_code = 2,
     .holds = {"Usage: sieve COMMAND"}},
    {.name = "MissingConfigFileExitsTwo",
     .args = "crawl --seeds=x --config=/nonexistent/sieve.toml",
     .exit_code = 2,
     .holds = {"/nonexistent/sieve.toml: cannot open config file"}},
    {.name = "BadLogLevelExitsTwo",
     .args = "crawl --seeds=x --log-level=loud",
     .exit_code = 2,
     .holds = {"--log-level: must be one of trace, debug"},
     .lacks = {"Segmentation"}},
    {.name = "StudyRejectsABadMaxNAndExitsTwo",
     .args = "study --max-n=lots",
     .exit_code = 2,
     .holds = {"sieve study: ", "lots"}},
    {.name = "SetOfAnUnknownKeyNamesItAndExitsTwo",
     .args = "crawl http://127.0.0.1:9/ --set crawl.nope=1",
     .exit_code = 2,
     .holds = {"unknown key 'crawl.nope'"}},
    {.name = "SetOfABadValueNamesTheKeyAndExitsTwo",
     .args = "crawl http://127.0.0.1:9/ --set crawl.max_pages=many",
     .exit_code = 2,
     .holds = {"--set crawl.max_pages: expected an integer"}},
};

class CliCaseTest : public ::testing::TestWithParam<CliCase> {};

TEST_P(CliCaseTest, ExitsAndSaysWhatItShould) {
  const CliCase& c = GetParam();
  const SieveRun run = RunSieve(c.args);
  EXPECT_EQ(run.exit_code, c.exit_code) << run.output;
  if (c.output != nullptr) {
    EXPECT_EQ(run.output, c.output);
  }
  for (const char* piece : c.holds) EXPECT_THAT(run.output, HasSubstr(piece));
  for (const char* piece : c.lacks)
    EXPECT_THAT(run.output, Not(HasSubstr(piece)));
}

INSTANTIATE_TEST_SUITE_P(CommandLines, CliCaseTest,
                         ::testing::ValuesIn(kCliCases),
                         [](const ::testing::TestParamInfo<CliCase>& param) {
                           return std::string(param.param.name);
                         });

TEST(CliTest, HelpCrawlDescribesEveryCrawlFlagAndExitsZero) {
  SieveRun run = RunSieve("help crawl");
  EXPECT_EQ(run.exit_code, 0);
  for (const char* flag :
       {"--seeds", "--config", "--out", "--resume", "--demo", "--scope",
        "--max-pages", "--max-depth", "--delay", "--per-host-connections",
        "--concurrency", "--user-agent", "--expected-urls", "--fp-rate",
        "--log-level"}) {
    EXPECT_THAT(run.output, HasSubstr(flag));
  }
}

// The help is generated from the settings table: each flag bound to a config
// key shows its type, the table's default and the key.
TEST(CliTest, HelpCrawlListsEveryTableFlagWithItsDefault) {
  SieveRun run = RunSieve("help crawl");
  ASSERT_EQ(run.exit_code, 0);
  const sieve::CrawlConfig defaults;
  int flags = 0;
  for (const sieve::ConfigKey& key : sieve::ConfigKeys()) {
    // The server's settings are `sieve frontier serve`'s (next test).
    if (key.flag.empty() || key.path.starts_with("frontier_server.")) continue;
    ++flags;
    const std::string value = sieve::ConfigValueName(key);
    EXPECT_THAT(run.output,
                HasSubstr(absl::StrCat("--", std::string(key.flag),
                                       value.empty() ? "" : "=", value)));
    // A flag that negates its key (--insecure) is off by default when the
    // key is on.
    std::string default_text = sieve::FormatConfigValue(key, defaults);
    if (key.flag_negates)
      default_text = default_text == "true" ? "false" : "true";
    EXPECT_THAT(run.output,
                HasSubstr(absl::StrCat(std::string(key.help), " (default ",
                                       default_text, "; config ",
                                       std::string(key.path), ")")));
  }
  EXPECT_GE(flags, 14);
}

TEST(CliTest, HelpFrontierListsTheServerFlagsAndCrawlDoesNot) {
  SieveRun frontier = RunSieve("help frontier");
  ASSERT_EQ(frontier.exit_code, 0);
  SieveRun crawl = RunSieve("help crawl");
  ASSERT_EQ(crawl.exit_code, 0);
  const sieve::CrawlConfig defaults;
  for (const sieve::ConfigKey& key : sieve::ConfigKeys()) {
    if (!key.path.starts_with("frontier_server.")) continue;
    EXPECT_THAT(frontier.output, HasSubstr(absl::StrCat(
                                     std::string(key.help), " (default ",
                                     sieve::FormatConfigValue(key, defaults),
                                     "; config ", std::string(key.path), ")")));
    EXPECT_THAT(crawl.output,
                Not(HasSubstr(absl::StrCat("--", std::string(key.flag)))));
  }
}

TEST(CliTest, HelpStudyListsEveryStudyFlagWithItsDefault) {
  SieveRun run = RunSieve("help study");
  ASSERT_EQ(run.exit_code, 0);
  const sieve::study::StudyFlags defaults;
  for (const sieve::study::StudySetting& s : sieve::study::StudySettings()) {
    EXPECT_THAT(run.output,
                HasSubstr(absl::StrCat("--", std::string(s.flag), "=",
                                       std::string(s.value_name))));
    EXPECT_THAT(run.output,
                HasSubstr(absl::StrCat(std::string(s.help), " (default ",
                                       s.format(defaults), ")")));
  }
}

TEST(CliTest, CommandHelpFlagEqualsHelpCommand) {
  SieveRun run = RunSieve("crawl --help");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.output, RunSieve("help crawl").output);
}

TEST(CliTest, BadConfigFileNamesFileKeyAndProblemAndExitsTwo) {
  const sieve::test::ScopedTempDir dir;
  std::string path =
      WriteConfig(dir, "bad.toml", "[fetch]\nconcurrency = \"lots\"\n");
  SieveRun run = RunSieve("crawl --seeds=x --config=" + path);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(
      run.output,
      "sieve crawl: " + path +
          ": key 'fetch.concurrency': expected an integer, got a string\n");
}

TEST(CliTest, ConfigSyntaxErrorNamesFileAndLine) {
  const sieve::test::ScopedTempDir dir;
  std::string path =
      WriteConfig(dir, "syntax.toml", "[crawl]\nmax_pages = = 3\n");
  SieveRun run = RunSieve("crawl --seeds=x --config=" + path);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr(path + ":2:"));
  EXPECT_THAT(run.output, HasSubstr("TOML syntax error"));
}

TEST(CliTest, HelpStudyListsTheStudyFlags) {
  SieveRun run = RunSieve("help study");
  EXPECT_EQ(run.exit_code, 0);
  for (const char* flag :
       {"--max-n", "--fp-rates", "--kinds", "--memory-cap", "--out"}) {
    EXPECT_THAT(run.output, HasSubstr(flag));
  }
}

// `sieve help crawl` lists every key of the settings table, flag or not.
TEST(CliTest, HelpCrawlListsEverySettingsKey) {
  SieveRun run = RunSieve("help crawl");
  ASSERT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.output, HasSubstr("--set=SECTION.KEY=VALUE"));
  for (const sieve::ConfigKey& key : sieve::ConfigKeys()) {
    EXPECT_THAT(run.output,
                HasSubstr(absl::StrCat("  ", std::string(key.path), "=")))
        << key.path;
  }
}

// Each key's line names the library option it sets, from the one table
// (crawler/config/config_options.h): `fetch.timeout` -> total_timeout.
TEST(CliTest, HelpCrawlNamesTheOptionEachKeySets) {
  SieveRun run = RunSieve("help crawl");
  ASSERT_EQ(run.exit_code, 0);
  for (const sieve::ConfigOption& row : sieve::ConfigOptions()) {
    const size_t at =
        run.output.find(absl::StrCat("  ", std::string(row.key), "="));
    ASSERT_NE(at, std::string::npos) << row.key;
    const std::string line =
        run.output.substr(at, run.output.find('\n', at) - at);
    EXPECT_THAT(line, HasSubstr(absl::StrCat("; option ",
                                             std::string(row.option), ")")));
  }
  EXPECT_THAT(run.output, HasSubstr("option FetchOptions::total_timeout)"));
}

// 'text' quoted for sh.
std::string ShellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// The text of a value other than the default for `key`, within its bounds.
std::string OtherValue(const sieve::ConfigKey& key) {
  const sieve::CrawlConfig defaults;
  const std::string text = sieve::FormatConfigValue(key, defaults);
  struct Picker {
    const sieve::ConfigKey& key;
    const std::string& text;
    std::string operator()(bool& (*)(sieve::CrawlConfig&)) const {
      return text == "true" ? "false" : "true";
    }
    std::string operator()(int64_t& (*get)(sieve::CrawlConfig&)) const {
      sieve::CrawlConfig c;
      const int64_t v = get(c);
      return absl::StrCat(static_cast<double>(v + 1) <= key.max ? v + 1
                                                                : v - 1);
    }
    std::string operator()(double& (*get)(sieve::CrawlConfig&)) const {
      sieve::CrawlConfig c;
      const double v = get(c);
      // All 17 digits: six (absl::StrCat) would round 2592001 to 2.592e+06.
      return absl::StrFormat("%.17g",
                             v + 1 <= key.max ? v + 1 : (v + key.min) / 2);
    }
    std::string operator()(std::string& (*)(sieve::CrawlConfig&)) const {
      if (key.choices.empty()) return "other-value";
      for (absl::string_view choice :
           absl::StrSplit(std::string(key.choices), '|')) {
        if (absl::StrCat("\"", choice, "\"") != text)
          return std::string(choice);
      }
      return "";
    }
    std::string operator()(
        std::vector<std::string>& (*)(sieve::CrawlConfig&)) const {
      return "item, with a comma";
    }
    std::string operator()(const sieve::EnumField& field) const {
      for (const std::string& name : field.names()) {
        if (absl::StrCat("\"", name, "\"") != text) return name;
      }
      return "";
    }
  };
  return std::visit(Picker{key, text}, key.field);
}

// What `sieve crawl ARGS --print-config` resolves to, read back.
sieve::CrawlConfig PrintedConfig(const std::string& args) {
  SieveRun run = RunSieve(absl::StrCat("crawl ", args, " --print-config"));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  sieve::CrawlConfig printed;
  const absl::Status read =
      sieve::ApplyConfigToml(run.output, "--print-config", printed);
  EXPECT_TRUE(read.ok()) << read << "\n" << run.output;
  return printed;
}

// Every key of the settings table is settable on the command line: a test
// walks the table, gives each key a value other than its default with --set,
// and reads back what the command line resolved to.
TEST(CliTest, EverySettingsKeyCanBeSetWithSet) {
  std::string args;
  for (const sieve::ConfigKey& key : sieve::ConfigKeys()) {
    absl::StrAppend(
        &args, " --set ",
        ShellQuote(absl::StrCat(std::string(key.path), "=", OtherValue(key))));
  }
  const sieve::CrawlConfig printed = PrintedConfig(args);
  const sieve::CrawlConfig defaults;
  for (const sieve::ConfigKey& key : sieve::ConfigKeys()) {
    const std::string got = sieve::FormatConfigValue(key, printed);
    EXPECT_NE(got, sieve::FormatConfigValue(key, defaults)) << key.path;
    if (std::holds_alternative<
            std::vector<std::string>& (*)(sieve::CrawlConfig&)>(key.field)) {
      EXPECT_EQ(got, "[\"item, with a comma\"]") << key.path;  // Not split.
    } else if (std::holds_alternative<std::string& (*)(sieve::CrawlConfig&)>(
                   key.field) ||
               std::holds_alternative<sieve::EnumField>(key.field)) {
      EXPECT_EQ(got, absl::StrCat("\"", OtherValue(key), "\"")) << key.path;
    }
  }
}

// ... and every key with a flag is set by its flag; a list key's flag is
// repeatable, one item each.
TEST(CliTest, EveryFlagSetsItsKey) {
  std::string args;
  for (const sieve::ConfigKey& key : sieve::ConfigKeys()) {
    if (key.flag.empty() || key.path.starts_with("frontier_server.")) continue;
    std::string value = OtherValue(key);
    // --insecure=true sets fetch.verify_tls = false.
    if (key.flag_negates) value = value == "true" ? "false" : "true";
    absl::StrAppend(
        &args, " ",
        ShellQuote(absl::StrCat("--", std::string(key.flag), "=", value)));
    if (std::holds_alternative<
            std::vector<std::string>& (*)(sieve::CrawlConfig&)>(key.field)) {
      absl::StrAppend(&args, " --", std::string(key.flag), " second");
    }
  }
  const sieve::CrawlConfig printed = PrintedConfig(args);
  const sieve::CrawlConfig defaults;
  for (const sieve::ConfigKey& key : sieve::ConfigKeys()) {
    if (key.flag.empty() || key.path.starts_with("frontier_server.")) continue;
    EXPECT_NE(sieve::FormatConfigValue(key, printed),
              sieve::FormatConfigValue(key, defaults))
        << key.path;
  }
  EXPECT_EQ(printed.fetch.headers,
            (std::vector<std::string>{"item, with a comma", "second"}));
}

// The browser pool's and the render's options are keys (docs/crawling.md,
// Rendering): the sandbox stays on unless render.no_sandbox = true, and
// images, fonts, media and methods other than GET and HEAD are refused.
TEST(CliTest, RenderKeysReachTheHelpAndTheConfigWithTheirDefaults) {
  SieveRun help = RunSieve("help crawl");
  SieveRun config = RunSieve("crawl --print-config");
  ASSERT_EQ(config.exit_code, 0) << config.output;
  for (const char* key :
       {"render.pages_per_browser", "render.max_browser_mb",
        "render.no_sandbox", "render.methods", "render.resource_types"}) {
    EXPECT_THAT(help.output, HasSubstr(key));
  }
  for (const char* line :
       {"\npages_per_browser = 500\n", "\nmax_browser_mb = 1024\n",
        "\nno_sandbox = false\n", "\nmethods = [ 'GET', 'HEAD' ]\n",
        "\nresource_types = [ 'Document', 'Script', 'Stylesheet', 'XHR', "
        "'Fetch' ]\n"}) {
    EXPECT_THAT(config.output, HasSubstr(line));
  }
  const sieve::CrawlConfig printed = PrintedConfig(
      "--set render.no_sandbox=true --set render.pages_per_browser=7");
  EXPECT_TRUE(printed.render.no_sandbox);
  EXPECT_EQ(printed.render.pages_per_browser, 7);
}

TEST(CliTest, ABadProxyExitsTwo) {
  const sieve::test::ScopedTempDir dir;
  SieveRun run =
      RunSieve(absl::StrCat("crawl http://127.0.0.1:9/ --proxy ftp://x --out ",
                            ShellQuote((dir / "out").string())));
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("proxy"));
}

}  // namespace
