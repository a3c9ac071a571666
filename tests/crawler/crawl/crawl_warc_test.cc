// A `--warc` crawl of the test site, in-process: every fetched URL archived as
// a request and a response (or revisit) record whose digests verify, files
// rotated at a small warc_max_bytes, each opening with warcinfo, pages.jsonl
// and the CDXJ pointing at each URL's response, identical bytes at a second
// URL stored as a revisit; and webrecorder's warcio (npm) indexing the files
// when it is installed.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "crawler/demo/demo_site.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/crawl_warc_check.h"
#include "tests/crawler/crawl/site_answer_key.h"
#include "tests/crawler/output/warc_test_util.h"

namespace sieve {
namespace {

using testing_util::CrawlInProcess;
using testing_util::CrawlWarc;
using testing_util::FastConfig;
using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadPages;

class CrawlWarcTest : public testing::Test {
 protected:
  // One crawl for all the tests here (a few seconds).
  static void SetUpTestSuite() {
    absl::StatusOr<std::unique_ptr<DemoSite>> site = DemoSite::Start(
        {.pages = 300, .slow_page_delay = absl::Milliseconds(1500)});
    ASSERT_TRUE(site.ok()) << site.status();
    site_ = site->release();
    out_ = new std::filesystem::path(FreshDir("warc"));
    CrawlConfig config = FastConfig(*out_);
    config.output.warc = true;
    config.output.warc_max_bytes = 64 << 10;  // Several files.
    absl::StatusOr<CrawlSummary> summary =
        CrawlInProcess(config, {site_->root_url()});
    ASSERT_TRUE(summary.ok()) << summary.status();
    summary_ = new CrawlSummary(*summary);
    warc_ = new CrawlWarc(testing_util::CheckCrawlWarc(*out_));
  }
  static void TearDownTestSuite() {
    delete warc_;
    delete summary_;
    delete out_;
    delete site_;
  }
  void SetUp() override { ASSERT_NE(warc_, nullptr) << "the crawl failed"; }

  static DemoSite* site_;
  static std::filesystem::path* out_;
  static CrawlSummary* summary_;
  static CrawlWarc* warc_;
};

DemoSite* CrawlWarcTest::site_ = nullptr;
std::filesystem::path* CrawlWarcTest::out_ = nullptr;
CrawlSummary* CrawlWarcTest::summary_ = nullptr;
CrawlWarc* CrawlWarcTest::warc_ = nullptr;

TEST_F(CrawlWarcTest, EveryFetchedUrlHasARequestAndOneResponseRecord) {
  // CheckCrawlWarc has verified every digest, warcinfo at the head of each
  // file, the CDXJ and the pages.jsonl offsets.
  EXPECT_GT(warc_->files.size(), 2u) << "rotation at 64 KiB";
  int answered = 0;
  for (const nlohmann::json& page : ReadPages(*out_)) {
    const std::string url = page["url"];
    if (page["status"].get<int>() == 0) {
      // No answer (the slow page's timeout): nothing to archive.
      EXPECT_FALSE(page.contains("warc_file")) << page.dump();
      continue;
    }
    ++answered;
    EXPECT_TRUE(page.contains("warc_file")) << page.dump();
    EXPECT_GE(warc_->requests[url], 1) << url;
    EXPECT_EQ(warc_->responses[url], 1) << url;
  }
  EXPECT_GT(answered, 300);
  // robots.txt and the sitemaps are archived too.
  const std::string robots = site_->root_url() + "robots.txt";
  EXPECT_EQ(warc_->requests[robots], 1);
  EXPECT_EQ(warc_->responses[robots], 1);
  for (const std::string& path :
       testing_util::Expected(site_->graph()).sitemaps) {
    const std::string url = absl::StrCat("http://", site_->authority(), path);
    EXPECT_EQ(warc_->responses[url], 1) << url;
  }
  // Every request has its response and nothing else is there.
  for (const auto& [uri, n] : warc_->requests) {
    EXPECT_EQ(warc_->responses[uri], n) << uri;
  }
  EXPECT_EQ(
      summary_->counters.warc_responses + summary_->counters.warc_revisits,
      static_cast<uint64_t>(answered + 1));
  EXPECT_EQ(summary_->counters.warc_revisits,
            static_cast<uint64_t>(warc_->revisits));
}

TEST_F(CrawlWarcTest, TheSecondOfTwoUrlsServingTheSameBytesIsARevisit) {
  const std::string a = site_->root_url() + "same/a.html";
  const std::string b = site_->root_url() + "same/b.html";
  ASSERT_TRUE(warc_->last_response.contains(a));
  ASSERT_TRUE(warc_->last_response.contains(b));
  const WarcRecord& ra = warc_->last_response[a];
  const WarcRecord& rb = warc_->last_response[b];
  // Fetched in either order: one is the response, the other the revisit
  // pointing at it.
  const bool a_first = ra.Field("WARC-Type") == "response";
  const WarcRecord& first = a_first ? ra : rb;
  const WarcRecord& second = a_first ? rb : ra;
  EXPECT_EQ(first.Field("WARC-Type"), "response");
  EXPECT_EQ(second.Field("WARC-Type"), "revisit");
  EXPECT_EQ(second.Field("WARC-Refers-To-Target-URI"),
            first.Field("WARC-Target-URI"));
  EXPECT_EQ(second.Field("WARC-Refers-To-Date"), first.Field("WARC-Date"));
  EXPECT_THAT(second.Field("WARC-Profile"),
              testing::HasSubstr("identical-payload-digest"));
  EXPECT_EQ(second.Field("WARC-Payload-Digest"),
            first.Field("WARC-Payload-Digest"));
  EXPECT_GE(summary_->counters.warc_revisits, 1u);
}

TEST_F(CrawlWarcTest, WarcioIndexesEveryRecordOfEveryFile) {
  const std::string warcio = testing_warc::FindWarcio();
  if (warcio.empty()) {
    GTEST_SKIP() << "warcio not found (scripts/install-deps.sh installs it "
                    "with npm; or set SIEVE_WARCIO): independent check skipped";
  }
  for (const std::filesystem::path& file : warc_->files) {
    const std::string command = absl::StrCat(warcio, " index ", file.string(),
                                             " --fields offset,warc-type");
    FILE* pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string text;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof(buf), pipe)) > 0;)
      text.append(buf, n);
    EXPECT_EQ(pclose(pipe), 0) << command << "\n" << text;
    std::vector<std::string> lines =
        absl::StrSplit(text, '\n', absl::SkipEmpty());
    const std::vector<WarcRecord> ours = testing_warc::ReadAll(file);
    ASSERT_EQ(lines.size(), ours.size()) << file;
    for (size_t i = 0; i < ours.size(); ++i) {
      const nlohmann::json j = nlohmann::json::parse(lines[i]);
      EXPECT_EQ(j["offset"].get<int64_t>(), ours[i].offset) << lines[i];
      EXPECT_EQ(j["warc-type"], ours[i].Field("WARC-Type")) << lines[i];
    }
  }
}

// The same site archived by GNU wget (`wget --recursive --warc-file`), a WARC
// writer no one here wrote: the pages both fetch are the same URLs, and each
// URL's payload digest is the same in both archives.
TEST_F(CrawlWarcTest, ArchivesTheSameUrlsAndPayloadsAsWget) {
  if (std::system("wget --version >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "wget not installed: comparison skipped";
  }
  const test::ScopedTempDir dir;
  const std::filesystem::path base = dir.path() / "wget";
  // Host scope and robots.txt as Sieve's defaults; one try, bounded waits.
  // wget has no trap rule: the site's endless /t/x/x/... is left out of the
  // comparison on both sides.
  const std::string command = absl::StrCat(
      "cd ", dir.path().string(), " && timeout 120 wget -q --recursive ",
      "--level=inf --reject-regex=/t/ --tries=1 --timeout=5 ",
      "--no-warc-keep-log --delete-after ", "--warc-file=", base.string(), " ",
      site_->root_url());
  // wget exits 8 when some answers were errors (the site's 404 pages).
  const int rc = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(rc) && (WEXITSTATUS(rc) == 0 || WEXITSTATUS(rc) == 8))
      << command;
  std::map<std::string, std::string> theirs;  // URI -> payload digest.
  for (const WarcRecord& r :
       testing_warc::ReadAll(base.string() + ".warc.gz")) {
    if (r.Field("WARC-Type") != "response") continue;
    std::string uri = r.Field("WARC-Target-URI");
    // wget writes the URI in angle brackets (the WARC 1.0 examples' form).
    if (uri.size() > 2 && uri.front() == '<')
      uri = uri.substr(1, uri.size() - 2);
    theirs[uri] = r.Field("WARC-Payload-Digest");
  }
  // Every page of the answer key is in both archives with the same payload.
  const testing_util::ExpectedCrawl key = testing_util::Expected(
      site_->graph(), /*max_depth=*/0, /*max_redirects=*/5, /*sitemaps=*/false);
  int compared = 0;
  for (const auto& [path, depth] : key.fetched) {
    if (path == "/slow.html") continue;  // Sieve's test timeout cuts it.
    if (path.starts_with("/t/")) continue;
    const std::string url = absl::StrCat("http://", site_->authority(), path);
    ASSERT_TRUE(theirs.contains(url)) << url << " not in wget's archive";
    ASSERT_TRUE(warc_->last_response.contains(url)) << url;
    EXPECT_EQ(warc_->last_response[url].Field("WARC-Payload-Digest"),
              theirs[url])
        << url;
    ++compared;
  }
  EXPECT_GT(compared, 300);
  // What wget fetched and Sieve did not, each for a reason of its rules.
  const std::string site = absl::StrCat("http://", site_->authority());
  for (const auto& [url, digest] : theirs) {
    if (warc_->last_response.contains(url)) continue;
    const std::string path = url.substr(site.size());
    const bool explained =
        path.starts_with("/nofollow/") ||  // Sieve obeys rel=nofollow.
        path.starts_with("/chain/") ||     // Past Sieve's 5 redirects.
        path == "/style.css" ||            // A stylesheet, not a link.
        path == "/slow.html";              // Sieve's test timeout.
    EXPECT_TRUE(explained) << url << " only in wget's archive";
  }
}

}  // namespace
}  // namespace sieve
