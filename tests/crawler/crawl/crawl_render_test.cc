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
//   - --render off renders nothing (the script-built pages stay unfound);
//   - --render always with --frontier is refused at start.
// Skips with a message when chromium-headless-shell is absent.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "tests/crawler/crawl/crawl_test_util.h"
#include "tests/render/render_test_util.h"

namespace sieve {
namespace {

using testing_util::FreshDir;
using testing_util::PathOf;
using testing_util::ReadFile;
using testing_util::ReadPages;
using testing_util::StartSieve;
using testing_util::WaitFor;

// One host of the test: fixed files on 127.0.0.1 (a port of its own), every
// request logged with its User-Agent; `statuses` answers some paths with
// that status instead (a 503 robots.txt).
class ScriptSite {
 public:
  explicit ScriptSite(std::map<std::string, std::pair<std::string, std::string>>
                          files,  // path -> (content type, body)
                      std::map<std::string, int> statuses = {})
      : files_(std::move(files)), statuses_(std::move(statuses)) {
    server_.Get(".*", [this](const httplib::Request& req,
                             httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back({req.path, req.get_header_value("User-Agent")});
        starts_.push_back(absl::Now());
      }
      if (auto status = statuses_.find(req.path); status != statuses_.end()) {
        res.status = status->second;
        return;
      }
      auto it = files_.find(req.path);
      if (it == files_.end()) {
        res.status = 404;
        res.set_content("not found", "text/plain");
        return;
      }
      res.set_content(it->second.second, it->second.first);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~ScriptSite() {
    server_.stop();
    thread_.join();
  }

  std::string url(const std::string& path) const {
    return absl::StrCat("http://127.0.0.1:", port_, path);
  }
  // (path, User-Agent) of every request, in order.
  std::vector<std::pair<std::string, std::string>> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  // When each request arrived, in order.
  std::vector<absl::Time> starts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return starts_;
  }
  std::set<std::string> paths() const {
    std::set<std::string> out;
    for (const auto& [path, ua] : requests()) out.insert(path);
    return out;
  }

 private:
  const std::map<std::string, std::pair<std::string, std::string>> files_;
  const std::map<std::string, int> statuses_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, std::string>> requests_;
  std::vector<absl::Time> starts_;
};

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
std::unique_ptr<ScriptSite> CdnSite() {
  return std::make_unique<ScriptSite>(
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
std::unique_ptr<ScriptSite> AppSite(const ScriptSite& cdn) {
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
  return std::make_unique<ScriptSite>(std::move(files));
}

// A static site with a harmless script: nothing to render.
std::unique_ptr<ScriptSite> StaticSite() {
  return std::make_unique<ScriptSite>(
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
  std::unique_ptr<ScriptSite> cdn = CdnSite();
  std::unique_ptr<ScriptSite> app = AppSite(*cdn);
  std::unique_ptr<ScriptSite> plain = StaticSite();
  const absl::Duration delay = absl::Milliseconds(250);
  const CrawlOutput out =
      Crawl("render_default", {app->url("/"), plain->url("/")},
            {"--delay", absl::StrCat(absl::ToDoubleSeconds(delay))});

  // Every script-built link's page fetched, at the server.
  const std::set<std::string> app_paths = app->paths();
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
  EXPECT_TRUE(cdn->paths().count("/widget.js"));
  EXPECT_FALSE(app_paths.count("/private/track.js"));
  EXPECT_FALSE(app_paths.count("/disallowed-made.html"));
  EXPECT_FALSE(cdn->paths().count("/blocked/ad.js"));
  EXPECT_FALSE(app_paths.count("/from-blocked.html"));
  // The home page's record says it was rendered and what rendering added.
  const nlohmann::json* home = RecordOf(out, app->url("/"));
  ASSERT_NE(home, nullptr);
  EXPECT_TRUE(home->value("rendered", false)) << home->dump();
  EXPECT_EQ(home->value("links_rendered", 0), std::size(kScriptBuilt))
      << home->dump();
  // Subresources are no page records.
  EXPECT_EQ(RecordOf(out, app->url("/app.js")), nullptr);
  EXPECT_EQ(RecordOf(out, app->url("/api/links.json")), nullptr);

  // The static host: crawled whole, nothing rendered.
  EXPECT_TRUE(plain->paths().count("/s1.html"));
  for (const nlohmann::json& page : out.pages) {
    if (absl::StartsWith(page.value("url", ""), plain->url("/"))) {
      EXPECT_FALSE(page.value("rendered", false)) << page.dump();
    }
  }

  for (const ScriptSite* site : {app.get(), cdn.get(), plain.get()}) {
    // Every request carried the crawl's User-Agent, never the browser's.
    const auto requests = site->requests();
    for (const auto& [path, ua] : requests) {
      EXPECT_TRUE(absl::StartsWith(ua, "SieveBot/")) << path << ": " << ua;
      EXPECT_FALSE(absl::StrContains(ua, "HeadlessChrome"))
          << path << ": " << ua;
    }
    // No two requests to one host closer than the delay, assets included
    // (it runs from the end of the answer before: starts are further).
    const std::vector<absl::Time> starts = site->starts();
    for (size_t i = 1; i < starts.size(); ++i) {
      EXPECT_GE(starts[i] - starts[i - 1], delay - absl::Milliseconds(10))
          << site->url(requests[i - 1].first) << " then " << requests[i].first;
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
  std::unique_ptr<ScriptSite> cdn = CdnSite();
  std::unique_ptr<ScriptSite> app = AppSite(*cdn);
  const CrawlOutput out =
      Crawl("render_off", {app->url("/")}, {"--render", "off"});
  const std::set<std::string> paths = app->paths();
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
  std::unique_ptr<ScriptSite> cdn = CdnSite();
  auto down = std::make_unique<ScriptSite>(
      std::map<std::string, std::pair<std::string, std::string>>{
          {"/down.js",
           {kJs,
            "document.body.insertAdjacentHTML('beforeend', "
            "'<a href=\"/from-down.html\">down</a>');"}}},
      std::map<std::string, int>{{"/robots.txt", 503}});
  auto site = std::make_unique<ScriptSite>(
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

  for (const ScriptSite* host : {cdn.get(), down.get()}) {
    const std::vector<std::pair<std::string, std::string>> requests =
        host->requests();
    EXPECT_EQ(
        std::count_if(requests.begin(), requests.end(),
                      [](const auto& r) { return r.first == "/robots.txt"; }),
        1)
        << out.log << Dump(out);
  }
  EXPECT_TRUE(cdn->paths().count("/widget.js")) << out.log << Dump(out);
  EXPECT_FALSE(cdn->paths().count("/blocked/ad.js"));
  EXPECT_TRUE(site->paths().count("/from-cdn.html")) << out.log << Dump(out);
  EXPECT_FALSE(site->paths().count("/from-blocked.html"));
  EXPECT_FALSE(down->paths().count("/down.js"));
  EXPECT_FALSE(site->paths().count("/from-down.html"));
  const nlohmann::json& c = out.summary["counters"];
  EXPECT_EQ(c.value("subresources_refused_robots", 0), 1) << out.summary.dump();
  EXPECT_EQ(c.value("subresources_refused_robots_unknown", 0), 1);
  EXPECT_EQ(c.value("subresources_fetched", 0), 1);
}

// --frontier's frontier has no host lane to keep a render's requests polite:
// `always` is refused at start (exit 1, saying why), before any connection.
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

}  // namespace
}  // namespace sieve
