// Rendering's pieces on their own (#38): which pages render.mode = auto
// renders (crawler/render/render_signs.h), the render mode's names, and the
// frontier's host lane a render's requests take (Frontier::StartHostRequest).
#include <memory>
#include <string>

#include "crawler/render/render_mode.h"
#include "crawler/render/render_signs.h"
#include "frontier/frontier.h"
#include "gtest/gtest.h"
#include "parse/link_extractor.h"

namespace sieve {
namespace {

// ShouldRenderAuto as the crawl calls it: the app roots looked for by the
// link extractor's pass.
bool Renders(const std::string& html, int64_t links) {
  LinkOptions options;
  options.find_ids = AppRootIds();
  const bool found_id =
      ExtractLinks(html, "http://a.test/", "", "", options).found_id;
  const bool renders = ShouldRenderAuto(html, links, found_id);
  EXPECT_EQ(renders, LooksScriptBuilt(ReadRenderSigns(html), links)) << html;
  return renders;
}

TEST(RenderSignsTest, AnEmptyAppRootRenders) {
  EXPECT_TRUE(Renders(
      "<title>A</title><div id=app></div><script src=a.js></script>", 0));
  EXPECT_TRUE(
      Renders("<div id=\"__next\">\n </div><script src=b.js></script>"
              "<p>" +
                  std::string(500, 'x') + "</p><a href=/x>x</a>",
              1));
  // A filled root is no sign.
  EXPECT_FALSE(Renders("<div id=app><p>" + std::string(300, 'x') +
                           "</p><a href=/a>a</a></div><script>1</script>",
                       1));
}

TEST(RenderSignsTest, NoscriptAskingForJavaScriptRenders) {
  EXPECT_TRUE(
      Renders("<noscript>Please enable JavaScript.</noscript>"
              "<script src=a.js></script><p>" +
                  std::string(400, 'y') + "</p><a href=/b>b</a>",
              1));
  EXPECT_FALSE(
      Renders("<noscript><img src=pixel.gif></noscript>"
              "<script>1</script><p>" +
                  std::string(400, 'y') + "</p><a href=/b>b</a>",
              1));
}

TEST(RenderSignsTest, ANoscriptOnAFullPageDoesNotRender) {
  // Javadoc 17 writes this <noscript> and a script on every page, each full
  // of links and text: the default mode rendered every page of the Java SE
  // API (1,255 of the first 1,361) before this rule.
  std::string page =
      "<script src=script.js></script><noscript><div>JavaScript is disabled "
      "on your browser.</div></noscript><p>" +
      std::string(2000, 'j') + "</p>";
  for (int i = 0; i < 15; ++i)
    page += "<a href=/c" + std::to_string(i) + ">c</a>";
  EXPECT_FALSE(Renders(page, 15));
  // The same <noscript> over a page with few links renders.
  EXPECT_TRUE(
      Renders("<script src=a.js></script><noscript>JavaScript is "
              "disabled on your browser.</noscript><p>Loading</p>"
              "<a href=/a>a</a><a href=/b>b</a><a href=/c>c</a>"
              "<a href=/d>d</a>",
              4));
}

TEST(RenderSignsTest, AnAppRootAmongManyLinksIsFoundHoweverItsIdIsWritten) {
  const std::string links =
      "<a href=/a>a</a><a href=/b>b</a><a href=/c>c</a><a href=/d>d</a>"
      "<a href=/e>e</a><a href=/f>f</a>";
  for (const char* root :
       {"<div id=\"app\"></div>", "<div ID = 'root'></div>",
        "<main id=__next></main>", "<div id=svelte>\n</div>"}) {
    EXPECT_TRUE(Renders(links + root + "<script src=a.js></script>", 6))
        << root;
  }
  // Ids that only start like one, and other attributes, are not app roots.
  for (const char* other :
       {"<div id=\"application\"></div>", "<div class=\"app\"></div>",
        "<div data-x=\"root\"></div>", "<p>id=app</p>",
        "<!-- <div id=app></div> -->"}) {
    EXPECT_FALSE(Renders(links + other + "<script src=a.js></script>", 6))
        << other;
  }
}

TEST(RenderSignsTest, ScriptsWithoutLinksOrTextRender) {
  EXPECT_TRUE(Renders("<title>T</title><script>var s = '" +
                          std::string(5000, 'z') + "';</script>",
                      0));
  // Text alone: a page without links is not built by script.
  EXPECT_FALSE(
      Renders("<script>1</script><p>" + std::string(300, 'w') + "</p>", 0));
  // Never without a script.
  EXPECT_FALSE(Renders("<div id=app></div><noscript>JavaScript</noscript>", 0));
}

TEST(RenderSignsTest, ScriptTagsAreFoundInAnyCase) {
  EXPECT_TRUE(ReadRenderSigns("<div id=app></div><SCRIPT src=a.js>").scripts);
  EXPECT_TRUE(ReadRenderSigns("<p>x</p><ScRiPt>1</script>").scripts);
  EXPECT_FALSE(ReadRenderSigns("<p>x</p><scrip").scripts);
  EXPECT_FALSE(ReadRenderSigns("<p>no script here</p><").scripts);
}

TEST(RenderModeTest, NamesRoundTrip) {
  for (RenderMode mode : AllRenderModes()) {
    absl::StatusOr<RenderMode> parsed = ParseRenderMode(RenderModeName(mode));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, mode);
  }
  EXPECT_FALSE(ParseRenderMode("sometimes").ok());
}

// A subresource's request is its host's request: it waits for the delay,
// holds the host's slot (no URL of the host is handed out meanwhile), and
// the host's next request waits the delay after it ends.
TEST(HostLaneTest, ARequestInTheLaneCountsAgainstItsHostsPoliteness) {
  const absl::Time t0 = absl::FromUnixSeconds(1'700'000'000);
  absl::StatusOr<std::unique_ptr<Frontier>> made =
      Frontier::Create({.sieve = {.expected_urls = 10'000, .fp_rate = 1e-6},
                        .politeness = {.min_delay = absl::Seconds(2)}});
  ASSERT_TRUE(made.ok()) << made.status();
  Frontier& f = **made;
  ASSERT_TRUE(f.Add("http://a.test/1", "a.test", 0));
  NextUrl page = f.Next(t0);
  ASSERT_EQ(page.state, NextUrl::kReady);
  ASSERT_TRUE(
      f.Done(page.url.url, FetchOutcome::Success(absl::ZeroDuration()), t0)
          .ok());
  // The delay after the page holds the lane.
  absl::StatusOr<absl::Duration> wait = f.StartHostRequest("a.test", t0);
  ASSERT_TRUE(wait.ok());
  EXPECT_EQ(*wait, absl::Seconds(2));
  ASSERT_TRUE(f.Add("http://a.test/2", "a.test", 0));
  const absl::Time t2 = t0 + absl::Seconds(2);
  // The lane goes first; while its request runs, no page of the host.
  EXPECT_EQ(*f.StartHostRequest("a.test", t2), absl::ZeroDuration());
  EXPECT_NE(f.Next(t2 + absl::Seconds(5)).state, NextUrl::kReady);
  f.EndHostRequest("a.test", FetchOutcome::Success(absl::ZeroDuration()),
                   t2 + absl::Seconds(5));
  EXPECT_NE(f.Next(t2 + absl::Seconds(6)).state, NextUrl::kReady);
  EXPECT_EQ(f.Next(t2 + absl::Seconds(7)).state, NextUrl::kReady);
  // Another host's lane is free.
  EXPECT_EQ(*f.StartHostRequest("b.test", t2), absl::ZeroDuration());
}

}  // namespace
}  // namespace sieve
