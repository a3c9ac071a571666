// Shared by the render tests: a site served from memory through the
// RenderHandler (no server, no network), the skip when Chromium is absent, and
// a fixture whose tests share one browser.
#ifndef SIEVE_TESTS_RENDER_RENDER_TEST_UTIL_H_
#define SIEVE_TESTS_RENDER_RENDER_TEST_UTIL_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "render/browser.h"
#include "render/browser_process.h"
#include "render/render_types.h"

namespace sieve::render_test {

#define SIEVE_SKIP_WITHOUT_CHROMIUM()                                     \
  do {                                                                    \
    if (!::sieve::BrowserProcess::Installed(::sieve::BrowserOptions{})) { \
      GTEST_SKIP() << "chromium-headless-shell is not installed "         \
                      "(scripts/install-deps.sh installs it)";            \
    }                                                                     \
  } while (0)

// Tests that share one browser, launched for the suite (each test binary has
// its own); a test skips when Chromium is absent.
class SharedBrowserTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!BrowserProcess::Installed(BrowserOptions{})) return;
    absl::StatusOr<std::unique_ptr<Browser>> launched =
        Browser::Launch(BrowserOptions{});
    ASSERT_TRUE(launched.ok()) << launched.status();
    browser_ = std::move(*launched).release();
  }
  static void TearDownTestSuite() {
    delete browser_;
    browser_ = nullptr;
  }
  void SetUp() override { SIEVE_SKIP_WITHOUT_CHROMIUM(); }

  static inline Browser* browser_ = nullptr;
};

// Answers from a map of URL -> (content type, body); refuses URLs in
// `refused` and unknown ones. Records every URL it was asked for.
class MemorySite : public RenderHandler {
 public:
  void Add(const std::string& url, const std::string& type,
           const std::string& body) {
    files_[url] = {type, body};
  }
  void Refuse(const std::string& url) { refused_.insert(url); }

  absl::StatusOr<SubresourceResponse> Fetch(
      const SubresourceRequest& request) override {
    {
      absl::MutexLock lock(&mu_);
      asked_.push_back(request.url);
    }
    if (refused_.count(request.url) != 0) {
      return absl::PermissionDeniedError("disallowed by robots.txt");
    }
    auto it = files_.find(request.url);
    if (it == files_.end()) return absl::NotFoundError("no such file");
    SubresourceResponse response;
    response.headers = {{"Content-Type", it->second.first}};
    response.body = it->second.second;
    return response;
  }

  std::vector<std::string> asked() const {
    absl::MutexLock lock(&mu_);
    return asked_;
  }

 private:
  std::map<std::string, std::pair<std::string, std::string>> files_;
  std::set<std::string> refused_;
  mutable absl::Mutex mu_;
  std::vector<std::string> asked_;
};

inline PageToRender HtmlPage(const std::string& url, const std::string& html) {
  PageToRender page;
  page.url = url;
  page.headers = {{"Content-Type", "text/html; charset=utf-8"}};
  page.body = html;
  return page;
}

}  // namespace sieve::render_test

#endif  // SIEVE_TESTS_RENDER_RENDER_TEST_UTIL_H_
