// The tokenizer (HtmlParser::kTokenizer: parse/html's tokenizer and tree-state
// shim) gives exactly gumbo's links (HtmlParser::kGumbo, the reference):
//
// - on hand-written pages for each tokenizer state and tree rule that changes
//   links, where both parsers must give the expected list;
// - page by page over real documentation sites (the Debian packages
//   postgresql-doc-15, python3-doc and openjdk-17-doc, installed by
//   scripts/install-deps.sh; libxslt1-dev's old ISO-8859-1 XHTML and rust-doc
//   when present): each link's URL, kind and rel, the base, nofollow/noindex
//   and the skipped counts. A site whose files are absent is skipped with a
//   message. Sites are sampled to about kSampleBytes each (every k-th file in
//   path order); SIEVE_DOCS_FULL=1 reads every file (ctest runs that as
//   parse_html_differential_full_test, label slow).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "parse/link_extractor.h"
#include "tests/common/doc_sites.h"
#include "tests/common/files.h"

namespace sieve {
namespace {

using std::string_literals::operator""s;

constexpr size_t kSampleBytes = size_t{4} << 20;
constexpr char kBase[] = "http://example.com/d/p.html";

ExtractedLinks Extract(std::string_view html, HtmlParser parser,
                       std::string_view base = kBase,
                       std::string_view content_type = "text/html") {
  LinkOptions options;
  options.html_parser = parser;
  options.robots_name = "sievebot";
  return ExtractLinks(html, base, content_type, "", options);
}

// One line per link: "kind url [rel]".
std::vector<std::string> Lines(const ExtractedLinks& page) {
  std::vector<std::string> lines;
  for (const Link& link : page.links) {
    std::string line = std::string(LinkKindName(link.kind)) + " " + link.url;
    if (!link.rel.empty()) line += " [" + link.rel + "]";
    lines.push_back(line);
  }
  lines.push_back("base " + page.base_url);
  if (page.nofollow) lines.push_back("nofollow");
  if (page.noindex) lines.push_back("noindex");
  if (page.skipped_scheme) {
    lines.push_back("skipped_scheme " + std::to_string(page.skipped_scheme));
  }
  if (page.skipped_invalid) {
    lines.push_back("skipped_invalid " + std::to_string(page.skipped_invalid));
  }
  return lines;
}

struct Case {
  const char* name;
  std::string html;
  std::vector<std::string> want;  // Lines(), base line included
};

class HandWrittenTest : public ::testing::TestWithParam<Case> {};

TEST_P(HandWrittenTest, TokenizerAndGumboGiveTheExpectedLinks) {
  const Case& c = GetParam();
  EXPECT_EQ(Lines(Extract(c.html, HtmlParser::kGumbo)), c.want) << "gumbo";
  EXPECT_EQ(Lines(Extract(c.html, HtmlParser::kTokenizer)), c.want)
      << "tokenizer";
}

const std::string kBaseLine = std::string("base ") + kBase;

INSTANTIATE_TEST_SUITE_P(
    States, HandWrittenTest,
    ::testing::Values(
        Case{"RawTextAndRcdata",
             "<title><a href=t></title><a href=1><style><a href=s></style>"
             "<textarea><a href=x></textarea><xmp><a href=x></xmp>"
             "<iframe><a href=x></iframe><noembed><a href=x></noembed>"
             "<noframes><a href=x></noframes><script><a href=x></script>"
             "<a href=2>",
             {"a http://example.com/d/1", "a http://example.com/d/2",
              kBaseLine}},
        Case{"ScriptEscapes",
             "<script><!--<script><a href=x></script><a href=y>--></script>"
             "<a href=3>",
             {"a http://example.com/d/3", kBaseLine}},
        Case{"Plaintext",
             "<a href=1><plaintext><a href=2></plaintext>",
             {"a http://example.com/d/1", kBaseLine}},
        Case{"Comments",
             "<!--><a href=1>--><!---><a href=2>--><!-- --!><a href=3>"
             "<!-- <a href=x> --><!-- -- <a href=y> --><? <a href=z ?>",
             {"a http://example.com/d/1", "a http://example.com/d/2",
              "a http://example.com/d/3", kBaseLine}},
        Case{"CdataOutsideForeignContentIsABogusComment",
             "<![CDATA[ > <a href=1> ]]>",
             {"a http://example.com/d/1", kBaseLine}},
        Case{"CdataInForeignContent",
             "<svg><![CDATA[ > <a href=x> ]]></svg><math><![CDATA[<a href=y>]]>"
             "</math><a href=2>",
             {"a http://example.com/d/2", kBaseLine}},
        Case{"SvgTitleAndStyleAreNotRawText",
             "<svg><style><a href=1></style></svg>"
             "<svg><title><a href=2></a></title><a xlink:href=3></a></svg>"
             "<title><a href=x></title>",
             {"a http://example.com/d/1", "a http://example.com/d/2",
              "a http://example.com/d/3", kBaseLine}},
        Case{"BreakOutTagsLeaveForeignContent",
             "<svg><p><style><a href=x></style><a href=1>"
             "<math><mtext><style><a href=y></style></mtext><b>"
             "<textarea><a href=z></textarea>",
             {"a http://example.com/d/1", kBaseLine}},
        Case{"Template",
             "<template><a href=1><style><a href=x></style></template>"
             "<a href=2>",
             {"a http://example.com/d/1", "a http://example.com/d/2",
              kBaseLine}},
        Case{"SelectIgnoresTagsAndTextareaClosesIt",
             "<select><a href=x><iframe src=y><textarea><a href=z></textarea>"
             "<a href=1>",
             {"a http://example.com/d/1", kBaseLine}},
        // The page is windows-1252 (no charset given), so its query is too.
        Case{"EntitiesWithAndWithoutSemicolon",
             "<a href='?a=1&amp;b=2&copy=3&notit;&not;x&lt'>"
             "<a href=\"&#x2f;&#47;h&#X2F;&#0;&#x80\">",
             {"a http://example.com/d/p.html?a=1&b=2&copy=3&notit;%ACx%3C",
              "a http://h/%EF%BF%BD%E2%82%AC", kBaseLine}},
        Case{"Nul",
             std::string("<a href=\"x\0y\"><a\0 href=z>", 24),
             {"a http://example.com/d/x%EF%BF%BDy", kBaseLine}},
        Case{"DuplicateAttributesKeepTheFirst",
             "<a href=1 href=2 rel=next REL=nofollow>",
             {"a http://example.com/d/1 [next]", kBaseLine}},
        Case{"Uppercase",
             "<A HREF=1><LINK REL='NoFollow  StyleSheet' HREF=2>"
             "<META HTTP-EQUIV=Refresh CONTENT='0; URL=3'>"
             "<META NAME=ROBOTS CONTENT=NOINDEX>",
             {"a http://example.com/d/1",
              "link http://example.com/d/2 [nofollow stylesheet]",
              "meta-refresh http://example.com/d/3", kBaseLine, "noindex"}},
        Case{"FirstBaseWinsEvenInTheBody",
             "<a href=x><base href='http://b1/'><base href='http://b2/'>",
             {"a http://b1/x", "base http://b1/"}},
        Case{"Frames",
             "<frameset><frame src=1><a href=x></frameset>",
             {"frame http://example.com/d/1", kBaseLine}},
        Case{"FrameOutsideAFramesetIsIgnored",
             "<body><frame src=x><a href=1>",
             {"a http://example.com/d/1", kBaseLine}},
        Case{"NoscriptAsWithScriptingOff",
             "<noscript><a href=1></noscript>",
             {"a http://example.com/d/1", kBaseLine}},
        Case{"FramesetDiscardsTheBodySoFar",
             "<link href=1><a href=x><base href='http://b/'><frameset>"
             "<frame src=2>",
             {"link http://example.com/d/1", "frame http://example.com/d/2",
              kBaseLine}},
        Case{"TextOrAnImageBeforeAFramesetKeepsTheBody",
             "<a href=1>text<frameset><frame src=x><p><img><frameset>"
             "<frame src=y>",
             {"a http://example.com/d/1", kBaseLine}},
        Case{"TemplateInsideSelect",
             "<select><template><a href=1></template><a href=x></select>"
             "<a href=2>",
             {"a http://example.com/d/1", "a http://example.com/d/2",
              kBaseLine}},
        Case{
            "ControlsInAttributesReadAsGumboReadsThem",
            "<meta charset=utf-8><a href='x\x01y\xC2\x85z\xEF\xB7\x90&#x01;w'>",
            {"a http://example.com/d/x%EF%BF%BDy%EF%BF%BDz%EF%BF%BD%01w",
             kBaseLine}}),
    [](const ::testing::TestParamInfo<Case>& param) {
      return std::string(param.param.name);
    });

class DocSiteTest : public ::testing::TestWithParam<test::DocSite> {};

TEST_P(DocSiteTest, TokenizerGivesGumbosLinksOnEveryPage) {
  const test::DocSite& site = GetParam();
  const test::DocSample sample = test::SampleDocSite(site, kSampleBytes);
  if (sample.files.empty()) GTEST_SKIP() << sample.missing;
  const std::vector<std::filesystem::path>& files = sample.files;
  const size_t stride = sample.stride;
  size_t pages = 0, links = 0, differing_pages = 0;
  for (size_t i = 0; i < files.size(); i += stride) {
    const std::string html = test::ReadFile(files[i]);
    const std::string base = "http://docs.example/" + files[i].string();
    const std::vector<std::string> gumbo =
        Lines(Extract(html, HtmlParser::kGumbo, base, ""));
    const std::vector<std::string> tokens =
        Lines(Extract(html, HtmlParser::kTokenizer, base, ""));
    ++pages;
    links += gumbo.size();
    if (gumbo != tokens && ++differing_pages <= 5) {
      size_t k = 0;
      while (k < gumbo.size() && k < tokens.size() && gumbo[k] == tokens[k]) {
        ++k;
      }
      ADD_FAILURE() << files[i] << ": " << gumbo.size() << " vs "
                    << tokens.size() << " lines; first difference at " << k
                    << ": gumbo \"" << (k < gumbo.size() ? gumbo[k] : "")
                    << "\", tokenizer \""
                    << (k < tokens.size() ? tokens[k] : "") << "\"";
    }
  }
  std::cout << site.package << ": " << pages << " of " << files.size()
            << " pages (every " << stride << "), " << links
            << " lines compared\n";
  EXPECT_EQ(differing_pages, 0u);
  EXPECT_GT(links, 0u);
}

INSTANTIATE_TEST_SUITE_P(DebianDocs, DocSiteTest,
                         ::testing::ValuesIn(test::DocSites()),
                         test::DocSiteName);

}  // namespace
}  // namespace sieve
