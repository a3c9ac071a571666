#include "crawler/cli/frontier_command.h"

#include <signal.h>

#include <iostream>
#include <string>
#include <string_view>

#include "crawler/cli/crawl_command.h"
#include "crawler/config/config_keys.h"
#include "crawler/logging.h"
#include "frontier/service/frontier_server.h"
#include "spdlog/spdlog.h"

namespace sieve {
namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

}  // namespace

std::vector<FlagSpec> FrontierFlags() {
  std::vector<FlagSpec> flags = {
      {.name = "config",
       .value_name = "FILE",
       .help = "TOML config file; flags override it"}};
  const CrawlConfig defaults;
  for (const ConfigKey& key : ConfigKeys()) {
    if (key.flag.empty() || (key.commands & kFrontierServeCommand) == 0)
      continue;
    flags.push_back({.name = std::string(key.flag),
                     .value_name = ConfigValueName(key),
                     .help = std::string(key.help),
                     .default_text = FormatConfigValue(key, defaults),
                     .config_path = std::string(key.path)});
  }
  return flags;
}

int RunFrontierCommand(const ParsedArgs& args) {
  if (args.positional.size() != 1 || args.positional[0] != "serve") {
    std::cerr << "sieve frontier: expected 'serve' (sieve frontier serve "
                 "[--listen HOST:PORT] [--data DIR])\n";
    return kExitUsage;
  }
  absl::StatusOr<CrawlConfig> config = LoadCrawlConfig(args);
  if (!config.ok()) {
    std::cerr << "sieve frontier: " << config.status().message() << "\n";
    return kExitUsage;
  }
  absl::StatusOr<std::shared_ptr<spdlog::logger>> logger =
      MakeStderrLogger(config->log.level);
  if (!logger.ok()) {
    std::cerr << "sieve frontier: " << logger.status().message() << "\n";
    return kExitUsage;
  }
  (*logger)->flush_on(spdlog::level::info);
  spdlog::set_default_logger(*logger);

  // SIGINT/SIGTERM are taken by sigwait on this thread: blocked before the
  // server starts its threads, which inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  const CrawlConfig::FrontierServer& s = config->frontier_server;
  service::FrontierServerOptions o;
  o.listen = s.listen;
  o.core.data_dir = s.data;
  o.core.bloom = s.bloom;
  o.core.sync = s.sync;
  o.core.expected_urls = static_cast<uint64_t>(config->sieve.expected_urls);
  o.core.fp_rate = config->sieve.fp_rate;
  o.core.default_queue_delay = static_cast<uint32_t>(s.queue_delay);
  o.core.default_delay_requestable = static_cast<uint32_t>(s.delay_requestable);
  spdlog::info("frontier: opening {}", s.data);
  absl::StatusOr<std::unique_ptr<service::FrontierServer>> server =
      service::FrontierServer::Start(std::move(o));
  if (!server.ok()) {
    spdlog::error("frontier: {}", server.status().ToString());
    return kExitFailure;
  }
  const std::string host = s.listen.substr(0, s.listen.rfind(':'));
  std::cout << "listening on " << host << ":" << (*server)->port() << std::endl;
  spdlog::info("frontier: serving URLFrontier on {}:{} (store {})", host,
               (*server)->port(), s.data);

  int sig = 0;
  sigwait(&signals, &sig);
  spdlog::info("frontier: {} received, shutting down",
               sig == SIGINT ? "SIGINT" : "SIGTERM");
  (*server)->Shutdown(absl::Seconds(5));
  (*server)->Wait();
  server->reset();
  spdlog::info("frontier: stopped");
  return 0;
}

}  // namespace sieve
