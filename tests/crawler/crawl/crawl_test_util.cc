#include "tests/crawler/crawl/crawl_test_util.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

extern char** environ;

namespace sieve::testing_util {

std::vector<nlohmann::json> ReadPages(const std::filesystem::path& out) {
  std::vector<nlohmann::json> pages;
  std::ifstream in(out / "pages.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    try {
      pages.push_back(nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception& e) {
      ADD_FAILURE() << "bad pages.jsonl line: " << line << ": " << e.what();
    }
  }
  return pages;
}

std::string PathOf(const std::string& url) {
  size_t scheme = url.find("://");
  size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  return slash == std::string::npos ? "/" : url.substr(slash);
}

CrawlConfig FastConfig(const std::filesystem::path& out) {
  CrawlConfig c;
  c.crawl.out = out.string();
  c.crawl.parser_threads = 2;
  c.politeness.delay = 0;
  c.politeness.per_host_connections = 4;
  c.fetch.concurrency = 8;
  c.fetch.timeout = 1.0;
  c.fetch.connect_timeout = 1.0;
  c.politeness.max_error_retries = 0;
  c.sieve.expected_urls = 100'000;
  c.sieve.fp_rate = 1e-6;
  c.log.level = "warn";
  return c;
}

absl::StatusOr<CrawlSummary> CrawlInProcess(
    const CrawlConfig& config, const std::vector<std::string>& seeds) {
  auto logger = std::make_shared<spdlog::logger>(
      "crawl-test", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_level(spdlog::level::from_str(config.log.level));
  absl::StatusOr<std::unique_ptr<Crawler>> crawler = Crawler::Create(
      CrawlSetup{.config = config, .seeds = seeds, .logger = logger});
  if (!crawler.ok()) return crawler.status();
  return (*crawler)->Run();
}

pid_t StartSieve(const std::vector<std::string>& args,
                 const std::filesystem::path& log) {
  std::vector<std::string> argv_strings = {SIEVE_BINARY};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  int rc =
      posix_spawn(&pid, SIEVE_BINARY, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0) << "cannot start " << SIEVE_BINARY;
  return pid;
}

pid_t StartSieveWithFileLimit(const std::vector<std::string>& args,
                              const std::filesystem::path& log,
                              uint64_t max_file_bytes) {
  std::vector<std::string> argv_strings = {SIEVE_BINARY};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) ::_exit(126);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{.rlim_cur = static_cast<rlim_t>(max_file_bytes),
                       .rlim_max = static_cast<rlim_t>(max_file_bytes)};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(126);
    ::execv(SIEVE_BINARY, argv.data());
    ::_exit(127);
  }
  EXPECT_GT(pid, 0);
  return pid;
}

int WaitFor(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

int MostStartsInASecond(std::vector<absl::Time> starts) {
  std::sort(starts.begin(), starts.end());
  int most = 0;
  for (size_t i = 0, j = 0; i < starts.size(); ++i) {
    while (j < starts.size() && starts[j] - starts[i] < absl::Seconds(1)) ++j;
    most = std::max(most, static_cast<int>(j - i));
  }
  return most;
}

}  // namespace sieve::testing_util
