#include "parse/link_extractor.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Urls(const ExtractedLinks& page) {
  std::vector<std::string> urls;
  for (const Link& link : page.links) urls.push_back(link.url);
  return urls;
}

TEST(LinkExtractorTest, ExtractsEveryLinkKindWithItsRel) {
  const ExtractedLinks page = ExtractLinks(
      R"(<html><head>
           <link rel="canonical" href="/canon">
           <link rel="alternate" hreflang="de" href="/de/">
           <link rel="next" href="?page=2">
           <link rel="stylesheet" href="style.css">
           <meta http-equiv="Refresh" content="5; URL='/moved'">
         </head><body>
           <a href="page.html">a</a>
           <map><area href="/area" alt=""></map>
           <iframe src="//cdn.example.org/embed"></iframe>
         </body></html>)",
      "http://example.com/dir/index.html", "text/html; charset=utf-8");
  ASSERT_EQ(page.links.size(), 8u);
  const std::vector<std::pair<LinkKind, std::string>> want = {
      {LinkKind::kLink, "http://example.com/canon"},
      {LinkKind::kLink, "http://example.com/de/"},
      {LinkKind::kLink, "http://example.com/dir/index.html?page=2"},
      {LinkKind::kLink, "http://example.com/dir/style.css"},
      {LinkKind::kMetaRefresh, "http://example.com/moved"},
      {LinkKind::kAnchor, "http://example.com/dir/page.html"},
      {LinkKind::kArea, "http://example.com/area"},
      {LinkKind::kIframe, "http://cdn.example.org/embed"}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(page.links[i].kind, want[i].first) << i;
    EXPECT_EQ(page.links[i].url, want[i].second) << i;
  }
  EXPECT_EQ(page.links[0].rel, "canonical");
  EXPECT_TRUE(page.links[2].HasRel("next"));
  EXPECT_EQ(LinkKindName(page.links[4].kind), "meta-refresh");
  EXPECT_EQ(page.encoding, "UTF-8");
}

struct RefreshCase {
  const char* content;
  const char*
      want;  // "" when the refresh only reloads the page or is malformed
};

class MetaRefreshTest : public ::testing::TestWithParam<RefreshCase> {};

// HTML Standard "shared declarative refresh steps": time, ';' or ',', optional
// "url=", quotes.
TEST_P(MetaRefreshTest, ReadsTheUrlOfARefresh) {
  const std::string html = std::string("<meta http-equiv=refresh content=\"") +
                           GetParam().content + "\">";
  const ExtractedLinks page = ExtractLinks(html, "http://a.com/d/", "");
  if (*GetParam().want == '\0') {
    EXPECT_TRUE(page.links.empty()) << GetParam().content;
  } else {
    EXPECT_THAT(Urls(page), ElementsAre(GetParam().want)) << GetParam().content;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Forms, MetaRefreshTest,
    ::testing::Values(RefreshCase{"0;url=/a", "http://a.com/a"},
                      RefreshCase{"3, b", "http://a.com/d/b"},
                      RefreshCase{"5; URL = 'c?x=1'", "http://a.com/d/c?x=1"},
                      RefreshCase{"1.5;Url=http://other.org/",
                                  "http://other.org/"},
                      RefreshCase{"30", ""}, RefreshCase{"soon; url=/x", ""},
                      RefreshCase{"0; url=", ""}));

TEST(LinkExtractorTest, ExtractsFramesOfAFrameset) {
  const ExtractedLinks page = ExtractLinks(
      "<html><frameset cols='50%,50%'><frame src='left.html'><frame "
      "src='/right'></frameset>",
      "http://a.com/f/", "text/html");
  ASSERT_EQ(page.links.size(), 2u);
  EXPECT_EQ(page.links[0].kind, LinkKind::kFrame);
  EXPECT_THAT(Urls(page),
              ElementsAre("http://a.com/f/left.html", "http://a.com/right"));
}

TEST(LinkExtractorTest, FirstBaseHrefChangesTheBaseForEveryLink) {
  const ExtractedLinks page = ExtractLinks(
      "<a href='early'>x</a><base href='/other/dir/'><base "
      "href='http://ignored.com/'>"
      "<a href='late'>y</a>",
      "http://a.com/x/y.html", "text/html");
  EXPECT_EQ(page.base_url, "http://a.com/other/dir/");
  EXPECT_THAT(Urls(page), ElementsAre("http://a.com/other/dir/early",
                                      "http://a.com/other/dir/late"));
}

TEST(LinkExtractorTest, BaseThatDoesNotResolveIsIgnored) {
  const ExtractedLinks page = ExtractLinks(
      "<base href='http://[bad/'><a href='z'>z</a>", "http://a.com/d/", "");
  EXPECT_THAT(Urls(page), ElementsAre("http://a.com/d/z"));
}

TEST(LinkExtractorTest, RelIsASpaceSeparatedCaseInsensitiveTokenList) {
  const ExtractedLinks page = ExtractLinks(
      "<a rel='NoFollow  noopener' href='/1'></a><a rel='nofollowx' "
      "href='/2'></a>"
      "<a rel='noopener\tnofollow' href='/3'></a><a href='/4'></a>",
      "http://a.com/", "");
  ASSERT_EQ(page.links.size(), 4u);
  EXPECT_TRUE(page.links[0].nofollow);
  EXPECT_EQ(page.links[0].rel, "nofollow noopener");
  EXPECT_FALSE(page.links[1].nofollow);
  EXPECT_TRUE(page.links[2].nofollow);
  EXPECT_FALSE(page.links[3].nofollow);
  EXPECT_EQ(page.links[3].rel, "");
  EXPECT_FALSE(page.nofollow);
  EXPECT_FALSE(page.noindex);
}

struct RobotsCase {
  const char* html;
  const char* x_robots_tag;
  bool nofollow;
  bool noindex;
};

class PageRobotsTest : public ::testing::TestWithParam<RobotsCase> {};

TEST_P(PageRobotsTest, ReportsPageLevelDirectives) {
  LinkOptions options;
  options.robots_name = "sievebot";
  const ExtractedLinks page = ExtractLinks(GetParam().html, "http://a.com/", "",
                                           GetParam().x_robots_tag, options);
  EXPECT_EQ(page.nofollow, GetParam().nofollow);
  EXPECT_EQ(page.noindex, GetParam().noindex);
}

INSTANTIATE_TEST_SUITE_P(
    Directives, PageRobotsTest,
    ::testing::Values(
        RobotsCase{"<meta name=robots content=nofollow>", "", true, false},
        RobotsCase{"<META NAME='ROBOTS' CONTENT='NOINDEX'>", "", false, true},
        RobotsCase{"<meta name=robots content='noindex, nofollow'>", "", true,
                   true},
        RobotsCase{"<meta name=robots content=none>", "", true, true},
        RobotsCase{"<meta name=robots content='index,follow'>", "", false,
                   false},
        RobotsCase{"<meta name=otherbot content=noindex>", "", false, false},
        RobotsCase{"<meta name=sievebot content=nofollow>", "", true, false},
        RobotsCase{"", "noindex", false, true},
        RobotsCase{"", "NoFollow, noarchive", true, false},
        RobotsCase{"", "otherbot: noindex, nofollow", false, false},
        RobotsCase{"", "SieveBot: noindex", false, true},
        RobotsCase{"", "unavailable_after: 25 Jun 2010 15:00:00 PST, nofollow",
                   true, false}));

TEST(LinkExtractorTest, SkipsAndCountsNonHttpAndUnparsableHrefs) {
  const ExtractedLinks page = ExtractLinks(
      "<a href='javascript:void(0)'></a><a href='JavaScript:x()'></a><a "
      "href='mailto:a@b.c'></a>"
      "<a href='tel:+1555'></a><a href='data:text/html,hi'></a><a "
      "href='java&#10;script:x'></a>"
      "<a href='ftp://f.com/'></a><a href='http://exa mple.com/'></a><a "
      "href='http://[::1/'></a>"
      "<a href='http://a.com:99999/'></a><a href='/fine'></a><a>no href</a>",
      "http://a.com/", "");
  EXPECT_THAT(Urls(page), ElementsAre("http://a.com/fine"));
  EXPECT_EQ(page.skipped_scheme, 7);
  EXPECT_EQ(page.skipped_invalid, 3);
}

TEST(LinkExtractorTest, DecodesEntitiesAndTrimsWhitespace) {
  const ExtractedLinks page = ExtractLinks(
      "<a href='/a?x=1&amp;y=2&lt'></a><a href='&#47;b&#x2F;c'></a><a href=\"  "
      "\n /d\t \"></a>"
      "<a href='/caf&eacute;'></a>",
      "http://a.com/", "text/html; charset=utf-8");
  EXPECT_THAT(Urls(page),
              ElementsAre("http://a.com/a?x=1&y=2%3C", "http://a.com/b/c",
                          "http://a.com/d", "http://a.com/caf%C3%A9"));
}

TEST(LinkExtractorTest, ReadsUppercaseTagsAndAttributes) {
  const ExtractedLinks page =
      ExtractLinks("<HTML><BODY><A HREF='/X'>x</A><IFRAME SRC='/Y'></IFRAME>",
                   "http://A.com/", "");
  EXPECT_THAT(Urls(page), ElementsAre("http://a.com/X", "http://a.com/Y"));
}

TEST(LinkExtractorTest, SurvivesUnclosedAndBrokenTags) {
  constexpr char kHtml[] =
      "<p><a href=/1>one<a href=/2>two<div><b><a "
      "href=/3>three</p></i><table><a href='/4'>"
      "<a href=\"/5";
  LinkOptions gumbo;
  gumbo.html_parser = HtmlParser::kGumbo;
  // The HTML5 adoption agency algorithm reopens the unclosed <a href=/2> inside
  // the <div>, so gumbo's tree (a browser's too) holds it twice. The tokenizer
  // gives each <a> once: TreeState does not model the adoption agency
  // (parse/html/tree_state.h), a known difference that adds no new URL. The
  // unterminated last tag is dropped by both.
  EXPECT_THAT(Urls(ExtractLinks(kHtml, "http://a.com/", "", "", gumbo)),
              ElementsAre("http://a.com/1", "http://a.com/2", "http://a.com/2",
                          "http://a.com/3", "http://a.com/4"));
  EXPECT_THAT(Urls(ExtractLinks(kHtml, "http://a.com/", "")),
              ElementsAre("http://a.com/1", "http://a.com/2", "http://a.com/3",
                          "http://a.com/4"));
}

TEST(LinkExtractorTest, HandlesAFiveMegabytePage) {
  std::string html = "<html><body>";
  int expected = 0;
  while (html.size() < 5 * 1024 * 1024) {
    html +=
        "<div class='item'><p>Some text to make this look like a real page "
        "&amp; more.</p>";
    html += "<a href='/item/" + std::to_string(expected) +
            "?ref=list'>item</a></div>\n";
    ++expected;
  }
  const ExtractedLinks page =
      ExtractLinks(html, "http://big.example.com/", "text/html");
  ASSERT_EQ(static_cast<int>(page.links.size()), expected);
  EXPECT_EQ(page.links.back().url, "http://big.example.com/item/" +
                                       std::to_string(expected - 1) +
                                       "?ref=list");
}

// gumbo 0.10.1 is quadratic in nesting depth (each start tag scans the stack of
// open elements), so this stays at a depth a test can afford; the tree walk and
// teardown are loops, not recursion, at any depth.
TEST(LinkExtractorTest, SurvivesDeeplyNestedElements) {
  std::string html;
  for (int i = 0; i < 10000; ++i) html += "<div>";
  html += "<a href='/deep'>x</a>";
  const ExtractedLinks page = ExtractLinks(html, "http://a.com/", "text/html");
  EXPECT_THAT(Urls(page), ElementsAre("http://a.com/deep"));
}

TEST(LinkExtractorTest, ReadsAnUnlabelledWindows1252Page) {
  // 0xE9 is "é" and 0x80 is "€" in windows-1252; no charset anywhere, so the
  // HTML Standard's default applies.
  const ExtractedLinks page =
      ExtractLinks("<a href='/caf\xE9'>x</a><a href='/\x80'>y</a>",
                   "http://a.com/", "text/html");
  EXPECT_EQ(page.encoding, "windows-1252");
  EXPECT_THAT(Urls(page),
              ElementsAre("http://a.com/caf%C3%A9", "http://a.com/%E2%82%AC"));
}

TEST(LinkExtractorTest, ReadsALatin1LabelledPageAsWindows1252) {
  const ExtractedLinks page =
      ExtractLinks("<a href='/\x80'>y</a>", "http://a.com/",
                   "text/html; charset=ISO-8859-1");
  EXPECT_EQ(page.encoding, "windows-1252");
  EXPECT_THAT(Urls(page), ElementsAre("http://a.com/%E2%82%AC"));
}

// "表" is 0x95 0x5C in Shift_JIS and "本" is 0x96 0x7B: their second bytes are
// '\' and '{', so a page read as ASCII would turn the first into a '/' path
// separator.
constexpr char kShiftJisPage[] =
    "<html><head><meta "
    "charset=\"Shift_JIS\"><title>\x93\xFA\x96\x7B</title></head>"
    "<body><a "
    "href=\"/\x95\x5C/\x93\xFA\x96\x7B.html\">\x95\x5C</a></body></html>";
constexpr char kShiftJisLink[] =
    "http://jp.example/%E8%A1%A8/%E6%97%A5%E6%9C%AC.html";

TEST(LinkExtractorTest, ReadsAShiftJisPageDeclaredInMeta) {
  const ExtractedLinks page =
      ExtractLinks(kShiftJisPage, "http://jp.example/", "text/html");
  EXPECT_EQ(page.encoding, "Shift_JIS");
  EXPECT_THAT(Urls(page), ElementsAre(kShiftJisLink));
}

TEST(LinkExtractorTest, ReadsAShiftJisPageDeclaredInContentType) {
  const std::string page_bytes =
      "<a href=\"/\x95\x5C/\x93\xFA\x96\x7B.html\">x</a>";
  const ExtractedLinks page = ExtractLinks(page_bytes, "http://jp.example/",
                                           "text/html; charset=\"shift_jis\"");
  EXPECT_EQ(page.encoding, "Shift_JIS");
  EXPECT_THAT(Urls(page), ElementsAre(kShiftJisLink));
}

TEST(LinkExtractorTest, ReplacesInvalidUtf8AndKeepsGoing) {
  const ExtractedLinks page =
      ExtractLinks("<a href='/\xFF\xFE'>x</a><a href='/ok'>y</a>",
                   "http://a.com/", "text/html; charset=utf-8");
  EXPECT_THAT(Urls(page), ElementsAre("http://a.com/%EF%BF%BD%EF%BF%BD",
                                      "http://a.com/ok"));
}

TEST(LinkExtractorTest, RelativeLinksNeedAValidDocumentUrl) {
  const ExtractedLinks page = ExtractLinks(
      "<a href='/rel'></a><a href='https://abs.com/'></a>", "not a url", "");
  EXPECT_THAT(Urls(page), ElementsAre("https://abs.com/"));
  EXPECT_EQ(page.skipped_invalid, 1);
}

TEST(LinkExtractorTest, AppliesUrlOptionsToEveryLink) {
  LinkOptions options;
  options.url.drop_query_params = {"utm_*"};
  const ExtractedLinks page =
      ExtractLinks("<a href='/p?utm_source=x&id=1#top'></a>", "http://a.com/",
                   "", "", options);
  EXPECT_THAT(Urls(page), ElementsAre("http://a.com/p?id=1"));
}

TEST(LinkExtractorTest, EmptyAndBinaryInputGiveNoLinks) {
  EXPECT_TRUE(ExtractLinks("", "http://a.com/", "").links.empty());
  const std::string binary("\x00\x01\xFF<\x00a href\x00=/x>", 14);
  EXPECT_NO_FATAL_FAILURE(ExtractLinks(binary, "http://a.com/", "image/png"));
}

TEST(LinkExtractorTest, TheTokenizerIsTheDefaultAndGumboIsChosenByName) {
  EXPECT_EQ(LinkOptions{}.html_parser, HtmlParser::kTokenizer);
  EXPECT_EQ(ParseHtmlParser("tokenizer").value(), HtmlParser::kTokenizer);
  EXPECT_EQ(ParseHtmlParser("gumbo").value(), HtmlParser::kGumbo);
  EXPECT_EQ(HtmlParserName(HtmlParser::kGumbo), "gumbo");
  EXPECT_FALSE(ParseHtmlParser("lexbor").ok());
}

}  // namespace
}  // namespace sieve

namespace sieve {
namespace {

// LinkOptions::find_ids: whether an element has one of the ids, however its
// attribute is written (case, spaces, quotes, character references), from
// both parsers; never without the option.
TEST(LinkExtractorTest, FindsAnElementIdFromBothParsers) {
  const std::vector<std::string> ids = {"app", "__next"};
  for (const HtmlParser parser : {HtmlParser::kTokenizer, HtmlParser::kGumbo}) {
    SCOPED_TRACE(HtmlParserName(parser));
    LinkOptions options;
    options.html_parser = parser;
    options.find_ids = ids;
    auto found = [&](const std::string& html) {
      return ExtractLinks(html, "http://example.com/", "", "", options)
          .found_id;
    };
    for (const char* page :
         {"<div id=app></div>", "<div ID = 'app'></div>",
          "<p>x</p><main id=\"__next\">y</main>", "<div id=&#97;pp></div>",
          "<svg><g id=app></g></svg>"}) {
      EXPECT_TRUE(found(page)) << page;
    }
    for (const char* page :
         {"<div id=application></div>", "<div class=app></div>",
          "<div id=App></div>", "<!-- <div id=app> -->",
          "<script>'<div id=app>'</script>", "<p>id=app</p>"}) {
      EXPECT_FALSE(found(page)) << page;
    }
    options.find_ids.clear();
    EXPECT_FALSE(found("<div id=app></div>"));
  }
}

// Page requisites (LinkOptions::requisites), from both parsers: what a
// browser loads to display the page, marked requisite; none without the
// option.
TEST(LinkExtractorTest, RequisitesFromBothParsers) {
  constexpr std::string_view kPage = R"(<html><head>
      <link rel="stylesheet" href="a.css"><link rel="ICON shortcut" href="/i.ico">
      <link rel="canonical" href="/c"><script src="s.js"></script>
      <script>var x = "<img src=no.png>";</script>
    </head><body>
      <a href="p.html">p</a>
      <img src="one.png" srcset="small.png 1x,  large.png 2x, data:x 3x">
      <picture><source srcset="w.webp 100w, f(1),x.webp (a,b) 200w,,  y.webp,">
      <img src="pic.png"></picture>
      <img srcset=" z.png">
    </body></html>)";
  for (const HtmlParser parser : {HtmlParser::kTokenizer, HtmlParser::kGumbo}) {
    SCOPED_TRACE(HtmlParserName(parser));
    LinkOptions options;
    options.html_parser = parser;
    options.requisites = true;
    const ExtractedLinks page =
        ExtractLinks(kPage, "http://example.com/d/", "", "", options);
    std::vector<std::string> requisites, links;
    for (const Link& link : page.links) {
      (link.requisite ? requisites : links)
          .push_back(std::string(LinkKindName(link.kind)) + " " + link.url);
    }
    EXPECT_THAT(requisites, ElementsAre("link http://example.com/d/a.css",
                                        "link http://example.com/i.ico",
                                        "script http://example.com/d/s.js",
                                        "img http://example.com/d/one.png",
                                        "img http://example.com/d/small.png",
                                        "img http://example.com/d/large.png",
                                        "img http://example.com/d/w.webp",
                                        "img http://example.com/d/f(1),x.webp",
                                        "img http://example.com/d/y.webp",
                                        "img http://example.com/d/pic.png",
                                        "img http://example.com/d/z.png"));
    EXPECT_THAT(links, ElementsAre("link http://example.com/c",
                                   "a http://example.com/d/p.html"));
    EXPECT_EQ(page.skipped_scheme, 1);  // data:x

    options.requisites = false;
    const ExtractedLinks plain =
        ExtractLinks(kPage, "http://example.com/d/", "", "", options);
    ASSERT_EQ(plain.links.size(), 4u);  // The <link>s and the <a>.
    for (const Link& link : plain.links) EXPECT_FALSE(link.requisite);
  }
}

}  // namespace
}  // namespace sieve
