// crawler/cli/crawl_run.cc: `sieve crawl` run (RunCrawlCommand): its
// settings and seeds resolved, the demo site started when asked, the crawl
// run with SIGINT/SIGTERM turned into a clean stop, and its summary printed.
// The command's flags, settings and help are in crawl_command.cc.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "crawler/cli/crawl_command.h"
#include "crawler/cli/out_dir_lock.h"
#include "crawler/cli/seeds.h"
#include "crawler/config/config_loader.h"
#include "crawler/config/crawl_options.h"
#include "crawler/demo/demo_site.h"
#include "crawler/logging.h"
#include "crawler/loop/crawler.h"
#include "fetch/open_file_limit.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

constexpr int kExitFailure = kCrawlExitFailure;
constexpr int kExitUsage = kCrawlExitUsage;
// A step of the command went well: the next one runs.
constexpr int kGoOn = -1;

// Says why the command ends on stderr and returns `code`.
int Fail(int code, absl::string_view message) {
  std::cerr << "sieve crawl: " << message << "\n";
  return code;
}

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
    // Wakes the watcher now rather than at its next tick, which ended the
    // process up to 100 ms after the crawl. The signal is directed at that
    // thread, where it is blocked, so its sigtimedwait takes it.
    pthread_kill(thread_.native_handle(), SIGTERM);
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
      if (sig <= 0 || done_.load()) continue;
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

// What the command line resolves to before the crawl starts.
struct CrawlRequest {
  bool demo = false;
  std::string resume{};  // --resume DIR, or "".
  // The demo's or the resumed crawl's settings, under --config and flags.
  CrawlConfig base{};
  CrawlConfig config{};
  // The lock of the resumed crawl's directory, taken before reading it.
  std::shared_ptr<OutDirLock> out_lock{};
  // Seed URLs or a seed file named on this command line.
  bool seed_file_given = false;
};

// Settings: defaults, then the demo's or the resumed crawl's, then --config,
// then flags. 0 after --print-config.
int ResolveSettings(const ParsedArgs& args, CrawlRequest& request) {
  if (request.demo) {
    if (absl::Status s = ApplyConfigToml(
            DemoConfigToml(), "config/demo.toml (built in)", request.base);
        !s.ok()) {
      return Fail(kExitFailure, s.message());
    }
  } else if (!request.resume.empty()) {
    // The lock first: nothing in the directory is read before it is held.
    absl::StatusOr<std::unique_ptr<OutDirLock>> lock =
        OutDirLock::Acquire(request.resume);
    if (!lock.ok()) return Fail(kExitFailure, lock.status().message());
    request.out_lock = std::move(*lock);
    const fs::path saved = fs::path(request.resume) / "config.toml";
    if (!fs::exists(saved)) {
      return Fail(kExitFailure,
                  saved.string() +
                      " is missing: --resume needs the settings the crawl was "
                      "started with");
    }
    if (absl::Status s = ApplyConfigFile(saved.string(), request.base);
        !s.ok()) {
      return Fail(kExitUsage, s.message());
    }
  }
  absl::StatusOr<CrawlConfig> config = LoadCrawlConfigOver(request.base, args);
  if (!config.ok()) return Fail(kExitUsage, config.status().message());
  request.config = *std::move(config);
  if (args.Get("print-config") == "true") {
    std::cout << ConfigToToml(request.config);
    return 0;
  }
  // Seeds named on this command line: URL arguments and --seeds FILE (or a
  // seed file from --config, for a fresh crawl; a resumed crawl's saved
  // config names the seeds it was started with, already queued).
  const std::string& seed_file = request.config.crawl.seeds;
  request.seed_file_given =
      !seed_file.empty() && (request.resume.empty() || args.Has("seeds") ||
                             request.base.crawl.seeds != seed_file);
  if (request.demo && (request.seed_file_given || !args.positional.empty())) {
    return Fail(kExitUsage,
                "--demo crawls its own site: no seed URLs or --seeds");
  }
  return kGoOn;
}

// The seed URLs of the arguments and the seed file, their notes and problems
// logged.
int ReadSeeds(const ParsedArgs& args, const CrawlRequest& request,
              spdlog::logger& log, std::vector<std::string>& seeds) {
  if (!request.seed_file_given && args.positional.empty()) return kGoOn;
  const UrlOptions url_options = MakeUrlOptions(request.config);
  SeedList list = ParseSeedArgs(args.positional, url_options);
  if (request.seed_file_given) {
    absl::StatusOr<SeedList> file =
        ReadSeedFile(request.config.crawl.seeds, url_options);
    if (!file.ok()) return Fail(kExitUsage, file.status().message());
    const auto append = [](std::vector<std::string>& to,
                           const std::vector<std::string>& from) {
      to.insert(to.end(), from.begin(), from.end());
    };
    append(list.urls, file->urls);
    append(list.problems, file->problems);
    append(list.notes, file->notes);
  }
  for (const std::string& note : list.notes) log.info("{}", note);
  for (const std::string& problem : list.problems) log.warn("{}", problem);
  if (list.urls.empty()) {
    return Fail(kExitUsage,
                "no valid seed URL" + (request.seed_file_given
                                           ? " in " + request.config.crawl.seeds
                                           : std::string()));
  }
  seeds = std::move(list.urls);
  return kGoOn;
}

// The demo site on 127.0.0.1, its root the one seed; without --out, the
// output goes to a new directory under /tmp.
int StartDemo(const ParsedArgs& args, spdlog::logger& log, CrawlConfig& config,
              std::unique_ptr<DemoSite>& site,
              std::vector<std::string>& seeds) {
  absl::StatusOr<std::unique_ptr<DemoSite>> started =
      DemoSite::Start(SiteOptions{});
  if (!started.ok()) return Fail(kExitFailure, started.status().message());
  site = std::move(*started);
  seeds = {site->root_url()};
  if (!args.Has("out")) {
    std::string dir =
        (fs::temp_directory_path() / "sieve-demo-XXXXXX").string();
    if (::mkdtemp(dir.data()) == nullptr) {
      return Fail(kExitFailure, "cannot create a directory under /tmp");
    }
    config.crawl.out = dir;
  }
  log.info("demo site: {} pages at {} (robots.txt disallows /private/)",
           site->graph().options().pages, site->root_url());
  return kGoOn;
}

// Runs the crawl of `setup` until it ends or a signal stops it, and prints
// its summary (and what the demo site saw); the command's exit code.
int RunCrawl(CrawlSetup setup, SignalWatcher& signals, const DemoSite* site) {
  const fs::path out = setup.config.crawl.out;
  absl::StatusOr<std::unique_ptr<Crawler>> crawler = Crawler::Create(setup);
  if (!crawler.ok()) {
    // Bad settings are the user's to fix (2); anything else, a damaged
    // checkpoint or an unwritable directory included, is a failure (1).
    return Fail(crawler.status().code() == absl::StatusCode::kInvalidArgument
                    ? kExitUsage
                    : kExitFailure,
                crawler.status().message());
  }
  signals.Attach(crawler->get());
  absl::StatusOr<CrawlSummary> summary = (*crawler)->Run();
  signals.Attach(nullptr);
  if (!summary.ok()) return Fail(kExitFailure, summary.status().message());
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

}  // namespace

int RunCrawlCommand(const ParsedArgs& args) {
  CrawlRequest request{.demo = args.Get("demo") == "true",
                       .resume = args.Get("resume")};
  if (request.demo && !request.resume.empty()) {
    return Fail(kExitUsage,
                "--demo and --resume cannot be combined (the demo site gets a "
                "new port each run)");
  }
  if (int code = ResolveSettings(args, request); code != kGoOn) return code;
  CrawlConfig& config = request.config;
  absl::StatusOr<std::shared_ptr<spdlog::logger>> logger =
      MakeStderrLogger(config.log.level);
  if (!logger.ok()) return Fail(kExitUsage, logger.status().message());
  // Idle connections, one per host in rotation, each hold a descriptor
  // (fetch.max_idle_connections).
  const OpenFileLimit files = RaiseOpenFileLimit();
  (*logger)->info("open-file limit {} (was {}, hard limit {})", files.soft,
                  files.before, files.hard);
  if (!request.seed_file_given && args.positional.empty() && !request.demo &&
      request.resume.empty()) {
    return Fail(kExitUsage,
                "needs seed URLs, --seeds FILE, --resume DIR or --demo (try "
                "'sieve help crawl')");
  }
  std::vector<std::string> seeds;
  if (int code = ReadSeeds(args, request, **logger, seeds); code != kGoOn) {
    return code;
  }
  // Block SIGINT/SIGTERM before any thread starts (demo server, parsers, curl's
  // resolver).
  SignalWatcher signals;
  CrawlSetup setup;
  setup.logger = *logger;
  setup.live_progress =
      ::isatty(STDERR_FILENO) == 1 && config.log.level != "off";
  std::unique_ptr<DemoSite> site;
  if (request.demo) {
    if (int code = StartDemo(args, **logger, config, site, setup.seeds);
        code != kGoOn) {
      return code;
    }
  } else {
    // A fresh crawl's seeds; on --resume, new seeds, pushed through the
    // Sieve like links (seen ones are dropped).
    setup.seeds = std::move(seeds);
    if (!request.resume.empty()) {
      config.crawl.out = request.resume;
      setup.resume = true;
    }
  }
  setup.config = config;
  if (!setup.resume) setup.saved_config = ConfigToToml(config);
  setup.out_lock = std::move(request.out_lock);
  return RunCrawl(std::move(setup), signals, site.get());
}

}  // namespace sieve
