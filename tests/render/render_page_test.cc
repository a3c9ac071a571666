// Renders pages with the real Chromium, every request answered from memory
// (render_test_util.h): links made at parse time, from fetch() JSON, after a
// timer, in an iframe, in an open shadow root, by a pushState router, in an
// animation frame or an observer; <base>; what the handler refuses never reaches the page.
// One browser for the suite.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "render/browser.h"
#include "tests/render/render_test_util.h"

namespace sieve {
namespace {

using render_test::HtmlPage;
using render_test::MemorySite;
using ::testing::Contains;
using ::testing::IsSupersetOf;
using ::testing::Not;

class RenderPageTest : public render_test::SharedBrowserTest {};

// The script-built site: every link on it is made by JavaScript.
constexpr char kIndex[] = R"(<!doctype html><html><head><title>app</title>
<script>document.write('<a href="/parse-time">parsed</a>');</script>
</head><body><div id="app"></div>
<iframe src="/frame.html"></iframe>
<img src="/logo.png">
<script src="/app.js"></script>
<script src="/disallowed.js"></script>
</body></html>)";

constexpr char kApp[] = R"(
fetch('/nav.json').then(r => r.json()).then(list => {
  for (const href of list) {
    const a = document.createElement('a'); a.href = href; a.textContent = href;
    document.body.appendChild(a);
  }
});
setTimeout(() => {
  const a = document.createElement('a'); a.href = '/after-timer';
  document.body.appendChild(a);
}, 200);
const host = document.createElement('div');
document.body.appendChild(host);
host.attachShadow({mode: 'open'}).innerHTML = '<a href="/in-shadow">s</a>';
// A router: moves to its own address and draws its navigation.
history.pushState({}, '', '/app/home');
document.getElementById('app').innerHTML = '<a href="/app/about">About</a>';
// Pages redefine built-ins; the reading script runs in a world of its own.
window.Array = function() { throw new Error('no'); };
Element.prototype.querySelectorAll = function() { return []; };
)";

constexpr char kFrame[] = R"(<!doctype html><body><script>
const a = document.createElement('a'); a.href = 'in-iframe';
document.body.appendChild(a);
</script></body>)";

TEST_F(RenderPageTest, FindsTheLinksAScriptBuiltSiteMakes) {
  MemorySite site;
  site.Add("http://app.test/app.js", "text/javascript", kApp);
  site.Add("http://app.test/nav.json", "application/json",
           R"(["/from-fetch-1", "/from-fetch-2"])");
  site.Add("http://app.test/frame.html", "text/html", kFrame);
  site.Add("http://app.test/disallowed.js", "text/javascript",
           "document.write('<a href=\"/must-not-appear\">x</a>');");
  site.Refuse("http://app.test/disallowed.js");

  absl::StatusOr<RenderResult> result = browser_->Render(
      HtmlPage("http://app.test/", kIndex), site, RenderOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->timed_out);
  EXPECT_THAT(result->links,
              IsSupersetOf(
                  {"http://app.test/parse-time", "http://app.test/from-fetch-1",
                   "http://app.test/from-fetch-2",
                   "http://app.test/after-timer", "http://app.test/in-shadow",
                   "http://app.test/app/about", "http://app.test/app/home",
                   "http://app.test/frame.html", "http://app.test/in-iframe"}));
  EXPECT_EQ(result->final_url, "http://app.test/app/home");
  // Refused by the handler: asked, not loaded.
  EXPECT_THAT(site.asked(), Contains("http://app.test/disallowed.js"));
  EXPECT_THAT(result->links, Not(Contains("http://app.test/must-not-appear")));
  EXPECT_EQ(result->dom.find("must-not-appear"), std::string::npos);
  EXPECT_NE(result->dom.find("/after-timer"), std::string::npos);
  // Images are not asked for; the document is not fetched again.
  EXPECT_THAT(site.asked(), Not(Contains("http://app.test/logo.png")));
  EXPECT_THAT(site.asked(), Not(Contains("http://app.test/")));
  auto fate_of = [&](const std::string& url) {
    for (const RenderedRequest& request : result->requests) {
      if (request.url == url) return std::string(RequestFateName(request.fate));
    }
    return std::string("not requested");
  };
  EXPECT_EQ(fate_of("http://app.test/"), "document");
  EXPECT_EQ(fate_of("http://app.test/app.js"), "fetched");
  EXPECT_EQ(fate_of("http://app.test/disallowed.js"), "refused");
  EXPECT_EQ(fate_of("http://app.test/logo.png"), "type");
}

// Links a page draws in an animation frame or in an observer's callback: they
// come in the frames the render asks for (without them, only when a real frame
// happened to fall inside the virtual-time run: 4 runs in 10).
TEST_F(RenderPageTest, LinksDrawnInAnAnimationFrameAreFound) {
  MemorySite site;
  absl::StatusOr<RenderResult> result =
      browser_->Render(HtmlPage("http://frames.test/", R"(<!doctype html><body>
<div id="box" style="height:10px"></div><script>
function add(href) {
  const a = document.createElement('a'); a.href = href;
  document.body.appendChild(a);
}
requestAnimationFrame(() => add('/in-frame'));
new ResizeObserver(() => add('/on-resize'))
    .observe(document.getElementById('box'));
new IntersectionObserver(() => add('/on-intersection'))
    .observe(document.getElementById('box'));
setTimeout(() => requestAnimationFrame(() => add('/frame-after-timer')), 300);
</script></body>)"),
                       site, RenderOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->links,
              IsSupersetOf({"http://frames.test/in-frame",
                            "http://frames.test/on-resize",
                            "http://frames.test/on-intersection",
                            "http://frames.test/frame-after-timer"}));
}

TEST_F(RenderPageTest, ResolvesLinksAgainstTheBaseElement) {
  MemorySite site;
  absl::StatusOr<RenderResult> result = browser_->Render(
      HtmlPage("http://app.test/docs/page.html",
               R"(<!doctype html><base href="http://mirror.test/root/">
                  <a href="child.html#top">c</a><map><area href="/area"></map>
                  <a href="mailto:x@y.z">m</a>)"),
      site, RenderOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->links, Contains("http://mirror.test/root/child.html"));
  EXPECT_THAT(result->links, Contains("http://mirror.test/area"));
  for (const std::string& link : result->links) {
    EXPECT_EQ(link.rfind("http", 0), 0u) << link;
  }
}

TEST_F(RenderPageTest, TheRequestBudgetRefusesWhatIsPastIt) {
  MemorySite site;
  std::string html = "<!doctype html>";
  for (int i = 0; i < 5; ++i) {
    const std::string url = "http://app.test/s" + std::to_string(i) + ".js";
    site.Add(url, "text/javascript", "");
    html += "<script src=\"" + url + "\"></script>";
  }
  RenderOptions options;
  options.max_requests = 2;
  absl::StatusOr<RenderResult> result =
      browser_->Render(HtmlPage("http://app.test/", html), site, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(site.asked().size(), 2u);
  int budget = 0;
  for (const RenderedRequest& request : result->requests) {
    budget += request.fate == RequestFate::kBudget;
  }
  EXPECT_EQ(budget, 3);
}

// The bytes budget: once the answers of a render reach max_bytes, the
// page's later requests are refused (fate kBudget), never asked for.
TEST_F(RenderPageTest, TheBytesBudgetRefusesWhatIsPastIt) {
  MemorySite site;
  std::string html = "<!doctype html>";
  for (int i = 0; i < 3; ++i) {
    const std::string url = "http://app.test/b" + std::to_string(i) + ".js";
    site.Add(url, "text/javascript", "/*" + std::string(100'000, 'x') + "*/");
    html += "<script src=\"" + url + "\"></script>";
  }
  RenderOptions options;
  options.max_bytes = 150'000;
  absl::StatusOr<RenderResult> result =
      browser_->Render(HtmlPage("http://app.test/", html), site, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(site.asked(), ::testing::ElementsAre("http://app.test/b0.js",
                                                   "http://app.test/b1.js"));
  int budget = 0;
  for (const RenderedRequest& request : result->requests) {
    budget += request.fate == RequestFate::kBudget;
  }
  EXPECT_EQ(budget, 1);
}

TEST_F(RenderPageTest, AWallClockLimitKeepsWhatTheRenderFound) {
  // The handler takes longer than the render may: the page keeps its static
  // links, the render says it was cut.
  class SlowSite : public RenderHandler {
   public:
    absl::StatusOr<SubresourceResponse> Fetch(
        const SubresourceRequest& request) override {
      absl::SleepFor(
          std::min(absl::Seconds(5), request.deadline - absl::Now()));
      return SubresourceResponse{};
    }
  } slow;
  RenderOptions options;
  options.timeout = absl::Seconds(1);
  absl::StatusOr<RenderResult> result =
      browser_->Render(HtmlPage("http://app.test/",
                                "<!doctype html><a href=\"/static\">s</a>"
                                "<script src=\"/slow.js\"></script>"),
                       slow, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->timed_out);
  EXPECT_THAT(result->links, Contains("http://app.test/static"));
}

// A process of the browser that is a renderer (its command line says so).
bool IsRenderer(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/cmdline");
  const std::string cmdline((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
  return cmdline.find("--type=renderer") != std::string::npos;
}

// Pages of one host render in reused tabs: Chromium keeps their renderer
// process instead of starting one per page (~100 ms of CPU each), and no page
// sees what the one before it left.
TEST_F(RenderPageTest, PagesOfOneHostReuseTheirRendererAndNothingElse) {
  std::set<pid_t> before;
  for (pid_t pid : browser_->GroupPids()) {
    if (IsRenderer(pid)) before.insert(pid);
  }
  MemorySite site;
  std::set<pid_t> started;
  for (int i = 0; i < 8; ++i) {
    const std::string n = std::to_string(i);
    absl::StatusOr<RenderResult> result = browser_->Render(
        HtmlPage("http://reuse.test/p" + n,
                 "<!doctype html><script>document.write('<a href=\"/n" + n +
                     "\">n</a>'); setTimeout(() => fetch('/late" + n +
                     ".json'), 100);</script>"),
        site, RenderOptions{});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_THAT(result->links, Contains("http://reuse.test/n" + n));
    EXPECT_EQ(result->final_url, "http://reuse.test/p" + n);
    for (const std::string& link : result->links) {
      EXPECT_EQ(link, "http://reuse.test/n" + n) << "page " << n;
    }
    for (const RenderedRequest& request : result->requests) {
      EXPECT_TRUE(request.url == "http://reuse.test/p" + n ||
                  request.url == "http://reuse.test/late" + n + ".json")
          << "page " << n << " saw " << request.url;
    }
    for (pid_t pid : browser_->GroupPids()) {
      if (IsRenderer(pid) && !before.contains(pid)) started.insert(pid);
    }
  }
  EXPECT_LE(started.size(), 2u);
}

// The browser has no network of its own: a WebSocket, a preconnect, a DNS
// prefetch, a service worker and an image (refused by type) aimed at a live
// loopback port never reach it. Only the handler's answers reach the page.
TEST_F(RenderPageTest, NothingLeavesTheBrowserExceptThroughTheHandler) {
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(
      bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)),
      0);
  ASSERT_EQ(listen(listener, 16), 0);
  socklen_t length = sizeof(address);
  getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  const std::string origin =
      "127.0.0.1:" + std::to_string(ntohs(address.sin_port));

  MemorySite site;
  site.Add("https://app.test/sw.js", "text/javascript", "");
  const std::string html =
      "<!doctype html><link rel=preconnect href=\"http://" + origin +
      "\">"
      "<link rel=dns-prefetch href=\"http://prefetch.example\">"
      "<img src=\"http://" +
      origin +
      "/pixel.png\"><script>"
      "try { new WebSocket('ws://" +
      origin +
      "/socket'); } catch (e) {}"
      "if (navigator.serviceWorker) navigator.serviceWorker.register('/sw.js');"
      "document.write('<a href=\"/sw-' + typeof navigator.serviceWorker + "
      "'\">x</a>');</script>";
  absl::StatusOr<RenderResult> result = browser_->Render(
      HtmlPage("https://app.test/", html), site, RenderOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->links, Contains("https://app.test/sw-undefined"));
  pollfd wait = {listener, POLLIN, 0};
  EXPECT_EQ(poll(&wait, 1, 300), 0) << "the browser connected to " << origin;
  close(listener);
}

}  // namespace
}  // namespace sieve
