// The subcommand table and the Abseil flags behind it. The flags are defined
// here, in the file that the CLI references, so a static link keeps them.
#include "crawler/cli/commands.h"

#include <cstdint>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "crawler/config/crawl_config.h"
#include "crawler/crawl/crawl_command.h"
#include "crawler/study/study_command.h"
#include "crawler/version.h"

// Flags bound to a config key take their defaults from CrawlConfig, so the two
// cannot disagree; their help text in `sieve help crawl` comes from
// crawler/config/config_keys.cc.
ABSL_FLAG(std::string, seeds, sieve::CrawlConfig{}.crawl.seeds,
          "file of seed URLs");
ABSL_FLAG(std::string, config, "", "TOML config file; flags override it");
ABSL_FLAG(std::string, out, "",
          "output directory (crawl: crawl-out, study: study-out)");
ABSL_FLAG(std::string, resume, "",
          "continue the crawl whose output directory is DIR");
ABSL_FLAG(bool, demo, false, "crawl the built-in demo site on 127.0.0.1");
ABSL_FLAG(std::string, scope, sieve::CrawlConfig{}.crawl.scope,
          "host, domain or any");
ABSL_FLAG(int64_t, max_pages, sieve::CrawlConfig{}.crawl.max_pages,
          "page limit");
ABSL_FLAG(int64_t, max_depth, sieve::CrawlConfig{}.crawl.max_depth,
          "depth limit");
ABSL_FLAG(int64_t, max_pages_per_host,
          sieve::CrawlConfig{}.crawl.max_pages_per_host, "page limit per host");
ABSL_FLAG(double, max_run_time, sieve::CrawlConfig{}.crawl.max_run_seconds,
          "seconds");
ABSL_FLAG(double, delay, sieve::CrawlConfig{}.politeness.delay,
          "seconds between requests");
ABSL_FLAG(int64_t, per_host_connections,
          sieve::CrawlConfig{}.politeness.per_host_connections,
          "requests in flight per host");
ABSL_FLAG(int64_t, concurrency, sieve::CrawlConfig{}.fetch.concurrency,
          "transfers in flight");
ABSL_FLAG(std::string, user_agent, sieve::CrawlConfig{}.fetch.user_agent,
          "User-Agent");
ABSL_FLAG(int64_t, expected_urls, sieve::CrawlConfig{}.sieve.expected_urls,
          "filter capacity");
ABSL_FLAG(double, fp_rate, sieve::CrawlConfig{}.sieve.fp_rate,
          "filter false-positive rate");
ABSL_FLAG(std::string, log_level, sieve::CrawlConfig{}.log.level,
          "trace, debug, info, warn, error or off");

// `sieve study` takes its values as text (1e6, 16G, comma lists); crawler/study
// parses them.
ABSL_FLAG(std::string, max_n, "1e8",
          "largest number of distinct URLs (1e6 style)");
ABSL_FLAG(std::string, fp_rates, "0.1,0.01,0.001,0.0001",
          "filter false-positive rates");
ABSL_FLAG(std::string, kinds, "classic,blocked,counting,scalable",
          "filter kinds to measure");
ABSL_FLAG(std::string, memory_cap, "16G",
          "exact sets past this many bytes are extrapolated");
ABSL_FLAG(std::string, seed, "42", "seed of the URL stream");
ABSL_FLAG(std::string, repeat_share, "0.1",
          "share of the stream that repeats earlier URLs");

namespace sieve {
namespace {

int RunVersion(const ParsedArgs&) {
  std::cout << "sieve " << kSieveVersion << "\n";
  return 0;
}

int RunStudyCommand(const ParsedArgs& args) {
  auto given = [&](std::string_view name, const std::string& value) {
    return args.specified.contains(std::string(name)) ? value : std::string();
  };
  absl::StatusOr<study::StudyFlags> flags = study::StudyFlagsFromStrings({
      .max_n = given("max-n", absl::GetFlag(FLAGS_max_n)),
      .fp_rates = given("fp-rates", absl::GetFlag(FLAGS_fp_rates)),
      .kinds = given("kinds", absl::GetFlag(FLAGS_kinds)),
      .memory_cap = given("memory-cap", absl::GetFlag(FLAGS_memory_cap)),
      .out = given("out", absl::GetFlag(FLAGS_out)),
      .seed = given("seed", absl::GetFlag(FLAGS_seed)),
      .repeat_share = given("repeat-share", absl::GetFlag(FLAGS_repeat_share)),
  });
  if (!flags.ok()) {
    std::cerr << "sieve study: " << flags.status().message() << "\n";
    return 2;
  }
  return study::RunStudy(*flags);
}

}  // namespace

std::span<const Command> Commands() {
  static const std::vector<Command> kCommands = {
      {"crawl",
       "crawl a seed list (or the built-in demo site) politely, to disk",
       "sieve crawl --seeds FILE [--config FILE] [--out DIR] [flags]\n"
       "       sieve crawl --resume DIR [flags]\n"
       "       sieve crawl --demo [flags]",
       "Fetches the seeds and every page they lead to within the scope, once "
       "each: discovered\n"
       "URLs are resolved, normalised and pushed through the Sieve (a FIFO "
       "guarded by a Bloom\n"
       "filter), robots.txt and per-host delays are obeyed, and each fetched "
       "page is recorded in\n"
       "DIR/pages.jsonl. Settings come from built-in defaults, then --config "
       "FILE, then flags;\n"
       "config/default.toml documents every setting.",
       {"seeds", "config", "out", "resume", "demo", "scope", "max-pages",
        "max-depth", "max-pages-per-host", "max-run-time", "delay",
        "per-host-connections", "concurrency", "user-agent", "expected-urls",
        "fp-rate", "log-level"},
       &RunCrawlCommand},
      {"study",
       "measure the memory, speed and false-positive rate of URL dedup "
       "structures",
       "sieve study [--max-n N] [--fp-rates LIST] [--kinds LIST] [--memory-cap "
       "BYTES] [--out DIR]",
       "Builds each Bloom filter kind and the exact sets on a realistic URL "
       "stream, on a log\n"
       "grid of sizes up to --max-n, and writes results.csv, SVG plots and "
       "report.md to DIR.",
       {"max-n", "fp-rates", "kinds", "memory-cap", "out", "seed",
        "repeat-share"},
       &RunStudyCommand},
      {"version",
       "print the version",
       "sieve version",
       "Prints sieve's version.",
       {},
       &RunVersion},
  };
  return kCommands;
}

}  // namespace sieve
