// What a render's requests carry to the handler and what its answers give
// the page, with the real Chromium (no network: a handler answers from
// memory): the page's method and headers; the browser context's cookies for
// the request's URL, those the document set and those an answer set (which
// document.cookie sees too), never another host's; and the answer's headers
// reaching the page.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "render/browser.h"
#include "tests/render/render_test_util.h"

namespace sieve {
namespace {

using ::testing::Contains;

// Answers every URL with 200, the headers given for it, and an empty body
// (or the one given); records every request.
class RecordingSite : public RenderHandler {
 public:
  void Add(const std::string& url, HttpHeaders headers, std::string body = "") {
    files_[url] = {std::move(headers), std::move(body)};
  }

  absl::StatusOr<SubresourceResponse> Fetch(
      const SubresourceRequest& request) override {
    {
      absl::MutexLock lock(&mu_);
      asked_.push_back(request);
    }
    SubresourceResponse response;
    if (auto it = files_.find(request.url); it != files_.end()) {
      response.headers = it->second.first;
      response.body = it->second.second;
    } else {
      response.headers = {{"Content-Type", "text/plain"}};
    }
    return response;
  }

  // The request for `url`; null when it was not asked for.
  std::unique_ptr<SubresourceRequest> Asked(const std::string& url) const {
    absl::MutexLock lock(&mu_);
    for (const SubresourceRequest& request : asked_) {
      if (request.url == url) {
        return std::make_unique<SubresourceRequest>(request);
      }
    }
    return nullptr;
  }

 private:
  std::map<std::string, std::pair<HttpHeaders, std::string>> files_;
  mutable absl::Mutex mu_;
  std::vector<SubresourceRequest> asked_;
};

// The value of header `name` (any case) of `request`; "" when absent.
std::string HeaderOf(const SubresourceRequest& request,
                     const std::string& name) {
  for (const auto& [n, value] : request.headers) {
    if (absl::EqualsIgnoreCase(n, name)) return value;
  }
  return "";
}

class RenderRequestsTest : public render_test::SharedBrowserTest {};

TEST_F(RenderRequestsTest, TheHandlerGetsThePagesMethodAndHeaders) {
  RecordingSite site;
  absl::StatusOr<RenderResult> result = browser_->Render(
      render_test::HtmlPage(
          "http://app.test/",
          "<!doctype html><script>"
          "fetch('/api.json', {headers: {'X-Requested-With': 'sieve-test', "
          "'Accept': 'application/json'}});"
          "fetch('/probe', {method: 'HEAD'});"
          "</script>"),
      site, RenderOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  std::unique_ptr<SubresourceRequest> api =
      site.Asked("http://app.test/api.json");
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api->method, "GET");
  EXPECT_EQ(HeaderOf(*api, "X-Requested-With"), "sieve-test");
  EXPECT_EQ(HeaderOf(*api, "Accept"), "application/json");
  EXPECT_EQ(HeaderOf(*api, "User-Agent"), "");
  std::unique_ptr<SubresourceRequest> head =
      site.Asked("http://app.test/probe");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->method, "HEAD");
}

// The browser's identity stays in the browser: neither its User-Agent nor
// the client hints that name it (Sec-CH-UA*, sent from secure origins).
TEST_F(RenderRequestsTest, NoHeaderNamesTheBrowser) {
  RecordingSite site;
  absl::StatusOr<RenderResult> result = browser_->Render(
      render_test::HtmlPage("https://app.test/",
                            "<!doctype html><script src=\"/app.js\"></script>"
                            "<script>fetch('/api.json');</script>"),
      site, RenderOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  for (const char* url :
       {"https://app.test/app.js", "https://app.test/api.json"}) {
    std::unique_ptr<SubresourceRequest> asked = site.Asked(url);
    ASSERT_NE(asked, nullptr) << url;
    for (const auto& [name, value] : asked->headers) {
      EXPECT_FALSE(absl::StartsWithIgnoreCase(name, "sec-ch-ua"))
          << url << ": " << name << ": " << value;
      EXPECT_FALSE(absl::EqualsIgnoreCase(name, "user-agent")) << url;
      EXPECT_FALSE(absl::StrContains(value, "HeadlessChrome"))
          << url << ": " << name << ": " << value;
    }
  }
}

TEST_F(RenderRequestsTest, RequestsCarryTheContextsCookiesForTheirUrl) {
  RecordingSite site;
  site.Add("http://jar.test/login",
           {{"Content-Type", "text/plain"}, {"Set-Cookie", "s=1; Path=/"}});
  site.Add("http://jar.test/app.js", {{"Content-Type", "text/javascript"}},
           "(async () => {"
           "  await fetch('/login');"
           "  await fetch('/after');"
           "  await fetch('http://other.test/x', {mode: 'no-cors'});"
           "  const a = document.createElement('a');"
           "  a.href = '/seen?' + document.cookie.split('; ').sort().join('&');"
           "  document.body.appendChild(a);"
           "})();");
  PageToRender page = render_test::HtmlPage(
      "http://jar.test/", "<!doctype html><script src=\"/app.js\"></script>");
  page.headers.emplace_back("Set-Cookie", "doc=1; Path=/");
  absl::StatusOr<RenderResult> result =
      browser_->Render(page, site, RenderOptions{});
  ASSERT_TRUE(result.ok()) << result.status();

  // The document's cookie, on its first subresource.
  std::unique_ptr<SubresourceRequest> script =
      site.Asked("http://jar.test/app.js");
  ASSERT_NE(script, nullptr);
  EXPECT_EQ(HeaderOf(*script, "Cookie"), "doc=1");
  // The answer's cookie, on the next request (the jar's order).
  std::unique_ptr<SubresourceRequest> after =
      site.Asked("http://jar.test/after");
  ASSERT_NE(after, nullptr);
  const std::string cookie = HeaderOf(*after, "Cookie");
  EXPECT_TRUE(cookie == "doc=1; s=1" || cookie == "s=1; doc=1") << cookie;
  // None of them to another host.
  std::unique_ptr<SubresourceRequest> other = site.Asked("http://other.test/x");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(HeaderOf(*other, "Cookie"), "");
  // The page's script sees both.
  EXPECT_THAT(result->links, Contains("http://jar.test/seen?doc=1&s=1"));
}

}  // namespace
}  // namespace sieve
