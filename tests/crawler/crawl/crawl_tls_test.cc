// TLS settings through the real `sieve` binary: the test site served over
// HTTPS on 127.0.0.1 with a certificate from a CA the test makes (openssl
// command-line tool). By default the CA is unknown, so the crawl records a
// `tls` failure naming the certificate problem; with --ca-bundle, or the
// CA in CURL_CA_BUNDLE / SSL_CERT_FILE, the whole site is crawled; --insecure
// crawls it without verifying.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crawler/demo/demo_site.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/site_answer_key.h"
#include "tests/fetch/test_pki.h"

namespace sieve {
namespace {

using ::testing::HasSubstr;
using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

namespace fs = std::filesystem;

class CrawlTlsTest : public testing::Test {
 protected:
  void SetUp() override {
    // The child inherits the environment: only the test that sets these
    // variables may have them.
    unsetenv("CURL_CA_BUNDLE");
    unsetenv("SSL_CERT_FILE");
    dir_ =
        FreshDir(testing::UnitTest::GetInstance()->current_test_info()->name());
    if (!fetch_test::MakeTestPki(dir_, &pki_)) {
      GTEST_SKIP() << "the openssl command is missing or failed in " << dir_;
    }
    absl::StatusOr<std::unique_ptr<DemoSite>> site =
        DemoSite::Start({.pages = 60,
                         .slow_page_delay = absl::Milliseconds(100),
                         .tls_cert_file = pki_.cert,
                         .tls_key_file = pki_.key});
    ASSERT_TRUE(site.ok()) << site.status();
    site_ = std::move(*site);
    seeds_ = dir_ / "seeds.txt";
    std::ofstream(seeds_) << site_->root_url() << "\n";
  }
  void TearDown() override {
    unsetenv("CURL_CA_BUNDLE");
    unsetenv("SSL_CERT_FILE");
  }

  // Runs `sieve crawl` on the site with `extra` flags; returns its exit code.
  int Crawl(const std::string& name, std::vector<std::string> extra) {
    out_ = dir_ / name;
    log_ = dir_ / (name + ".log");
    // Short back-offs: a robots.txt that fails is retried after them.
    const fs::path config = dir_ / "config.toml";
    std::ofstream(config) << "[politeness]\nbackoff_initial = 0.05\n"
                             "backoff_max = 0.1\n";
    std::vector<std::string> args = {
        "crawl",    "--seeds",       seeds_.string(), "--out", out_.string(),
        "--config", config.string(), "--delay",       "0",     "--sitemaps",
        "off",      "--log-level",   "debug"};
    args.insert(args.end(), extra.begin(), extra.end());
    return WaitFor(StartSieve(args, log_));
  }

  // Every page the site's graph reaches, each recorded once with status 200
  // (or what the graph answers).
  void ExpectTheWholeSite() {
    std::map<std::string, int> seen;
    for (const nlohmann::json& page : ReadPages(out_)) {
      ++seen[PathOf(page["url"])];
      // The site's 404s and its over-long redirect chain are its own.
      EXPECT_NE(page["error"], "tls") << page.dump();
      EXPECT_NE(page["error"], "robots_unavailable") << page.dump();
    }
    const testing_util::ExpectedCrawl expected =
        testing_util::Expected(site_->graph(), 0, 5, /*sitemaps=*/false);
    for (const auto& [path, depth] : expected.fetched)
      EXPECT_EQ(seen[path], 1) << path;
    EXPECT_EQ(seen.size(), expected.fetched.size());
  }

  fs::path dir_;
  fetch_test::TestPki pki_;
  std::unique_ptr<DemoSite> site_;
  fs::path seeds_;
  fs::path out_;
  fs::path log_;
};

TEST_F(CrawlTlsTest, AnUnknownCaFailsWithTheCertificateProblemNamed) {
  EXPECT_EQ(Crawl("default", {}), 0) << ReadFile(log_);
  const std::vector<nlohmann::json> pages = ReadPages(out_);
  ASSERT_EQ(pages.size(), 1u) << ReadFile(log_);
  EXPECT_EQ(pages[0]["url"], site_->root_url());
  EXPECT_FALSE(pages[0]["error"].is_null()) << pages[0].dump();
  EXPECT_EQ(pages[0]["status"], 0) << pages[0].dump();
  // robots.txt failed first: the record and the log name the code and quote
  // curl's reason.
  EXPECT_EQ(pages[0]["error"], "tls") << pages[0].dump();
  EXPECT_THAT(pages[0]["error_detail"].get<std::string>(),
              HasSubstr("SSL certificate problem: unable to get local issuer "
                        "certificate"));
  EXPECT_THAT(ReadFile(log_),
              HasSubstr("tls: robots.txt: SSL certificate problem: unable to "
                        "get local issuer certificate"));
}

TEST_F(CrawlTlsTest, CaBundleCrawlsTheWholeSite) {
  EXPECT_EQ(Crawl("ca_bundle", {"--ca-bundle", pki_.ca}), 0) << ReadFile(log_);
  ExpectTheWholeSite();
  EXPECT_THAT(ReadFile(log_), HasSubstr(pki_.ca));
  EXPECT_THAT(ReadFile(log_), HasSubstr("open-file limit"));
  // One host, one request at a time: one connection carries the whole crawl
  // (summary.json's "fetch", fetch/fetch_counters.h); its host, 127.0.0.1,
  // is no name to look up.
  const nlohmann::json summary =
      nlohmann::json::parse(ReadFile(out_ / "summary.json"));
  const nlohmann::json& fetch = summary["fetch"];
  EXPECT_LE(fetch["connections_opened"].get<int>(), 2) << fetch.dump();
  EXPECT_GT(fetch["connections_reused"].get<int>(), 50) << fetch.dump();
  EXPECT_EQ(fetch["tls_full_handshakes"].get<int>() +
                fetch["tls_resumed_handshakes"].get<int>(),
            fetch["connections_opened"].get<int>())
      << fetch.dump();
  EXPECT_EQ(fetch["dns_lookups"], 0) << fetch.dump();
}

TEST_F(CrawlTlsTest, CurlCaBundleFromTheEnvironmentIsHonoured) {
  setenv("CURL_CA_BUNDLE", pki_.ca.c_str(), 1);
  setenv("SSL_CERT_FILE", "/nonexistent/ignored.pem", 1);
  EXPECT_EQ(Crawl("curl_ca_bundle", {}), 0) << ReadFile(log_);
  ExpectTheWholeSite();
}

TEST_F(CrawlTlsTest, SslCertFileFromTheEnvironmentIsHonoured) {
  setenv("SSL_CERT_FILE", pki_.ca.c_str(), 1);
  EXPECT_EQ(Crawl("ssl_cert_file", {}), 0) << ReadFile(log_);
  ExpectTheWholeSite();
}

TEST_F(CrawlTlsTest, InsecureCrawlsWithoutVerifying) {
  EXPECT_EQ(Crawl("insecure", {"--insecure"}), 0) << ReadFile(log_);
  ExpectTheWholeSite();
  EXPECT_THAT(ReadFile(log_), HasSubstr("NOT verified"));
}

TEST_F(CrawlTlsTest, AMissingCaBundleIsRefusedAtStart) {
  EXPECT_NE(Crawl("missing", {"--ca-bundle", (dir_ / "none.pem").string()}), 0);
  EXPECT_THAT(ReadFile(log_), HasSubstr("ca_bundle"));
}

}  // namespace
}  // namespace sieve
