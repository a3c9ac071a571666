#include "parse/css_urls.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(CssUrlsTest, ReadsUrlTokensAndImports) {
  EXPECT_THAT(
      ScanCssUrls(R"css(@import "a.css";
@import url(b.css) screen;
@IMPORT 'c.css';
body { background: url( "d.png" ) no-repeat; }
h1 { background-image: URL(e.png) }
i { x: url(  f.png  ) })css"),
      ElementsAre("a.css", "b.css", "c.css", "d.png", "e.png", "f.png"));
}

TEST(CssUrlsTest, CommentsAndStringsHoldNoUrls) {
  EXPECT_THAT(ScanCssUrls(R"css(/* url(a.png) @import "b.css"; */
p { content: "url(c.png)"; quotes: 'url(d.png)' }
q { font-family: "@import"; } r { s: t "u.css" })css"),
              IsEmpty());
  // An unclosed comment runs to the end.
  EXPECT_THAT(ScanCssUrls("a { b: url(x.png) } /* url(y.png)css"),
              ElementsAre("x.png"));
  // A name that merely ends in "url" is not url().
  EXPECT_THAT(ScanCssUrls("a { b: myurl(x.png); c: -url(y.png) }"), IsEmpty());
}

TEST(CssUrlsTest, DecodesEscapes) {
  EXPECT_THAT(ScanCssUrls(R"css(a { b: url(x\29 .png) } c { d: url("y\"z.png") }
e { f: url('line\
break.png') } g { h: url(\E9t\E9.png) })css"),
              ElementsAre("x).png", "y\"z.png", "linebreak.png",
                          "\xC3\xA9t\xC3\xA9.png"));
}

TEST(CssUrlsTest, DropsBadUrlsAndEmptyOnes) {
  EXPECT_THAT(ScanCssUrls("a { b: url(bad\"x.png) url(ok.png) url(bad x) url() "
                          "url(\"\") url(\"nl\n\") url(last.png)css"),
              ElementsAre("ok.png", "last.png"));
  // EOF ends a url or a string.
  EXPECT_THAT(ScanCssUrls("a { b: url(tail.png"), ElementsAre("tail.png"));
  EXPECT_THAT(ScanCssUrls("@import 'tail.css"), ElementsAre("tail.css"));
}

TEST(CssUrlsTest, ResolvesAgainstTheStylesheetAndSkipsOtherSchemes) {
  const CssLinks links = ExtractCssLinks(
      "@import '../base.css'; a { b: url(img/x.png#frag) } "
      "c { d: url(data:image/png;base64,AAAA) } e { f: url(//cdn.example/y) } "
      "g { h: url(http://[bad/) }",
      "http://example.com/css/main.css");
  EXPECT_THAT(links.urls, ElementsAre("http://example.com/base.css",
                                      "http://example.com/css/img/x.png",
                                      "http://cdn.example/y"));
  EXPECT_EQ(links.skipped, 2);
}

// Any bytes: the url() of raw bytes is read as written, the @import string
// (a backslash and the NUL that ends the literal) holds the escaped code point
// (CSS Syntax 4.3.7: U+0000 escaped is U+FFFD; not checked here), and each
// reference is either resolved to a printable absolute URL or counted as
// skipped.
TEST(CssUrlsTest, AnyBytesAreAcceptedAndEveryReferenceIsAccountedFor) {
  const std::string junk("\0\xff url(\x80\0) @import \"\\", 22);
  const std::vector<std::string> refs = ScanCssUrls(junk);
  EXPECT_THAT(refs, ElementsAre(std::string("\x80\0", 2), ::testing::_));
  const CssLinks links = ExtractCssLinks(junk, "http://example.com/");
  EXPECT_EQ(links.urls.size() + static_cast<size_t>(links.skipped),
            refs.size());
  for (const std::string& url : links.urls) {
    EXPECT_TRUE(url.starts_with("http://example.com/")) << url;
    EXPECT_TRUE(std::all_of(url.begin(), url.end(), [](char c) {
      return c > ' ' && c < 0x7f;
    })) << url;
  }
}

}  // namespace
}  // namespace sieve
