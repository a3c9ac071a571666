#include "parse/sitemap.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/compress.h"

namespace sieve {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kNs[] = "http://www.sitemaps.org/schemas/sitemap/0.9";

std::string UrlSet(int first, int count) {
  std::string xml = std::string(
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        "<urlset xmlns=\"") +
                    kNs + "\">\n";
  for (int i = first; i < first + count; ++i) {
    xml += "  <url><loc>http://a.test/p" + std::to_string(i) + "</loc></url>\n";
  }
  return xml + "</urlset>\n";
}

TEST(SitemapTest, ReadsAUrlSetWithLastmod) {
  const std::string xml =
      std::string("<urlset xmlns=\"") + kNs +
      "\">\n <url>\n  <loc>\n   http://a.test/x?a=1&amp;b=2 "
      "</loc>\n  <lastmod>2024-05-01T10:00:00Z</lastmod>\n"
      "  <changefreq>daily</changefreq>\n </url>\n"
      " <url><loc>https://a.test/y</loc></url>\n</urlset>";
  const SitemapResult r = ParseSitemap(xml);
  EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.kind, SitemapKind::kUrlSet);
  ASSERT_THAT(r.entries, SizeIs(2));
  EXPECT_EQ(r.entries[0].url, "http://a.test/x?a=1&b=2");
  EXPECT_EQ(r.entries[0].lastmod, "2024-05-01T10:00:00Z");
  EXPECT_EQ(r.entries[1].url, "https://a.test/y");
  EXPECT_EQ(r.entries[1].lastmod, "");
}

TEST(SitemapTest, ReadsASitemapIndexAndSaysSo) {
  const std::string xml = std::string("<sitemapindex xmlns=\"") + kNs +
                          "\"><sitemap><loc>http://a.test/s1.xml.gz</loc>"
                          "<lastmod>2024-01-01</lastmod></sitemap>"
                          "<sitemap><loc>http://a.test/s2.xml.gz</loc>"
                          "</sitemap></sitemapindex>";
  const SitemapResult r = ParseSitemap(xml);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.kind, SitemapKind::kIndex);
  EXPECT_THAT(
      r.entries,
      ElementsAre(Field(&SitemapEntry::url, "http://a.test/s1.xml.gz"),
                  Field(&SitemapEntry::url, "http://a.test/s2.xml.gz")));
  EXPECT_EQ(r.entries[0].lastmod, "2024-01-01");
}

TEST(SitemapTest, ReadsAnIndexOfGzipSitemapsAndEachOfThem) {
  // The parser's part of "a sitemap index of gzip sitemaps": the index names
  // them, and each gzip file parses to its URLs.
  const std::string index = std::string("<sitemapindex xmlns=\"") + kNs +
                            "\"><sitemap><loc>http://a.test/1.xml.gz</loc>"
                            "</sitemap><sitemap><loc>http://a.test/2.xml.gz"
                            "</loc></sitemap></sitemapindex>";
  const SitemapResult ri = ParseSitemap(test::Gzip(index));
  EXPECT_TRUE(ri.ok());
  EXPECT_TRUE(ri.gzipped);
  EXPECT_EQ(ri.kind, SitemapKind::kIndex);
  ASSERT_THAT(ri.entries, SizeIs(2));
  for (int i = 0; i < 2; ++i) {
    const SitemapResult r = ParseSitemap(test::Gzip(UrlSet(i * 10, 10)));
    EXPECT_TRUE(r.ok()) << r.error_message;
    EXPECT_TRUE(r.gzipped);
    EXPECT_EQ(r.kind, SitemapKind::kUrlSet);
    ASSERT_THAT(r.entries, SizeIs(10));
    EXPECT_EQ(r.entries[0].url, "http://a.test/p" + std::to_string(i * 10));
  }
}

TEST(SitemapTest, ReadsPlainTextOneUrlPerLine) {
  const SitemapResult r = ParseSitemap(
      "\xEF\xBB\xBFhttp://a.test/1\r\n\n  https://a.test/2  \nnot a url\n"
      "http://a.test/3");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.kind, SitemapKind::kText);
  EXPECT_THAT(r.entries,
              ElementsAre(Field(&SitemapEntry::url, "http://a.test/1"),
                          Field(&SitemapEntry::url, "https://a.test/2"),
                          Field(&SitemapEntry::url, "http://a.test/3")));
  EXPECT_EQ(r.skipped_entries, 1);
}

TEST(SitemapTest, ReadsGzippedPlainText) {
  const SitemapResult r =
      ParseSitemap(test::Gzip("http://a.test/1\nhttp://a.test/2\n"));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.kind, SitemapKind::kText);
  EXPECT_THAT(r.entries, SizeIs(2));
}

TEST(SitemapTest, CutsASixtyThousandUrlSitemapAtFiftyThousandAndSaysSo) {
  const SitemapResult r = ParseSitemap(UrlSet(0, 60'000));
  EXPECT_EQ(r.error, SitemapError::kTooManyUrls);
  EXPECT_TRUE(r.truncated());
  ASSERT_THAT(r.entries, SizeIs(50'000));
  EXPECT_EQ(r.entries.back().url, "http://a.test/p49999");
}

TEST(SitemapTest, CutsATextSitemapAtFiftyThousandUrls) {
  std::string text;
  for (int i = 0; i < 50'001; ++i)
    text += "http://a.test/" + std::to_string(i) + "\n";
  const SitemapResult r = ParseSitemap(text);
  EXPECT_EQ(r.error, SitemapError::kTooManyUrls);
  EXPECT_THAT(r.entries, SizeIs(50'000));
}

TEST(SitemapTest, CutsAGzipBombAtFiftyMebibytesOfOutput) {
  // 64 MiB of blanks inside a urlset, compressed about 1000:1: the parser
  // must stop inflating at 50 MiB and keep the URL before the padding.
  std::string xml = std::string("<urlset xmlns=\"") + kNs +
                    "\"><url><loc>http://a.test/first</loc></url>";
  xml.append(size_t{64} << 20, ' ');
  xml += "<url><loc>http://a.test/never</loc></url></urlset>";
  const std::string bomb = test::Gzip(xml);
  ASSERT_LT(bomb.size(), size_t{1} << 20);
  const SitemapResult r = ParseSitemap(bomb);
  EXPECT_EQ(r.error, SitemapError::kTooLarge);
  EXPECT_TRUE(r.truncated());
  EXPECT_EQ(r.uncompressed_bytes, kSitemapMaxUncompressedBytes);
  EXPECT_THAT(r.entries,
              ElementsAre(Field(&SitemapEntry::url, "http://a.test/first")));
}

TEST(SitemapTest, CutsAnUncompressedFileAtFiftyMebibytes) {
  std::string text = "http://a.test/1\n";
  text.append(size_t{51} << 20, '\n');
  text += "http://a.test/2\n";
  const SitemapResult r = ParseSitemap(text);
  EXPECT_EQ(r.error, SitemapError::kTooLarge);
  EXPECT_THAT(r.entries,
              ElementsAre(Field(&SitemapEntry::url, "http://a.test/1")));
}

TEST(SitemapTest, ReportsHtmlServedAsASitemap) {
  const SitemapResult r = ParseSitemap(
      "<!DOCTYPE html>\n<html><body><a href=\"/x\">x</a></body></html>");
  EXPECT_EQ(r.error, SitemapError::kNotASitemap);
  EXPECT_THAT(r.error_message, HasSubstr("HTML"));
  EXPECT_THAT(r.entries, IsEmpty());
  const SitemapResult r2 = ParseSitemap("<html><body>hi</body></html>");
  EXPECT_EQ(r2.error, SitemapError::kNotASitemap);
  EXPECT_THAT(r2.error_message, HasSubstr("<html>"));
}

TEST(SitemapTest, KeepsTheUrlsBeforeAUrlWithoutLoc) {
  const std::string xml = std::string("<urlset xmlns=\"") + kNs +
                          "\"><url><loc>http://a.test/1</loc></url>"
                          "<url><lastmod>2024-01-01</lastmod></url>"
                          "<url><loc>http://a.test/3</loc></url></urlset>";
  const SitemapResult r = ParseSitemap(xml);
  EXPECT_EQ(r.error, SitemapError::kMissingLoc);
  EXPECT_THAT(r.error_message, HasSubstr("<url> without <loc>"));
  EXPECT_THAT(r.entries,
              ElementsAre(Field(&SitemapEntry::url, "http://a.test/1")));
}

TEST(SitemapTest, KeepsTheUrlsBeforeAnUnclosedElement) {
  const std::string xml = std::string("<urlset xmlns=\"") + kNs +
                          "\"><url><loc>http://a.test/1</loc></url>"
                          "<url><loc>http://a.test/2</loc></url><url><loc>ht";
  const SitemapResult r = ParseSitemap(xml);
  EXPECT_EQ(r.error, SitemapError::kMalformedXml);
  EXPECT_THAT(r.entries, SizeIs(2));
  // A mismatched end tag is the same fault in the middle of a file.
  const SitemapResult r2 =
      ParseSitemap(std::string("<urlset xmlns=\"") + kNs +
                   "\"><url><loc>http://a.test/1</loc></url><url><loc>"
                   "http://a.test/2</url><url><loc>http://a.test/3</loc>"
                   "</url></urlset>");
  EXPECT_EQ(r2.error, SitemapError::kMalformedXml);
  EXPECT_THAT(r2.error_message, HasSubstr("line 1"));
  EXPECT_THAT(r2.entries, SizeIs(1));
}

TEST(SitemapTest, RefusesAWrongNamespaceUnlessAskedNotTo) {
  const std::string xml =
      "<urlset xmlns=\"http://example.com/not-sitemaps\">"
      "<url><loc>http://a.test/1</loc></url></urlset>";
  const SitemapResult r = ParseSitemap(xml);
  EXPECT_EQ(r.error, SitemapError::kWrongNamespace);
  EXPECT_THAT(r.entries, IsEmpty());
  const SitemapResult lenient =
      ParseSitemap(xml, {.accept_any_namespace = true});
  EXPECT_TRUE(lenient.ok());
  EXPECT_THAT(lenient.entries, SizeIs(1));
  const SitemapResult google = ParseSitemap(
      "<urlset xmlns=\"http://www.google.com/schemas/sitemap/0.84\">"
      "<url><loc>http://a.test/1</loc></url></urlset>");
  EXPECT_TRUE(google.ok());
}

TEST(SitemapTest, RefusesDoctypesSoNoEntityIsEverExpanded) {
  const std::string laughs =
      "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
      "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">]>"
      "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
      "<url><loc>http://a.test/&lol2;</loc></url></urlset>";
  const SitemapResult r = ParseSitemap(laughs);
  EXPECT_EQ(r.error, SitemapError::kDoctype);
  EXPECT_THAT(r.entries, IsEmpty());
  const SitemapResult external =
      ParseSitemap("<!DOCTYPE urlset SYSTEM \"file:///etc/passwd\"><urlset/>");
  EXPECT_EQ(external.error, SitemapError::kDoctype);
}

TEST(SitemapTest, IgnoresExtensionElementsAndSkipsNonWebLocs) {
  const std::string xml =
      std::string("<urlset xmlns=\"") + kNs +
      "\" xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">"
      "<url><loc>http://a.test/1</loc><image:image><image:loc>http://a.test/"
      "i.png</image:loc></image:image></url>"
      "<url><loc>ftp://a.test/f</loc></url>"
      "<url><loc>/relative</loc></url></urlset>";
  const SitemapResult r = ParseSitemap(xml);
  EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_THAT(r.entries,
              ElementsAre(Field(&SitemapEntry::url, "http://a.test/1")));
  EXPECT_EQ(r.skipped_entries, 2);
}

TEST(SitemapTest, ReportsACorruptGzipStreamAfterWhatItRead) {
  std::string gz = test::Gzip(UrlSet(0, 2000));
  gz[gz.size() / 2] ^= 0x55;
  gz[gz.size() / 2 + 1] ^= 0x55;
  const SitemapResult r = ParseSitemap(gz);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(r.entries.size(), 2000u);
}

TEST(SitemapTest, ReportsAnEmptyFile) {
  EXPECT_EQ(ParseSitemap("").error, SitemapError::kNotASitemap);
  EXPECT_EQ(ParseSitemap("  \n ").error, SitemapError::kNotASitemap);
}

TEST(SitemapLocationTest, LenientAcceptsAnything) {
  EXPECT_TRUE(SitemapMayList("http://other.test/x", "http://a.test/d/s.xml", "",
                             SitemapLocationRule::kLenient));
}

TEST(SitemapLocationTest, StrictKeepsUrlsUnderTheSitemapsDirectory) {
  const auto strict = SitemapLocationRule::kStrict;
  EXPECT_TRUE(
      SitemapMayList("http://a.test/d/x", "http://a.test/d/s.xml", "", strict));
  EXPECT_TRUE(SitemapMayList("http://A.TEST:80/d/e/x", "http://a.test/d/s.xml",
                             "", strict));
  EXPECT_FALSE(SitemapMayList("http://a.test/other", "http://a.test/d/s.xml",
                              "", strict));
  EXPECT_FALSE(SitemapMayList("https://a.test/d/x", "http://a.test/d/s.xml", "",
                              strict));
  EXPECT_FALSE(
      SitemapMayList("http://b.test/d/x", "http://a.test/d/s.xml", "", strict));
  EXPECT_FALSE(SitemapMayList("http://a.test:8080/d/x", "http://a.test/d/s.xml",
                              "", strict));
}

TEST(SitemapLocationTest, StrictAllowsTheWholeHostWhenRobotsTxtNamedIt) {
  const auto strict = SitemapLocationRule::kStrict;
  EXPECT_TRUE(SitemapMayList("http://a.test/other", "http://cdn.test/d/s.xml",
                             "http://a.test/robots.txt", strict));
  EXPECT_FALSE(SitemapMayList("http://b.test/other", "http://cdn.test/d/s.xml",
                              "http://a.test/robots.txt", strict));
}

}  // namespace
}  // namespace sieve
