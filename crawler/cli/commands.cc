// The subcommand table. Each command's flags come from its settings table,
// where each setting is declared once.
#include "crawler/cli/commands.h"

#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "crawler/cli/cluster_command.h"
#include "crawler/cli/crawl_command.h"
#include "crawler/cli/frontier_command.h"
#include "crawler/version.h"
#include "study/study_command.h"

namespace sieve {
namespace {

int RunVersion(const ParsedArgs&) {
  std::cout << "sieve " << kSieveVersion << "\n";
  return 0;
}

std::vector<FlagSpec> NoFlags() { return {}; }

std::vector<FlagSpec> StudyFlagSpecs() {
  std::vector<FlagSpec> flags;
  const study::StudyFlags defaults;
  for (const study::StudySetting& s : study::StudySettings()) {
    flags.push_back({.name = std::string(s.flag),
                     .value_name = std::string(s.value_name),
                     .help = std::string(s.help),
                     .default_text = s.format(defaults)});
  }
  return flags;
}

int RunStudyCommand(const ParsedArgs& args) {
  std::vector<std::pair<std::string, std::string>> given;
  for (const study::StudySetting& s : study::StudySettings()) {
    if (args.Has(s.flag)) given.emplace_back(s.flag, args.Get(s.flag));
  }
  absl::StatusOr<study::StudyFlags> flags = study::StudyFlagsFromText(given);
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
       "sieve crawl [URL...] [--seeds FILE|-] [--config FILE] [--out DIR] "
       "[flags]\n"
       "       sieve crawl --resume DIR [URL...] [--seeds FILE|-] [flags]\n"
       "       sieve crawl --demo [flags]",
       "Fetches the seeds and every page they lead to within the scope, once "
       "each: discovered\n"
       "URLs are resolved, normalised and pushed through the Sieve (a FIFO "
       "guarded by a Bloom\n"
       "filter), robots.txt and per-host delays are obeyed, and each fetched "
       "page is recorded in\n"
       "DIR/pages.jsonl. Seeds are the URL arguments and the lines of "
       "--seeds FILE (- reads\n"
       "stdin); with --resume they are added to the crawl through the Sieve. "
       "Settings come from\n"
       "built-in defaults, then --config FILE, then --set, then flags; "
       "config/default.toml\n"
       "documents every setting. Exit codes: 0 finished (or --max-pages), 1 "
       "failed, 2 bad usage,\n"
       "3 stopped with work left (signal, --max-run-time), 130 a second "
       "Ctrl-C.",
       &CrawlFlags, &RunCrawlCommand, &CrawlSettingsHelp},
      {"cluster", "look at or add seeds to a crawl shared through Redis",
       "sieve cluster status --cluster URL --crawl-id NAME [--json]\n"
       "       sieve cluster seed --cluster URL --crawl-id NAME --seeds FILE\n"
       "           [--config FILE] [--set SECTION.KEY=VALUE]... "
       "[--politeness-key KEY]",
       "status: the crawl's totals, each worker's pages, rates and shards, "
       "queued and pending\n"
       "URLs, the shared filter's estimated count and false-positive rate.\n"
       "seed: adds the URLs of FILE to the running crawl (through its shared "
       "filter: URLs\n"
       "seen before are not queued again), normalised and keyed by host as "
       "the workers do,\n"
       "with the crawl's url.* settings and politeness.key: give it the "
       "crawl's --config and\n"
       "--set (a crawl refuses a seed command or worker whose settings for "
       "them differ).\n"
       "Neither joins the crawl. See docs/cluster.md.",
       &ClusterFlags, &RunClusterCommand},
      {"study",
       "measure the memory, speed and false-positive rate of URL dedup "
       "structures",
       "sieve study [--max-n N] [--fp-rates LIST] [--kinds LIST] [--memory-cap "
       "BYTES] [--out DIR]",
       "Builds each Bloom filter kind and the exact sets on a realistic URL "
       "stream, on a log\n"
       "grid of sizes up to --max-n, and writes results.csv, SVG plots and "
       "report.md to DIR.",
       &StudyFlagSpecs, &RunStudyCommand},
      {"frontier", "serve the frontier over gRPC (the URLFrontier API)",
       "sieve frontier serve [--listen HOST:PORT] [--data DIR] [flags]",
       "Serves crawler-commons' URLFrontier API (gRPC) from a RocksDB store "
       "in DIR with a Bloom\n"
       "filter in front: any URLFrontier client (StormCrawler, Python, `sieve "
       "crawl --frontier\n"
       "grpc://HOST:PORT`) can queue and fetch URLs through it. A restart on "
       "the same DIR finds\n"
       "every acknowledged put. SIGINT/SIGTERM stop it cleanly. See "
       "docs/urlfrontier.md.",
       &FrontierFlags, &RunFrontierCommand},
      {"version", "print the version", "sieve version",
       "Prints sieve's version.", &NoFlags, &RunVersion},
  };
  return kCommands;
}

}  // namespace sieve
