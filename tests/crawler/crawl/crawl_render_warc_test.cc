// A render in the archive (#38, "Archive"), through the `sieve` binary with
// --warc: every subresource the render fetched has its request and response
// records (a script two pages share: fetched once, archived once), and each
// render adds one resource record under "urn:sieve:render:<page>" holding
// the rendered DOM and every request with its fate (fetched, cached, refused
// by robots.txt); the CDXJ lists them all (CheckCrawlWarc). Skips without
// chromium-headless-shell.
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/crawl_warc_check.h"
#include "tests/crawler/crawl/gated_site.h"
#include "tests/render/render_test_util.h"

namespace sieve {
namespace {

using testing_util::CheckCrawlWarc;
using testing_util::CrawlWarc;
using testing_util::FreshDir;
using testing_util::GatedSite;
using testing_util::ReadFile;
using testing_util::StartSieve;
using testing_util::WaitFor;

constexpr char kHtml[] = "text/html";
constexpr char kJs[] = "text/javascript";

// / and /next.html both run /app.js, which adds the link /api.json names;
// / also asks for a script robots.txt disallows.
GatedSite::Files AppFiles() {
  const std::string app =
      "<!doctype html><div id=\"app\"></div>"
      "<script src=\"/app.js\"></script>";
  return {
      {"/robots.txt", {"text/plain", "User-agent: *\nDisallow: /private/\n"}},
      {"/",
       {kHtml, app + "<script src=\"/private/t.js\"></script>"
                     "<a href=\"/next.html\">next</a>"}},
      {"/next.html", {kHtml, app}},
      {"/app.js",
       {kJs,
        "fetch('/api.json').then(r => r.json()).then(j => "
        "document.getElementById('app').insertAdjacentHTML('beforeend', "
        "'<a href=\"' + j.href + '\">made</a>'));"}},
      {"/private/t.js", {kJs, "var t = 1;"}},
      {"/api.json", {"application/json", R"({"href":"/made.html"})"}},
      {"/made.html", {kHtml, "<!doctype html><p>made by a script</p>"}},
  };
}

// The request of `render` to `url`; null when it made none.
const nlohmann::json* RequestTo(const nlohmann::json& render,
                                const std::string& url) {
  for (const nlohmann::json& request : render["requests"]) {
    if (request.value("url", "") == url) return &request;
  }
  return nullptr;
}

TEST(CrawlRenderWarcTest, ArchivesEachRenderAndItsSubresources) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  GatedSite site(AppFiles());
  const std::filesystem::path dir = FreshDir("render-warc");
  // One tab: the renders take turns, so the second finds /app.js cached.
  const int rc = WaitFor(StartSieve(
      {"crawl", site.url("/"), "--out", (dir / "out").string(), "--delay", "0",
       "--warc", "--render", "always", "--set", "render.tabs=1"},
      dir / "log.txt"));
  const std::string log = ReadFile(dir / "log.txt");
  ASSERT_EQ(rc, 0) << log;
  const CrawlWarc warc = CheckCrawlWarc(dir / "out");

  // The subresources: request and response records; the shared script
  // fetched and archived once.
  for (const char* path : {"/app.js", "/api.json"}) {
    EXPECT_GE(warc.responses.count(site.url(path)), 1u) << path << "\n" << log;
    EXPECT_GE(warc.requests.count(site.url(path)), 1u) << path;
  }
  EXPECT_EQ(site.Requests("/app.js"), 1);
  EXPECT_EQ(warc.responses.at(site.url("/app.js")), 1);
  EXPECT_EQ(site.Requests("/private/t.js"), 0);

  // One resource record per render (/, /next.html, /made.html), under its
  // urn:, never the page's URL.
  EXPECT_EQ(warc.resources.size(), 3u);
  for (const char* path : {"/", "/next.html"}) {
    const std::string urn = "urn:sieve:render:" + site.url(path);
    ASSERT_TRUE(warc.resources.count(urn)) << urn;
    const WarcRecord& record = warc.resources.at(urn);
    EXPECT_EQ(record.Field("Content-Type"), "application/json");
    const nlohmann::json render = nlohmann::json::parse(
        record.block, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(render.is_object()) << record.block;
    EXPECT_EQ(render.value("url", ""), site.url(path));
    // The DOM as rendered: the link the script made from the JSON.
    EXPECT_TRUE(absl::StrContains(render.value("dom", ""),
                                  "<a href=\"/made.html\">made</a>"))
        << render.dump();
    const nlohmann::json* script = RequestTo(render, site.url("/app.js"));
    ASSERT_NE(script, nullptr) << render.dump();
    EXPECT_EQ(script->value("type", ""), "Script");
    // Fetched for the first render, from the cache for the second.
    EXPECT_EQ(script->value("fate", ""),
              std::string(path) == "/" ? "fetched" : "cached");
    const nlohmann::json* json = RequestTo(render, site.url("/api.json"));
    ASSERT_NE(json, nullptr) << render.dump();
    EXPECT_EQ(json->value("fate", ""), "fetched");
  }
  const nlohmann::json home = nlohmann::json::parse(
      warc.resources.at("urn:sieve:render:" + site.url("/")).block);
  const nlohmann::json* refused = RequestTo(home, site.url("/private/t.js"));
  ASSERT_NE(refused, nullptr) << home.dump();
  EXPECT_EQ(refused->value("fate", ""), "refused");
  EXPECT_TRUE(absl::StrContains(refused->value("detail", ""), "robots.txt"))
      << refused->dump();
}

}  // namespace
}  // namespace sieve
