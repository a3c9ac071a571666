// `sieve`'s command line as a user meets it: help exits 0, usage errors exit 2
// with one clear line.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "crawler/config/config_keys.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "study/study_flags.h"

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

std::string WriteTempFile(const std::string& name, const std::string& text) {
  std::filesystem::path path = std::filesystem::path(testing::TempDir()) / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(CliTest, HelpListsTheCommandsAndExitsZero) {
  SieveRun run = RunSieve("--help");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.output, HasSubstr("crawl"));
  EXPECT_THAT(run.output, HasSubstr("study"));
  EXPECT_THAT(run.output, HasSubstr("version"));
}

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

TEST(CliTest, FrontierWithoutServeExitsTwo) {
  SieveRun run = RunSieve("frontier");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("expected 'serve'"));
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

TEST(CliTest, AScopeFlagOutsideTheEnumListsTheModesAndExitsTwo) {
  SieveRun run = RunSieve("crawl --seeds=x --scope=planet");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output,
            "sieve crawl: --scope: must be one of host, domain, any; got "
            "\"planet\"\n");
}

TEST(CliTest, AnHtmlParserFlagOutsideTheEnumListsTheParsersAndExitsTwo) {
  SieveRun run = RunSieve("crawl --seeds=x --html-parser=lexbor");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output,
            "sieve crawl: --html-parser: must be one of tokenizer, gumbo; got "
            "\"lexbor\"\n");
}

TEST(CliTest, CommandHelpFlagEqualsHelpCommand) {
  SieveRun run = RunSieve("crawl --help");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.output, RunSieve("help crawl").output);
}

TEST(CliTest, UnknownFlagIsOneLineAndExitsTwo) {
  SieveRun run = RunSieve("crawl --no-such-flag");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(
      run.output,
      "sieve crawl: unknown flag --no-such-flag (try 'sieve help crawl')\n");
}

TEST(CliTest, FlagOfAnotherCommandIsUnknown) {
  SieveRun run = RunSieve("version --max-pages=3");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("unknown flag --max-pages"));
}

TEST(CliTest, BadFlagValueNamesTheFlagAndExitsTwo) {
  SieveRun run = RunSieve("crawl --max-pages=many");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("--max-pages"));
  EXPECT_THAT(run.output, HasSubstr("'many'"));
}

TEST(CliTest, OutOfRangeFlagValueExitsTwo) {
  SieveRun run = RunSieve("crawl --seeds=x --concurrency=0");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("--concurrency: must be >= 1, got 0"));
}

TEST(CliTest, UnknownCommandExitsTwo) {
  SieveRun run = RunSieve("crawlx");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output,
            "sieve: unknown command 'crawlx' (try 'sieve --help')\n");
}

TEST(CliTest, NoCommandPrintsUsageAndExitsTwo) {
  SieveRun run = RunSieve("");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("Usage: sieve COMMAND"));
}

TEST(CliTest, BadConfigFileNamesFileKeyAndProblemAndExitsTwo) {
  std::string path =
      WriteTempFile("bad.toml", "[fetch]\nconcurrency = \"lots\"\n");
  SieveRun run = RunSieve("crawl --seeds=x --config=" + path);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(
      run.output,
      "sieve crawl: " + path +
          ": key 'fetch.concurrency': expected an integer, got a string\n");
}

TEST(CliTest, ConfigSyntaxErrorNamesFileAndLine) {
  std::string path = WriteTempFile("syntax.toml", "[crawl]\nmax_pages = = 3\n");
  SieveRun run = RunSieve("crawl --seeds=x --config=" + path);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr(path + ":2:"));
  EXPECT_THAT(run.output, HasSubstr("TOML syntax error"));
}

TEST(CliTest, MissingConfigFileExitsTwo) {
  SieveRun run = RunSieve("crawl --seeds=x --config=/nonexistent/sieve.toml");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output,
              HasSubstr("/nonexistent/sieve.toml: cannot open config file"));
}

TEST(CliTest, BadLogLevelExitsTwo) {
  SieveRun run = RunSieve("crawl --seeds=x --log-level=loud");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output,
              HasSubstr("--log-level: must be one of trace, debug"));
  EXPECT_THAT(run.output, Not(HasSubstr("Segmentation")));
}

TEST(CliTest, HelpStudyListsTheStudyFlags) {
  SieveRun run = RunSieve("help study");
  EXPECT_EQ(run.exit_code, 0);
  for (const char* flag :
       {"--max-n", "--fp-rates", "--kinds", "--memory-cap", "--out"}) {
    EXPECT_THAT(run.output, HasSubstr(flag));
  }
}

TEST(CliTest, StudyRejectsABadMaxNAndExitsTwo) {
  SieveRun run = RunSieve("study --max-n=lots");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("sieve study: "));
  EXPECT_THAT(run.output, HasSubstr("lots"));
}

TEST(CliTest, VersionPrintsTheVersion) {
  SieveRun run = RunSieve("version");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.output, HasSubstr("sieve "));
}

}  // namespace
