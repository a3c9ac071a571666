// Tests of render/caching_handler.h (no browser): repeated scripts and
// stylesheets are answered once, other requests always pass through, the
// byte bound holds, a cached answer sets no cookie.
#include "render/caching_handler.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/render/render_test_util.h"

namespace sieve {
namespace {

SubresourceRequest Get(const std::string& url, const std::string& type) {
  SubresourceRequest request;
  request.url = url;
  request.method = "GET";
  request.resource_type = type;
  return request;
}

TEST(CachingHandlerTest, ARepeatedScriptOrStylesheetIsFetchedOnce) {
  render_test::MemorySite site;
  site.Add("http://a.test/app.js", "text/javascript", "var x;");
  site.Add("http://a.test/app.css", "text/css", "p{}");
  CachingHandler cached(site);
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<SubresourceResponse> js =
        cached.Fetch(Get("http://a.test/app.js", "Script"));
    ASSERT_TRUE(js.ok());
    EXPECT_EQ(js->body, "var x;");
    EXPECT_EQ(js->from_cache, i > 0);
    ASSERT_TRUE(cached.Fetch(Get("http://a.test/app.css", "Stylesheet")).ok());
  }
  EXPECT_EQ(site.asked().size(), 2u);
  EXPECT_EQ(cached.hits(), 4);
  EXPECT_EQ(cached.misses(), 2);
}

TEST(CachingHandlerTest, DataRequestsAndRefusalsAreNeverCached) {
  render_test::MemorySite site;
  site.Add("http://a.test/nav.json", "application/json", "[]");
  site.Refuse("http://a.test/x.js");
  CachingHandler cached(site);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(cached.Fetch(Get("http://a.test/nav.json", "XHR")).ok());
    EXPECT_FALSE(cached.Fetch(Get("http://a.test/x.js", "Script")).ok());
  }
  EXPECT_EQ(site.asked().size(), 4u);
  EXPECT_EQ(cached.bytes(), 0);
}

// A cookie is the answer of one request, not of the asset: the copy kept has
// no Set-Cookie, so another page's render (another host's browser context)
// is not handed it again.
TEST(CachingHandlerTest, ACachedAnswerSetsNoCookie) {
  class CookieSite : public RenderHandler {
   public:
    absl::StatusOr<SubresourceResponse> Fetch(
        const SubresourceRequest&) override {
      SubresourceResponse response;
      response.headers = {{"Content-Type", "text/javascript"},
                          {"Set-Cookie", "s=1"},
                          {"set-cookie", "t=2"},
                          {"Cache-Control", "max-age=60"}};
      response.body = "var x;";
      return response;
    }
  } site;
  CachingHandler cached(site);
  absl::StatusOr<SubresourceResponse> first =
      cached.Fetch(Get("http://a.test/app.js", "Script"));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->headers.size(), 4u);
  absl::StatusOr<SubresourceResponse> again =
      cached.Fetch(Get("http://a.test/app.js", "Script"));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->from_cache);
  const HttpHeaders kept = {{"Content-Type", "text/javascript"},
                            {"Cache-Control", "max-age=60"}};
  EXPECT_EQ(again->headers, kept);
}

TEST(CachingHandlerTest, TheLeastRecentlyUsedGoFirstPastTheByteBound) {
  render_test::MemorySite site;
  for (char c = 'a'; c <= 'c'; ++c) {
    site.Add(std::string("http://a.test/") + c + ".js", "text/javascript",
             std::string(100, c));
  }
  CachingHandler cached(site, 200);  // 2 of them fit
  cached.Fetch(Get("http://a.test/a.js", "Script")).IgnoreError();
  cached.Fetch(Get("http://a.test/b.js", "Script")).IgnoreError();
  cached.Fetch(Get("http://a.test/a.js", "Script")).IgnoreError();  // hit
  cached.Fetch(Get("http://a.test/c.js", "Script")).IgnoreError();  // a, b, c
  cached.Fetch(Get("http://a.test/d.js", "Script")).IgnoreError();  // unknown
  EXPECT_LE(cached.bytes(), 200);
  EXPECT_EQ(cached.hits(), 1);
  const size_t before = site.asked().size();
  cached.Fetch(Get("http://a.test/c.js", "Script")).IgnoreError();
  cached.Fetch(Get("http://a.test/a.js", "Script")).IgnoreError();
  EXPECT_EQ(site.asked().size(), before);  // both still cached
  cached.Fetch(Get("http://a.test/b.js", "Script")).IgnoreError();
  EXPECT_EQ(site.asked().size(), before + 1);  // b was dropped
}

}  // namespace
}  // namespace sieve
