// Rendering in the crawl (#38), through the `sieve` binary with the default
// mode (render.mode = auto), checked at the servers (the issue's acceptance
// site):
//   - a host whose links are built by script (at parse time, from fetch()
//     JSON, after a timer, in an iframe's document under its <base>, in an
//     open shadow root, by a pushState router, by a script from a second
//     host): every script-built link's page is fetched, and its home page's
//     record says "rendered": true with the links rendering added;
//   - the scripts robots.txt disallows (on the site's host and on the
//     second) are never requested, and counted refused; the second host's
//     robots.txt is fetched once for the render (a 503 one refuses its
//     script);
//   - a static host beside it is crawled without rendering;
//   - no request reaches a server with the browser's User-Agent: every one
//     carries the crawl's;
//   - every host's requests, subresources included, keep the delay;
//   - a subresource answered 429 with Retry-After backs its host off: the
//     host's next request waits at least the Retry-After;
//   - --render off renders nothing (the script-built pages stay unfound);
//   - --render always with --frontier is refused at start;
//   - a render's requests carry the page's method and headers and the
//     browser's cookies; their answers' headers (Set-Cookie) reach the page.
// Skips with a message when chromium-headless-shell is absent.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/crawler/crawl/gated_site.h"
#include "tests/render/render_test_util.h"

namespace sieve {
namespace {

using testing_util::FreshDir;
using testing_util::GatedSite;
using testing_util::PathOf;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

constexpr char kHtml[] = "text/html; charset=utf-8";
constexpr char kJs[] = "text/javascript";

std::string Leaf(const std::string& name) {
  return absl::StrCat("<!doctype html><title>", name, "</title><p>", name,
                      ": a page only a script links to.</p>");
}

// The pages of AppSite only its scripts link to, one per way of making a
// link; the pushState router's address itself is one.
constexpr const char* kScriptBuilt[] = {
    "/parse.html",           "/fetched.html",   "/timer.html",
    "/framed/in-frame.html", "/in-shadow.html", "/router/home",
    "/router/about",         "/from-cdn.html"};

// The second host of the script-built site: a widget script that adds a link
// to the page, and a script its robots.txt disallows.
std::unique_ptr<GatedSite> CdnSite() {
  return std::make_unique<GatedSite>(
      std::map<std::string, std::pair<std::string, std::string>>{
          {"/robots.txt",
           {"text/plain", "User-agent: *\nDisallow: /blocked/\n"}},
          {"/widget.js",
           {kJs,
            "document.getElementById('app').insertAdjacentHTML("
            "'beforeend', '<a href=\"/from-cdn.html\">cdn</a>');"}},
          {"/blocked/ad.js",
           {kJs,
            "document.getElementById('app').insertAdjacentHTML("
            "'beforeend', '<a href=\"/from-blocked.html\">ad</a>');"}},
      });
}

// The script-built site: an empty app root filled by /app.js (links made at
// parse time, from fetch() JSON, after a timer, in an iframe's document
// whose <base> moves them, in an open shadow root, by a pushState router
// whose relative link resolves against the address it moved to) and by
// `cdn`'s widget; a script its robots.txt disallows, and one on `cdn`.
std::unique_ptr<GatedSite> AppSite(const GatedSite& cdn) {
  const std::string app_js = R"JS(
    const app = document.getElementById('app');
    function add(href) {
      const a = document.createElement('a');
      a.href = href;
      a.textContent = href;
      app.appendChild(a);
    }
    add('/parse.html');
    fetch('/api/links.json').then(r => r.json()).then(j => add(j.href));
    setTimeout(() => add('/timer.html'), 200);
    const frame = document.createElement('iframe');
    frame.srcdoc = '<base href="/framed/"><a href="in-frame.html">f</a>';
    app.appendChild(frame);
    const shadowHost = document.createElement('div');
    app.appendChild(shadowHost);
    shadowHost.attachShadow({mode: 'open'}).innerHTML =
        '<a href="/in-shadow.html">s</a>';
    history.pushState({}, '', '/router/home');
    add('about');
  )JS";
  const std::string track_js =
      "document.body.insertAdjacentHTML('beforeend', "
      "'<a href=\"/disallowed-made.html\">x</a>');";
  std::map<std::string, std::pair<std::string, std::string>> files = {
      {"/robots.txt", {"text/plain", "User-agent: *\nDisallow: /private/\n"}},
      {"/",
       {kHtml,
        absl::StrCat("<!doctype html><html><head><title>App</title></head>"
                     "<body><div id=\"app\"></div>"
                     "<script src=\"/app.js\"></script>"
                     "<script src=\"/private/track.js\"></script>"
                     "<script src=\"",
                     cdn.url("/widget.js"), "\"></script><script src=\"",
                     cdn.url("/blocked/ad.js"), "\"></script></body></html>")}},
      {"/app.js", {kJs, app_js}},
      {"/private/track.js", {kJs, track_js}},
      {"/api/links.json", {"application/json", R"({"href":"/fetched.html"})"}},
  };
  for (const char* path : kScriptBuilt) files[path] = {kHtml, Leaf(path)};
  for (const char* path : {"/disallowed-made.html", "/from-blocked.html"}) {
    files[path] = {kHtml, Leaf(path)};
  }
  return std::make_unique<GatedSite>(std::move(files));
}

// A static site with a harmless script: nothing to render.
std::unique_ptr<GatedSite> StaticSite() {
  return std::make_unique<GatedSite>(
      std::map<std::string, std::pair<std::string, std::string>>{
          {"/",
           {kHtml,
            "<!doctype html><title>Static</title><script>var x = 1;</script>"
            "<p>A static home page with enough text to read without any "
            "script at all, and a link to its one other page.</p>"
            "<a href=\"/s1.html\">s1</a>"}},
          {"/s1.html", {kHtml, Leaf("s1")}},
      });
}

struct CrawlOutput {
  std::vector<nlohmann::json> pages;
  nlohmann::json summary;
  std::string log;
};

CrawlOutput Crawl(const std::string& name,
                  const std::vector<std::string>& seeds,
                  const std::vector<std::string>& flags) {
  const std::filesystem::path dir = FreshDir(name);
  std::string seed_text;
  for (const std::string& seed : seeds) absl::StrAppend(&seed_text, seed, "\n");
  std::ofstream(dir / "seeds.txt") << seed_text;
  std::vector<std::string> args = {"crawl",
                                   "--seeds",
                                   (dir / "seeds.txt").string(),
                                   "--out",
                                   (dir / "out").string(),
                                   "--log-level",
                                   "info"};
  if (std::find(flags.begin(), flags.end(), "--delay") == flags.end()) {
    args.insert(args.end(), {"--delay", "0"});
  }
  args.insert(args.end(), flags.begin(), flags.end());
  const int rc = WaitFor(StartSieve(args, dir / "log.txt"));
  CrawlOutput out;
  out.log = ReadFile(dir / "log.txt");
  EXPECT_EQ(rc, 0) << out.log;
  out.pages = ReadPages(dir / "out");
  out.summary = nlohmann::json::parse(ReadFile(dir / "out" / "summary.json"),
                                      nullptr, /*allow_exceptions=*/false);
  return out;
}

std::string Dump(const CrawlOutput& out) {
  std::string text;
  for (const nlohmann::json& page : out.pages) {
    absl::StrAppend(&text, page.dump(), "\n");
  }
  return absl::StrCat(text, out.summary.dump());
}

const nlohmann::json* RecordOf(const CrawlOutput& out, const std::string& url) {
  for (const nlohmann::json& page : out.pages) {
    if (page.value("url", "") == url) return &page;
  }
  return nullptr;
}

// The issue's acceptance site: a script-built host (every way of making a
// link, a script from a second host, a disallowed script on each), a static
// host beside it, the default mode and a delay; checked at the servers.
TEST(CrawlRenderTest, DefaultModeFindsEveryScriptBuiltLinkPolitely) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  std::unique_ptr<GatedSite> cdn = CdnSite();
  std::unique_ptr<GatedSite> app = AppSite(*cdn);
  std::unique_ptr<GatedSite> plain = StaticSite();
  const absl::Duration delay = absl::Milliseconds(250);
  const CrawlOutput out =
      Crawl("render_default", {app->url("/"), plain->url("/")},
            {"--delay", absl::StrCat(absl::ToDoubleSeconds(delay))});

  // Every script-built link's page fetched, at the server.
  const std::set<std::string> app_paths = app->Paths();
  for (const char* path : kScriptBuilt) {
    EXPECT_TRUE(app_paths.count(path)) << path << "\n" << out.log << Dump(out);
    const nlohmann::json* record = RecordOf(out, app->url(path));
    EXPECT_NE(record, nullptr) << path;
    if (record != nullptr) {
      EXPECT_EQ(record->value("status", 0), 200) << path;
    }
  }
  // The subresources the page needed came through the crawl; the disallowed
  // scripts never did, nor what they would have linked.
  EXPECT_TRUE(app_paths.count("/app.js"));
  EXPECT_TRUE(app_paths.count("/api/links.json"));
  EXPECT_TRUE(cdn->Paths().count("/widget.js"));
  EXPECT_FALSE(app_paths.count("/private/track.js"));
  EXPECT_FALSE(app_paths.count("/disallowed-made.html"));
  EXPECT_FALSE(cdn->Paths().count("/blocked/ad.js"));
  EXPECT_FALSE(app_paths.count("/from-blocked.html"));
  // The home page's record says it was rendered and what rendering added.
  const nlohmann::json* home = RecordOf(out, app->url("/"));
  ASSERT_NE(home, nullptr);
  EXPECT_TRUE(home->value("rendered", false)) << home->dump();
  EXPECT_EQ(home->value("links_rendered", 0), std::size(kScriptBuilt))
      << home->dump();
  // And how long its render took (the figure bench/render/ reads).
  EXPECT_GT(home->value("render_ms", 0.0), 0.0) << home->dump();
  // Subresources are no page records.
  EXPECT_EQ(RecordOf(out, app->url("/app.js")), nullptr);
  EXPECT_EQ(RecordOf(out, app->url("/api/links.json")), nullptr);

  // The static host: crawled whole, nothing rendered.
  EXPECT_TRUE(plain->Paths().count("/s1.html"));
  for (const nlohmann::json& page : out.pages) {
    if (absl::StartsWith(page.value("url", ""), plain->url("/"))) {
      EXPECT_FALSE(page.value("rendered", false)) << page.dump();
    }
  }

  for (const GatedSite* site : {app.get(), cdn.get(), plain.get()}) {
    // Every request carried the crawl's User-Agent, never the browser's.
    const std::vector<GatedSite::Hit> hits = site->Hits();
    for (const GatedSite::Hit& hit : hits) {
      EXPECT_TRUE(absl::StartsWith(hit.user_agent, "SieveBot/"))
          << hit.path << ": " << hit.user_agent;
      EXPECT_FALSE(absl::StrContains(hit.user_agent, "HeadlessChrome"))
          << hit.path << ": " << hit.user_agent;
    }
    // No two requests to one host closer than the delay, assets included
    // (it runs from the end of the answer before: starts are further).
    for (size_t i = 1; i < hits.size(); ++i) {
      EXPECT_GE(hits[i].start - hits[i - 1].start,
                delay - absl::Milliseconds(10))
          << site->url(hits[i - 1].path) << " then " << hits[i].path;
    }
  }

  // The counts, in summary.json.
  const nlohmann::json& c = out.summary["counters"];
  EXPECT_EQ(c.value("render_pages", 0), 1) << out.summary.dump();
  EXPECT_EQ(c.value("render_errors", 1), 0);
  EXPECT_EQ(c.value("render_links", 0), std::size(kScriptBuilt));
  EXPECT_EQ(c.value("subresources_fetched", 0), 3);  // app.js, JSON, widget.
  EXPECT_EQ(c.value("subresources_refused_robots", 0), 2);
}

TEST(CrawlRenderTest, RenderOffFindsOnlyStaticLinks) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  std::unique_ptr<GatedSite> cdn = CdnSite();
  std::unique_ptr<GatedSite> app = AppSite(*cdn);
  const CrawlOutput out =
      Crawl("render_off", {app->url("/")}, {"--render", "off"});
  const std::set<std::string> paths = app->Paths();
  EXPECT_FALSE(paths.count("/parse.html"));
  EXPECT_FALSE(paths.count("/app.js"));
  const nlohmann::json* home = RecordOf(out, app->url("/"));
  ASSERT_NE(home, nullptr);
  EXPECT_FALSE(home->contains("rendered"));
}

// A script from another host (a CDN whose robots.txt the crawl never
// fetched) meets robots.txt of its own origin: fetched once, in that host's
// lane; the allowed script runs and its link is followed, the disallowed one
// is never requested. A host whose robots.txt answers 503 serves no script
// (RFC 9309 2.3.1.4: complete disallow while unavailable).
TEST(CrawlRenderTest, ThirdPartyScriptsMeetRobotsTxtOfTheirOrigin) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  std::unique_ptr<GatedSite> cdn = CdnSite();
  auto down = std::make_unique<GatedSite>(
      std::map<std::string, std::pair<std::string, std::string>>{
          {"/down.js",
           {kJs,
            "document.body.insertAdjacentHTML('beforeend', "
            "'<a href=\"/from-down.html\">down</a>');"}}},
      /*gate=*/"", std::map<std::string, int>{{"/robots.txt", 503}});
  auto site = std::make_unique<GatedSite>(
      std::map<std::string, std::pair<std::string, std::string>>{
          {"/",
           {kHtml, absl::StrCat(
                       "<!doctype html><title>App</title>"
                       "<div id=\"app\"></div><script src=\"",
                       cdn->url("/widget.js"), "\"></script><script src=\"",
                       cdn->url("/blocked/ad.js"), "\"></script><script src=\"",
                       down->url("/down.js"), "\"></script>")}},
          {"/from-cdn.html", {kHtml, Leaf("from-cdn")}},
          {"/from-blocked.html", {kHtml, Leaf("from-blocked")}},
          {"/from-down.html", {kHtml, Leaf("from-down")}},
      });
  const CrawlOutput out = Crawl("render_third_party", {site->url("/")}, {});

  for (const GatedSite* host : {cdn.get(), down.get()}) {
    EXPECT_EQ(host->Requests("/robots.txt"), 1) << out.log << Dump(out);
  }
  EXPECT_TRUE(cdn->Paths().count("/widget.js")) << out.log << Dump(out);
  EXPECT_FALSE(cdn->Paths().count("/blocked/ad.js"));
  EXPECT_TRUE(site->Paths().count("/from-cdn.html")) << out.log << Dump(out);
  EXPECT_FALSE(site->Paths().count("/from-blocked.html"));
  EXPECT_FALSE(down->Paths().count("/down.js"));
  EXPECT_FALSE(site->Paths().count("/from-down.html"));
  const nlohmann::json& c = out.summary["counters"];
  EXPECT_EQ(c.value("subresources_refused_robots", 0), 1) << out.summary.dump();
  EXPECT_EQ(c.value("subresources_refused_robots_unknown", 0), 1);
  EXPECT_EQ(c.value("subresources_fetched", 0), 1);
}

// A page's script fetches an asset its server answers 429 with Retry-After:
// 2; only then does it link the next page. The host backs off as after a
// page's 429 (the configured back-off, 0.5 s, is shorter: Retry-After is
// what holds the host): its next request (the linked page) arrives 2 s or
// more after the 429, not after the delay (0).
TEST(CrawlRenderTest, ASubresourceAnswered429BacksItsHostOff) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  GatedSite site(
      {{"/robots.txt", {"text/plain", "User-agent: *\nAllow: /\n"}},
       {"/",
        {kHtml,
         "<!doctype html><title>Busy</title><div id=\"app\"></div><script>"
         "fetch('/busy.json').finally(() => {"
         "  const a = document.createElement('a');"
         "  a.href = '/next.html';"
         "  document.getElementById('app').appendChild(a);"
         "});</script>"}},
       {"/next.html", {kHtml, Leaf("next")}}},
      /*gate=*/"", {{"/busy.json", 429}},
      {{"/busy.json", {{"Retry-After", "2"}}}});
  const std::filesystem::path config =
      FreshDir("render_throttled_config") / "sieve.toml";
  std::ofstream(config) << "[politeness]\nbackoff_initial = 0.5\n";
  const CrawlOutput out =
      Crawl("render_throttled", {site.url("/")},
            {"--render", "always", "--config", config.string()});
  const std::vector<GatedSite::Hit> hits = site.Hits();
  auto busy = std::find_if(hits.begin(), hits.end(), [](const auto& hit) {
    return hit.path == "/busy.json";
  });
  ASSERT_NE(busy, hits.end()) << out.log << Dump(out);
  ASSERT_NE(busy + 1, hits.end()) << out.log << Dump(out);
  EXPECT_GE((busy + 1)->start - busy->start, absl::Seconds(2))
      << out.log << Dump(out);
  EXPECT_EQ(site.Requests("/busy.json"), 1);
  EXPECT_EQ(site.Requests("/next.html"), 1) << out.log << Dump(out);
}

// The value of request header `name` of the first request for `path`; "" when
// absent or never asked for.
std::string HeaderAt(const GatedSite& site, const std::string& path,
                     const std::string& name) {
  for (const GatedSite::Hit& hit : site.Hits()) {
    if (hit.path == path)
      return hit.headers.count(name) ? hit.headers.find(name)->second : "";
  }
  return "";
}

// What a render's requests carry to the server (#38): the page's method (a
// HEAD stays a HEAD; a POST never leaves) and headers (the crawl's
// User-Agent still), and the browser context's cookies: the document's own
// Set-Cookie, then one an earlier answer set. The answers' headers reach the
// page: its script sees both cookies in document.cookie, and links what it
// saw.
TEST(CrawlRenderTest, SubresourcesCarryThePagesMethodHeadersAndCookies) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  const std::string app_js = R"JS(
    const app = document.getElementById('app');
    function add(href) {
      const a = document.createElement('a');
      a.href = href;
      a.textContent = href;
      app.appendChild(a);
    }
    (async () => {
      const api = await fetch('/api.json', {headers: {
          'X-Requested-With': 'sieve-test', 'Accept': 'application/json'}});
      add((await api.json()).href);
      const head = await fetch('/probe', {method: 'HEAD'});
      add('/head-' + head.status + '.html');
      await fetch('/login');
      await fetch('/after-login.json');
      try {
        await fetch('/submit', {method: 'POST', body: 'x=1'});
      } catch (e) {}
      add('/cookies-' + document.cookie.split('; ').sort().join('-') +
          '.html');
    })();
  )JS";
  GatedSite site(
      {{"/robots.txt", {"text/plain", "User-agent: *\nAllow: /\n"}},
       {"/",
        {kHtml,
         "<!doctype html><title>Jar</title><div id=\"app\"></div>"
         "<script src=\"/app.js\"></script>"}},
       {"/app.js", {kJs, app_js}},
       {"/api.json", {"application/json", R"({"href":"/from-api.html"})"}},
       {"/probe", {"text/plain", "probe body"}},
       {"/login", {"text/plain", "in"}},
       {"/after-login.json", {"application/json", "{}"}},
       {"/from-api.html", {kHtml, Leaf("from-api")}}},
      /*gate=*/"", /*statuses=*/{},
      {{"/", {{"Set-Cookie", "doc=1; Path=/"}}},
       {"/login", {{"Set-Cookie", "s=1; Path=/"}}}});
  const CrawlOutput out =
      Crawl("render_requests", {site.url("/")}, {"--render", "always"});
  const std::string why = absl::StrCat(out.log, Dump(out));

  // The page's headers, beside the crawl's User-Agent.
  ASSERT_TRUE(site.Paths().count("/api.json")) << why;
  EXPECT_EQ(HeaderAt(site, "/api.json", "X-Requested-With"), "sieve-test");
  EXPECT_EQ(HeaderAt(site, "/api.json", "Accept"), "application/json");
  EXPECT_TRUE(
      absl::StartsWith(HeaderAt(site, "/api.json", "User-Agent"), "SieveBot/"));
  EXPECT_TRUE(site.Paths().count("/from-api.html")) << why;
  // A HEAD is sent as one, and its answer reaches the page.
  int heads = 0;
  for (const GatedSite::Hit& hit : site.Hits()) {
    if (hit.path == "/probe") {
      EXPECT_EQ(hit.method, "HEAD");
      ++heads;
    }
  }
  EXPECT_EQ(heads, 1) << why;
  EXPECT_TRUE(site.Paths().count("/head-200.html")) << why;
  // The document's cookie on its first subresource; the one /login set on
  // the request after it.
  EXPECT_EQ(HeaderAt(site, "/app.js", "Cookie"), "doc=1") << why;
  EXPECT_EQ(HeaderAt(site, "/login", "Cookie"), "doc=1");
  const std::string after = HeaderAt(site, "/after-login.json", "Cookie");
  EXPECT_TRUE(after == "doc=1; s=1" || after == "s=1; doc=1") << after;
  // The crawl's own fetches have no cookie jar.
  EXPECT_EQ(HeaderAt(site, "/from-api.html", "Cookie"), "");
  EXPECT_TRUE(site.Paths().count("/cookies-doc=1-s=1.html")) << why;
  // A POST never leaves the browser, and is counted refused for its method
  // (summary.json, as /metrics' sieve_render_subresources_total{fate}).
  EXPECT_FALSE(site.Paths().count("/submit")) << why;
  const nlohmann::json& c = out.summary["counters"];
  EXPECT_EQ(c.value("subresources_refused_method", 0), 1) << why;
  EXPECT_EQ(c.value("subresources_refused_type", 0), 0) << why;
  EXPECT_EQ(c.value("subresources_refused_budget", 0), 0) << why;
}

// A page full of static links whose app root (<div id=root>, its id written
// as `ID = 'root'`) is empty: auto renders it, found by the link extractor's
// own pass (LinkPolicy::find_ids), and follows what the script made.
TEST(CrawlRenderTest, AutoRendersAnEmptyAppRootAmongManyLinks) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  std::string home =
      "<!doctype html><title>Nav</title><div ID = 'root'></div>"
      "<script src=\"/app.js\"></script>";
  std::map<std::string, std::pair<std::string, std::string>> files = {
      {"/app.js",
       {kJs,
        "document.getElementById('root').innerHTML = "
        "'<a href=\"/made.html\">made</a>';"}},
      {"/made.html", {kHtml, Leaf("made")}}};
  for (int i = 0; i < 6; ++i) {
    const std::string path = absl::StrCat("/nav", i, ".html");
    absl::StrAppend(&home, "<a href=\"", path, "\">", i, "</a>");
    files[path] = {kHtml, Leaf(path)};
  }
  files["/"] = {kHtml, home};
  GatedSite site(std::move(files));
  const CrawlOutput out = Crawl("render_root_with_links", {site.url("/")}, {});
  const nlohmann::json* page = RecordOf(out, site.url("/"));
  ASSERT_NE(page, nullptr) << Dump(out);
  EXPECT_TRUE(page->value("rendered", false)) << Dump(out);
  EXPECT_TRUE(site.Paths().count("/made.html")) << Dump(out);
}

// --frontier's frontier has no host lane to keep a render's requests polite:
// `always` is refused at start (exit 1, saying why), before any connection.
// render.mode = auto's per-host decision: a host whose pages all look built
// by script (an empty app root) but whose script adds no link is rendered for
// its first kRendersWithoutLinks pages or so (renders already started finish),
// then no more: its last pages are fetched and recorded unrendered. A chain
// of 8 pages linked statically, one every 0.5 s, so each render has ended
// before the next page but one is parsed.
TEST(CrawlRenderTest, AutoStopsRenderingAHostWhoseRendersAddNoLinks) {
  SIEVE_SKIP_WITHOUT_CHROMIUM();
  constexpr int kPages = 8;
  std::map<std::string, std::pair<std::string, std::string>> files = {
      {"/robots.txt", {"text/plain", "User-agent: *\nAllow: /\n"}},
      {"/theme.js",
       {kJs, "document.getElementById('app').textContent = 'Themed';"}}};
  for (int i = 0; i < kPages; ++i) {
    files[absl::StrCat("/p", i, ".html")] = {
        kHtml, absl::StrCat("<!doctype html><title>p", i,
                            "</title><div id=\"app\"></div>"
                            "<script src=\"/theme.js\"></script>"
                            "<a href=\"/p",
                            i + 1, ".html\">next</a>")};
  }
  GatedSite site(std::move(files));
  const CrawlOutput out =
      Crawl("render_host_decision", {site.url("/p0.html")}, {"--delay", "0.5"});
  int rendered = 0;
  for (int i = 0; i < kPages; ++i) {
    const nlohmann::json* page =
        RecordOf(out, site.url(absl::StrCat("/p", i, ".html")));
    ASSERT_NE(page, nullptr) << i << Dump(out);
    if (page->value("rendered", false)) ++rendered;
    if (i >= kPages - 2) {
      EXPECT_FALSE(page->value("rendered", false)) << i << Dump(out);
    }
  }
  EXPECT_GE(rendered, 3) << Dump(out);
}

TEST(CrawlRenderTest, AlwaysWithARemoteFrontierIsRefusedAtStart) {
  const std::filesystem::path dir = FreshDir("render_frontier");
  const int rc = WaitFor(StartSieve(
      {"crawl", "http://127.0.0.1:9/", "--out", (dir / "out").string(),
       "--render", "always", "--frontier", "grpc://127.0.0.1:9"},
      dir / "log.txt"));
  const std::string log = ReadFile(dir / "log.txt");
  EXPECT_EQ(rc, 1) << log;
  EXPECT_TRUE(absl::StrContains(log, "render.mode = always")) << log;
  EXPECT_TRUE(absl::StrContains(log, "--frontier")) << log;
}

// The crawl fetches GET and HEAD only: a render.methods naming another method
// stops the crawl at start, saying so (before, its requests went as GETs).
TEST(CrawlRenderTest, AMethodTheCrawlCannotSendIsRefusedAtStart) {
  const std::filesystem::path dir = FreshDir("render_methods");
  const std::filesystem::path config = dir / "sieve.toml";
  std::ofstream(config) << "[render]\nmethods = [\"GET\", \"POST\"]\n";
  const int rc =
      WaitFor(StartSieve({"crawl", "http://127.0.0.1:9/", "--out",
                          (dir / "out").string(), "--config", config.string()},
                         dir / "log.txt"));
  const std::string log = ReadFile(dir / "log.txt");
  EXPECT_EQ(rc, 2) << log;  // A configuration error.
  EXPECT_TRUE(absl::StrContains(log, "render.methods")) << log;
  EXPECT_TRUE(absl::StrContains(log, "POST")) << log;
}

}  // namespace
}  // namespace sieve
