// `sieve crawl` driven as curl and wget are, through the binary: seed URLs as
// arguments, --seeds - from stdin, new seeds added on --resume, --header and
// --proxy seen at loopback servers (a tiny forward proxy in the test).
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "crawler/demo/demo_site.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/site_answer_key.h"
#include "tests/fetch/test_servers.h"

namespace sieve {
namespace {

using fetch_test::HttpServer;
using ::testing::HasSubstr;
using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

// Flags of a fast loopback crawl writing to `out`.
std::vector<std::string> Fast(const std::filesystem::path& out) {
  return {"--out",       out.string(),     "--delay", "0",
          "--log-level", "info",           "--set",   "crawl.parser_threads=2",
          "--set",       "fetch.timeout=5"};
}

std::vector<std::string> Cat(std::vector<std::string> a,
                             const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::set<std::string> FetchedPaths(const std::filesystem::path& out) {
  std::set<std::string> paths;
  for (const nlohmann::json& r : ReadPages(out)) {
    paths.insert(PathOf(r["url"].get<std::string>()));
  }
  return paths;
}

std::set<std::string> ExpectedPaths(const DemoSite& site) {
  std::set<std::string> paths;
  for (const auto& [path, depth] : testing_util::Expected(site.graph()).fetched)
    paths.insert(path);
  return paths;
}

std::unique_ptr<DemoSite> Site(int pages) {
  absl::StatusOr<std::unique_ptr<DemoSite>> site = DemoSite::Start(
      {.pages = pages, .slow_page_delay = absl::ZeroDuration()});
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

TEST(CrawlCommandLineTest, AUrlArgumentCrawlsTheSite) {
  std::unique_ptr<DemoSite> site = Site(40);
  ASSERT_NE(site, nullptr);
  const std::filesystem::path dir = FreshDir("url-argument");
  const int code = WaitFor(StartSieve(
      Cat({"crawl", site->root_url()}, Fast(dir / "out")), dir / "log.txt"));
  ASSERT_EQ(code, 0) << ReadFile(dir / "log.txt");
  EXPECT_EQ(FetchedPaths(dir / "out"), ExpectedPaths(*site));
}

TEST(CrawlCommandLineTest, SeedsDashReadsStandardInput) {
  std::unique_ptr<DemoSite> site = Site(40);
  ASSERT_NE(site, nullptr);
  const std::filesystem::path dir = FreshDir("seeds-stdin");
  std::ofstream(dir / "seeds.txt") << "# seeds\n" << site->root_url() << "\n";
  std::string command = absl::StrCat(SIEVE_BINARY, " crawl --seeds -");
  for (const std::string& arg : Fast(dir / "out")) {
    absl::StrAppend(&command, " '", arg, "'");
  }
  absl::StrAppend(&command, " < '", (dir / "seeds.txt").string(), "' > '",
                  (dir / "log.txt").string(), "' 2>&1");
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << ReadFile(dir / "log.txt");
  EXPECT_EQ(FetchedPaths(dir / "out"), ExpectedPaths(*site));
}

// The rule chosen: --resume DIR with seeds adds them through the Sieve, like
// links: a new site is crawled, a URL fetched before is not fetched again.
TEST(CrawlCommandLineTest, ResumeWithSeedsAddsTheNewOnes) {
  std::unique_ptr<DemoSite> first = Site(20);
  std::unique_ptr<DemoSite> second = Site(20);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  const std::filesystem::path dir = FreshDir("resume-seeds");
  const std::filesystem::path out = dir / "out";
  ASSERT_EQ(WaitFor(StartSieve(Cat({"crawl", first->root_url()}, Fast(out)),
                               dir / "log1.txt")),
            0)
      << ReadFile(dir / "log1.txt");
  const size_t first_requests = first->requests().size();
  std::ofstream(dir / "more.txt") << second->root_url() << "\n";
  ASSERT_EQ(
      WaitFor(StartSieve({"crawl", "--resume", out.string(), first->root_url(),
                          "--seeds", (dir / "more.txt").string()},
                         dir / "log2.txt")),
      0)
      << ReadFile(dir / "log2.txt");
  EXPECT_THAT(ReadFile(dir / "log2.txt"),
              HasSubstr("2 new seeds: 1 queued, 1 seen before"));
  // The first site is not fetched again (robots.txt aside: its rules are not
  // checkpointed).
  for (size_t i = first_requests; i < first->requests().size(); ++i) {
    EXPECT_EQ(first->requests()[i].path, "/robots.txt");
  }
  std::set<std::string> second_urls;
  for (const nlohmann::json& r : ReadPages(out)) {
    const std::string url = r["url"];
    if (absl::StartsWith(url, second->root_url()))
      second_urls.insert(PathOf(url));
  }
  EXPECT_EQ(second_urls, ExpectedPaths(*second));
}

// A page linking to /a, and a record of the headers each request carried.
struct HeaderSite {
  HttpServer http;
  std::mutex mu;
  std::vector<std::pair<std::string, std::string>> seen;  // path, header

  HeaderSite() {
    http.server().Get(".*", [this](const httplib::Request& req,
                                   httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mu);
        seen.emplace_back(req.path, req.get_header_value("X-Sieve-Test") + "|" +
                                        req.get_header_value("X-Other"));
      }
      if (req.path == "/") {
        res.set_content("<a href=\"/a\">a</a>", "text/html");
      } else if (req.path == "/a") {
        res.set_content("<p>a</p>", "text/html");
      } else {
        res.status = 404;
      }
    });
    http.Start();
  }
};

TEST(CrawlCommandLineTest, HeadersGoWithEveryRequest) {
  HeaderSite site;
  const std::filesystem::path dir = FreshDir("headers");
  ASSERT_EQ(WaitFor(StartSieve(
                Cat({"crawl", site.http.Url("/"), "--header",
                     "X-Sieve-Test: one, two", "--header", "X-Other: 3"},
                    Fast(dir / "out")),
                dir / "log.txt")),
            0)
      << ReadFile(dir / "log.txt");
  std::lock_guard<std::mutex> lock(site.mu);
  std::set<std::string> paths;
  for (const auto& [path, header] : site.seen) {
    paths.insert(path);
    EXPECT_EQ(header, "one, two|3") << path;
  }
  EXPECT_EQ(paths, (std::set<std::string>{"/", "/a", "/robots.txt"}));
}

// A forward proxy: takes "GET http://host:port/path", fetches it from the
// target server and answers with what it got; records each request target.
struct ForwardProxy {
  HttpServer http;
  std::mutex mu;
  std::vector<std::string> targets;

  ForwardProxy() {
    http.server().Get(
        ".*", [this](const httplib::Request& req, httplib::Response& res) {
          std::string target = req.target;
          {
            std::lock_guard<std::mutex> lock(mu);
            targets.push_back(target);
          }
          // "http://127.0.0.1:PORT/path"
          const size_t scheme = target.find("://");
          const size_t slash = target.find('/', scheme + 3);
          if (scheme == std::string::npos || slash == std::string::npos) {
            res.status = 400;
            return;
          }
          httplib::Client client(target.substr(0, slash));
          client.set_connection_timeout(5);
          client.set_read_timeout(5);
          httplib::Result got = client.Get(target.substr(slash));
          if (!got) {
            res.status = 502;
            return;
          }
          res.status = got->status;
          res.set_content(got->body, got->get_header_value("Content-Type"));
        });
    http.Start();
  }
};

TEST(CrawlCommandLineTest, ProxyCarriesEveryRequest) {
  HeaderSite site;
  ForwardProxy proxy;
  const std::filesystem::path dir = FreshDir("proxy");
  ASSERT_EQ(WaitFor(StartSieve(
                Cat({"crawl", site.http.Url("/"), "--proxy",
                     absl::StrCat("http://127.0.0.1:", proxy.http.port())},
                    Fast(dir / "out")),
                dir / "log.txt")),
            0)
      << ReadFile(dir / "log.txt");
  std::lock_guard<std::mutex> lock(proxy.mu);
  std::set<std::string> targets(proxy.targets.begin(), proxy.targets.end());
  EXPECT_EQ(targets,
            (std::set<std::string>{site.http.Url("/"), site.http.Url("/a"),
                                   site.http.Url("/robots.txt")}));
  std::set<std::string> ok;
  for (const nlohmann::json& r : ReadPages(dir / "out")) {
    if (r["status"] == 200) ok.insert(PathOf(r["url"]));
  }
  EXPECT_EQ(ok, (std::set<std::string>{"/", "/a"}));
}

}  // namespace
}  // namespace sieve
