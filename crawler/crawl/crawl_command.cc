#include "crawler/crawl/crawl_command.h"

#include <iostream>
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "crawler/config/config_loader.h"
#include "crawler/logging.h"

ABSL_DECLARE_FLAG(std::string, config);
ABSL_DECLARE_FLAG(std::string, resume);
ABSL_DECLARE_FLAG(bool, demo);

namespace sieve {

absl::StatusOr<CrawlConfig> LoadCrawlConfig(const ParsedArgs& args) {
  CrawlConfig config;
  if (args.specified.contains("config")) {
    if (absl::Status s = ApplyConfigFile(absl::GetFlag(FLAGS_config), config);
        !s.ok())
      return s;
  }
  if (absl::Status s = ApplyFlagOverrides(args.specified, config); !s.ok())
    return s;
  return config;
}

int RunCrawlCommand(const ParsedArgs& args) {
  absl::StatusOr<CrawlConfig> config = LoadCrawlConfig(args);
  if (!config.ok()) {
    std::cerr << "sieve crawl: " << config.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<std::shared_ptr<spdlog::logger>> logger =
      MakeStderrLogger(config->log.level);
  if (!logger.ok()) {
    std::cerr << "sieve crawl: " << logger.status().message() << "\n";
    return 2;
  }
  bool demo = absl::GetFlag(FLAGS_demo);
  std::string resume = absl::GetFlag(FLAGS_resume);
  if (config->crawl.seeds.empty() && !demo && resume.empty()) {
    std::cerr << "sieve crawl: needs --seeds FILE, --resume DIR or --demo (try "
                 "'sieve help "
                 "crawl')\n";
    return 2;
  }
  (*logger)->error("the crawl loop is not built yet");
  return 1;
}

}  // namespace sieve
