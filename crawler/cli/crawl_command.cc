#include "crawler/cli/crawl_command.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <variant>

#include "absl/strings/str_cat.h"
#include "crawler/cli/out_dir_lock.h"
#include "crawler/cli/seeds.h"
#include "crawler/config/config_keys.h"
#include "crawler/config/config_loader.h"
#include "crawler/config/config_options.h"
#include "crawler/config/crawl_options.h"
#include "crawler/demo/demo_site.h"
#include "crawler/logging.h"
#include "crawler/loop/crawler.h"
#include "fetch/open_file_limit.h"
#include "filter/durable_file.h"
#include "toml++/toml.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

constexpr int kExitFailure = kCrawlExitFailure;
constexpr int kExitUsage = kCrawlExitUsage;

// Turns SIGINT/SIGTERM into Crawler::RequestStop. The signals are blocked in
// the calling thread before any other thread starts (threads inherit the mask)
// and taken by sigtimedwait in a watcher thread, so no handler runs in a random
// thread and no global is needed. A second signal ends the process at once.
class SignalWatcher {
 public:
  SignalWatcher() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGINT);
    sigaddset(&signals_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals_, &old_mask_);
    thread_ = std::thread([this] { Watch(); });
  }
  ~SignalWatcher() {
    done_.store(true);
    thread_.join();
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
  }
  void Attach(Crawler* crawler) { crawler_.store(crawler); }

 private:
  void Watch() {
    const timespec tick{.tv_sec = 0, .tv_nsec = 100'000'000};
    int received = 0;
    while (!done_.load()) {
      int sig = sigtimedwait(&signals_, nullptr, &tick);
      if (sig <= 0) continue;
      if (++received > 1) {
        static constexpr char kMessage[] =
            "\nsieve crawl: second signal, quitting now\n";
        (void)!::write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
        std::_Exit(128 + sig);
      }
      static constexpr char kMessage[] =
          "\nsieve crawl: stopping cleanly (checkpoint, summary); signal again "
          "to quit now\n";
      (void)!::write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
      if (Crawler* c = crawler_.load(); c != nullptr) c->RequestStop();
    }
  }

  sigset_t signals_;
  sigset_t old_mask_;
  std::atomic<bool> done_{false};
  std::atomic<Crawler*> crawler_{nullptr};
  std::thread thread_;
};

}  // namespace

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
    if (key.flag.empty() || key.path.starts_with("frontier_server.")) continue;
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
    if (!key.flag.empty() && !key.path.starts_with("frontier_server."))
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

int RunCrawlCommand(const ParsedArgs& args) {
  const bool demo = args.Get("demo") == "true";
  const std::string resume = args.Get("resume");
  if (demo && !resume.empty()) {
    std::cerr << "sieve crawl: --demo and --resume cannot be combined (the "
                 "demo site gets a new "
                 "port each run)\n";
    return kExitUsage;
  }

  std::shared_ptr<OutDirLock> out_lock;
  // Settings: defaults, then the demo's or the resumed crawl's, then --config,
  // then flags.
  CrawlConfig base;
  if (demo) {
    if (absl::Status s = ApplyConfigToml(DemoConfigToml(),
                                         "config/demo.toml (built in)", base);
        !s.ok()) {
      std::cerr << "sieve crawl: " << s.message() << "\n";
      return kExitFailure;
    }
  } else if (!resume.empty()) {
    // The lock first: nothing in the directory is read before it is held.
    absl::StatusOr<std::unique_ptr<OutDirLock>> lock =
        OutDirLock::Acquire(resume);
    if (!lock.ok()) {
      std::cerr << "sieve crawl: " << lock.status().message() << "\n";
      return kExitFailure;
    }
    out_lock = std::move(*lock);
    const fs::path saved = fs::path(resume) / "config.toml";
    if (!fs::exists(saved)) {
      std::cerr << "sieve crawl: " << saved.string()
                << " is missing: --resume needs the settings the crawl was "
                   "started with\n";
      return kExitFailure;
    }
    if (absl::Status s = ApplyConfigFile(saved.string(), base); !s.ok()) {
      std::cerr << "sieve crawl: " << s.message() << "\n";
      return kExitUsage;
    }
  }
  absl::StatusOr<CrawlConfig> config = LoadCrawlConfigOver(base, args);
  if (!config.ok()) {
    std::cerr << "sieve crawl: " << config.status().message() << "\n";
    return kExitUsage;
  }
  if (args.Get("print-config") == "true") {
    std::cout << ConfigToToml(*config);
    return 0;
  }
  // Seeds named on this command line: URL arguments and --seeds FILE (or a
  // seed file from --config, for a fresh crawl; a resumed crawl's saved
  // config names the seeds it was started with, already queued).
  const bool seed_file_given =
      !config->crawl.seeds.empty() && (resume.empty() || args.Has("seeds") ||
                                       base.crawl.seeds != config->crawl.seeds);
  if (demo && (seed_file_given || !args.positional.empty())) {
    std::cerr << "sieve crawl: --demo crawls its own site: no seed URLs or "
                 "--seeds\n";
    return kExitUsage;
  }
  absl::StatusOr<std::shared_ptr<spdlog::logger>> logger =
      MakeStderrLogger(config->log.level);
  if (!logger.ok()) {
    std::cerr << "sieve crawl: " << logger.status().message() << "\n";
    return kExitUsage;
  }
  // Idle connections, one per host in rotation, each hold a descriptor
  // (fetch.max_idle_connections).
  const OpenFileLimit files = RaiseOpenFileLimit();
  (*logger)->info("open-file limit {} (was {}, hard limit {})", files.soft,
                  files.before, files.hard);
  if (!seed_file_given && args.positional.empty() && !demo && resume.empty()) {
    std::cerr << "sieve crawl: needs seed URLs, --seeds FILE, --resume DIR or "
                 "--demo (try 'sieve help crawl')\n";
    return kExitUsage;
  }
  std::vector<std::string> seeds;
  if (seed_file_given || !args.positional.empty()) {
    const UrlOptions url_options = MakeUrlOptions(*config);
    SeedList list = ParseSeedArgs(args.positional, url_options);
    if (seed_file_given) {
      absl::StatusOr<SeedList> file =
          ReadSeedFile(config->crawl.seeds, url_options);
      if (!file.ok()) {
        std::cerr << "sieve crawl: " << file.status().message() << "\n";
        return kExitUsage;
      }
      const auto append = [](std::vector<std::string>& to,
                             const std::vector<std::string>& from) {
        to.insert(to.end(), from.begin(), from.end());
      };
      append(list.urls, file->urls);
      append(list.problems, file->problems);
      append(list.notes, file->notes);
    }
    for (const std::string& note : list.notes) (*logger)->info("{}", note);
    for (const std::string& problem : list.problems)
      (*logger)->warn("{}", problem);
    if (list.urls.empty()) {
      std::cerr << "sieve crawl: no valid seed URL"
                << (seed_file_given ? " in " + config->crawl.seeds : "")
                << "\n";
      return kExitUsage;
    }
    seeds = std::move(list.urls);
  }

  // Block SIGINT/SIGTERM before any thread starts (demo server, parsers, curl's
  // resolver).
  SignalWatcher signals;
  CrawlSetup setup;
  setup.logger = *logger;
  setup.live_progress =
      ::isatty(STDERR_FILENO) == 1 && config->log.level != "off";
  std::unique_ptr<DemoSite> site;
  if (demo) {
    absl::StatusOr<std::unique_ptr<DemoSite>> started =
        DemoSite::Start(SiteOptions{});
    if (!started.ok()) {
      std::cerr << "sieve crawl: " << started.status().message() << "\n";
      return kExitFailure;
    }
    site = std::move(*started);
    setup.seeds = {site->root_url()};
    if (!args.Has("out")) {
      std::string dir =
          (fs::temp_directory_path() / "sieve-demo-XXXXXX").string();
      if (::mkdtemp(dir.data()) == nullptr) {
        std::cerr << "sieve crawl: cannot create a directory under /tmp\n";
        return kExitFailure;
      }
      config->crawl.out = dir;
    }
    (*logger)->info(
        "demo site: {} pages at {} (robots.txt disallows /private/)",
        site->graph().options().pages, site->root_url());
  } else {
    // A fresh crawl's seeds; on --resume, new seeds, pushed through the
    // Sieve like links (seen ones are dropped).
    setup.seeds = std::move(seeds);
    if (!resume.empty()) {
      config->crawl.out = resume;
      setup.resume = true;
    }
  }
  setup.config = *config;
  if (!setup.resume) setup.saved_config = ConfigToToml(*config);
  setup.out_lock = std::move(out_lock);

  absl::StatusOr<std::unique_ptr<Crawler>> crawler = Crawler::Create(setup);
  if (!crawler.ok()) {
    std::cerr << "sieve crawl: " << crawler.status().message() << "\n";
    // Bad settings are the user's to fix (2); anything else, a damaged
    // checkpoint or an unwritable directory included, is a failure (1).
    return crawler.status().code() == absl::StatusCode::kInvalidArgument
               ? kExitUsage
               : kExitFailure;
  }
  const fs::path out = config->crawl.out;
  signals.Attach(crawler->get());
  absl::StatusOr<CrawlSummary> summary = (*crawler)->Run();
  signals.Attach(nullptr);
  if (!summary.ok()) {
    std::cerr << "sieve crawl: " << summary.status().message() << "\n";
    return kExitFailure;
  }
  std::cout << FormatSummaryTable(*summary, out);
  if (site != nullptr) {
    int disallowed = 0;
    for (const SiteRequest& r : site->requests()) {
      if (SiteGraph::MustNotBeRequested(r.path)) ++disallowed;
    }
    std::cout << "demo site: the server saw " << site->requests().size()
              << " requests, " << disallowed
              << " of them for robots-disallowed, nofollow or trap URLs\n";
  }
  if (summary->stop_reason != StopReason::kFinished) {
    std::cout << "continue with: sieve crawl --resume " << out.string() << "\n";
  }
  return CrawlExitCode(summary->stop_reason);
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
