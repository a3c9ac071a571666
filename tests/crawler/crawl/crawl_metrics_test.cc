// `sieve crawl --metrics ADDR:PORT` through the binary (issue 27): a live
// scrape of /metrics passes `promtool check metrics`, /status is the summary
// so far, and a real Prometheus (Debian's `prometheus`, started here on
// 127.0.0.1) scrapes a running crawl and answers a query for its page count.
// Skipped with a message when promtool or prometheus is absent.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "crawler/demo/demo_site.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "re2/re2.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using ::testing::HasSubstr;
using testing_util::FreshDir;
using testing_util::ReadFile;
using testing_util::StartSieve;
using testing_util::WaitFor;

bool OnPath(const char* program) {
  return std::system(absl::StrCat("command -v ", program, " >/dev/null 2>&1")
                         .c_str()) == 0;
}

// A crawl that lasts: every answer takes `delay`.
struct SlowCrawl {
  std::unique_ptr<DemoSite> site;
  std::filesystem::path dir;
  pid_t pid = -1;
  std::string metrics_url;  // "http://127.0.0.1:PORT", from the log.

  SlowCrawl(const std::string& name, absl::Duration delay) {
    absl::StatusOr<std::unique_ptr<DemoSite>> started =
        DemoSite::Start({.pages = 200,
                         .slow_page_delay = absl::ZeroDuration(),
                         .response_delay = delay});
    EXPECT_TRUE(started.ok()) << started.status();
    if (!started.ok()) return;
    site = std::move(*started);
    dir = FreshDir(name);
    pid = StartSieve(
        {"crawl", site->root_url(), "--out", (dir / "out").string(), "--delay",
         "0", "--metrics", "127.0.0.1:0", "--log-level", "info"},
        dir / "log.txt");
    const RE2 said(R"(metrics: (http://127\.0\.0\.1:\d+)/metrics)");
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    std::string log;
    while (absl::Now() < deadline) {
      log = ReadFile(dir / "log.txt");
      if (RE2::PartialMatch(log, said, &metrics_url)) break;
      absl::SleepFor(absl::Milliseconds(20));
    }
    EXPECT_FALSE(metrics_url.empty()) << log;
  }
  // SIGINT: a stopped crawl exits 3.
  void Stop() {
    if (pid < 0) return;
    ::kill(pid, SIGINT);
    EXPECT_EQ(WaitFor(pid), 3) << ReadFile(dir / "log.txt");
    pid = -1;
  }
  ~SlowCrawl() { Stop(); }
};

// The body of GET base+path (through sieve's own Fetcher), "" unless 200.
std::string Get(const std::string& base, const std::string& path) {
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
      Fetcher::Create(fetch_test::TestOptions());
  if (!fetcher.ok()) return "";
  FetchResponse r =
      fetch_test::FetchOne(**fetcher, {.id = 1, .url = base + path});
  return r.ok() && r.status == 200 ? r.body : "";
}

// The value of the 2xx page counter in a scrape, or -1.
double PagesOk(const std::string& scrape) {
  double v = -1;
  (void)RE2::PartialMatch(
      scrape, R"(sieve_pages_total\{status_class="2xx"\} (\S+))", &v);
  return v;
}

TEST(CrawlMetricsTest, ALiveScrapePassesPromtoolAndStatusIsTheSummary) {
  if (!OnPath("promtool"))
    GTEST_SKIP() << "promtool absent (Debian package prometheus)";
  SlowCrawl crawl("metrics-promtool", absl::Milliseconds(50));
  ASSERT_FALSE(crawl.metrics_url.empty());
  std::string scrape;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline) {
    scrape = Get(crawl.metrics_url, "/metrics");
    if (PagesOk(scrape) > 0) break;
    absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_GT(PagesOk(scrape), 0) << scrape;
  for (const char* name :
       {"sieve_errors_total{code=", "sieve_body_bytes_total ",
        "sieve_queued_urls ", "sieve_in_flight ", "sieve_hosts_active ",
        "sieve_filter_estimated_urls ", "sieve_filter_capacity ",
        "sieve_filter_estimated_fp_rate ", "sieve_robots_cache_entries ",
        "sieve_skipped_total{reason=\"off_scope\"}",
        "sieve_fetch_duration_seconds_bucket{le=\"+Inf\"}",
        "sieve_render_seconds_bucket{le=\"30\"}", "sieve_render_seconds_count ",
        "sieve_render_browsers_alive ", "sieve_render_browser_spawns_total ",
        "sieve_render_browser_crashes_total ",
        "sieve_render_browser_retirements_total ",
        "process_resident_memory_bytes ", "process_cpu_seconds_total "}) {
    EXPECT_THAT(scrape, HasSubstr(name));
  }
  const std::filesystem::path file = crawl.dir / "scrape.txt";
  std::ofstream(file) << scrape;
  const int status = std::system(
      absl::StrCat("promtool check metrics < '", file.string(), "' > '",
                   (crawl.dir / "promtool.txt").string(), "' 2>&1")
          .c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << ReadFile(crawl.dir / "promtool.txt") << scrape;

  const nlohmann::json summary =
      nlohmann::json::parse(Get(crawl.metrics_url, "/status"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded());
  EXPECT_GT(summary["counters"]["pages"].get<int>(), 0);
  EXPECT_TRUE(summary.contains("started_at"));
  crawl.Stop();
}

// A free TCP port on 127.0.0.1 (bound, read, closed).
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST(CrawlMetricsTest, PrometheusScrapesTheCrawlAndAnswersThePageCount) {
  if (!OnPath("prometheus"))
    GTEST_SKIP() << "prometheus absent (Debian package prometheus)";
  SlowCrawl crawl("metrics-prometheus", absl::Milliseconds(100));
  ASSERT_FALSE(crawl.metrics_url.empty());
  const std::string target = crawl.metrics_url.substr(strlen("http://"));
  const std::filesystem::path config = crawl.dir / "prometheus.yml";
  std::ofstream(config) << "global:\n  scrape_interval: 1s\n"
                        << "scrape_configs:\n  - job_name: sieve\n"
                        << "    static_configs:\n      - targets: ['" << target
                        << "']\n";
  const int port = FreePort();
  const std::string listen = absl::StrCat("127.0.0.1:", port);
  const std::filesystem::path log = crawl.dir / "prometheus.log";
  const pid_t prometheus = fork();
  if (prometheus == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    const std::string a1 = "--config.file=" + config.string();
    const std::string a2 =
        "--storage.tsdb.path=" + (crawl.dir / "tsdb").string();
    const std::string a3 = "--web.listen-address=" + listen;
    execlp("prometheus", "prometheus", a1.c_str(), a2.c_str(), a3.c_str(),
           static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(prometheus, 0);
  double pages = -1;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline && pages <= 0) {
    absl::SleepFor(absl::Milliseconds(250));
    const std::string body = Get(absl::StrCat("http://", listen),
                                 "/api/v1/query?query=sum(sieve_pages_total)");
    const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded() || j["status"] != "success" ||
        j["data"]["result"].empty())
      continue;
    (void)absl::SimpleAtod(
        j["data"]["result"][0]["value"][1].get<std::string>(), &pages);
  }
  crawl.Stop();
  ::kill(prometheus, SIGTERM);
  int status = 0;
  ::waitpid(prometheus, &status, 0);
  ASSERT_GT(pages, 0) << ReadFile(log);
  // What Prometheus scraped is at most what the crawl recorded.
  const nlohmann::json summary =
      nlohmann::json::parse(ReadFile(crawl.dir / "out" / "summary.json"));
  EXPECT_LE(pages, summary["counters"]["pages"].get<double>());
}

}  // namespace
}  // namespace sieve
