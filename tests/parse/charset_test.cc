#include "parse/charset.h"

#include <string>

#include "gtest/gtest.h"

namespace sieve {
namespace {

struct DetectCase {
  const char* name;
  std::string bytes;
  const char* content_type;
  const char* want;
};

class DetectHtmlEncodingTest : public ::testing::TestWithParam<DetectCase> {};

TEST_P(DetectHtmlEncodingTest, FollowsBomThenHeaderThenMetaThenDefault) {
  EXPECT_EQ(DetectHtmlEncoding(GetParam().bytes, GetParam().content_type),
            GetParam().want)
      << GetParam().name;
}

const std::string kPadding(1100, ' ');

INSTANTIATE_TEST_SUITE_P(
    Order, DetectHtmlEncodingTest,
    ::testing::Values(
        DetectCase{"utf-8 bom beats header", "\xEF\xBB\xBF<p>",
                   "text/html; charset=shift_jis", "UTF-8"},
        DetectCase{"utf-16le bom", "\xFF\xFE<\0p\0", "", "UTF-16LE"},
        DetectCase{"utf-16be bom", "\xFE\xFF\0<\0p", "", "UTF-16BE"},
        DetectCase{"header beats meta", "<meta charset=euc-jp>",
                   "text/html; charset=UTF-8", "UTF-8"},
        DetectCase{"quoted header", "", "text/html; charset=\"Shift_JIS\"",
                   "Shift_JIS"},
        DetectCase{"unknown header label falls through",
                   "<meta charset=euc-kr>", "text/html; charset=no-such-thing",
                   "EUC-KR"},
        DetectCase{"meta charset", "<!doctype html><meta charset='utf-8'>", "",
                   "UTF-8"},
        DetectCase{"meta http-equiv",
                   "<META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; "
                   "charset=windows-1251\">",
                   "", "WINDOWS-1251"},
        DetectCase{"content without http-equiv is not a declaration",
                   "<meta content=\"text/html; charset=utf-8\">", "",
                   "windows-1252"},
        DetectCase{"meta in a comment is ignored",
                   "<!-- <meta charset=utf-8> --><p>", "", "windows-1252"},
        DetectCase{"meta inside another tag's attribute is ignored",
                   "<div title='<meta charset=utf-8>'>", "", "windows-1252"},
        DetectCase{"meta past 1024 bytes is ignored",
                   kPadding + "<meta charset=utf-8>", "", "windows-1252"},
        DetectCase{"meta cannot declare utf-16", "<meta charset=utf-16le>", "",
                   "UTF-8"},
        DetectCase{"latin1 means windows-1252", "", "text/html;charset=latin1",
                   "windows-1252"},
        DetectCase{"default", "<html><body>plain", "text/html",
                   "windows-1252"}));

TEST(CharsetTest, MapsWhatwgLabels) {
  EXPECT_EQ(CanonicalEncodingName(" ISO-8859-1 "), "windows-1252");
  EXPECT_EQ(CanonicalEncodingName("US-ASCII"), "windows-1252");
  EXPECT_EQ(CanonicalEncodingName("x-sjis"), "Shift_JIS");
  EXPECT_EQ(CanonicalEncodingName("GB2312"), "GBK");
  EXPECT_EQ(CanonicalEncodingName("koi8-r"), "KOI8-R");
  EXPECT_EQ(CanonicalEncodingName("no-such-thing"), "");
  EXPECT_EQ(CanonicalEncodingName(""), "");
}

TEST(CharsetTest, ConvertsShiftJisToUtf8) {
  const Utf8Text text = ConvertToUtf8("\x93\xFA\x96\x7B \x95\x5C", "Shift_JIS");
  EXPECT_EQ(text.utf8, "\xE6\x97\xA5\xE6\x9C\xAC \xE8\xA1\xA8");  // 日本 表
  EXPECT_EQ(text.replaced, 0u);
}

TEST(CharsetTest, ConvertsWindows1252IncludingItsC1Range) {
  const Utf8Text text =
      ConvertToUtf8("caf\xE9 \x80 \x93quoted\x94", "windows-1252");
  EXPECT_EQ(text.utf8,
            "caf\xC3\xA9 \xE2\x82\xAC \xE2\x80\x9Cquoted\xE2\x80\x9D");
}

TEST(CharsetTest, ReplacesInvalidBytesInsteadOfFailing) {
  const Utf8Text utf8 = ConvertToUtf8(
      "a\xFF"
      "b\xC3",
      "utf-8");
  EXPECT_EQ(utf8.utf8,
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_EQ(utf8.replaced, 2u);
  // A Shift_JIS lead byte cut off by the end of input.
  const Utf8Text sjis = ConvertToUtf8("ok\x93", "Shift_JIS");
  EXPECT_EQ(sjis.utf8, "ok\xEF\xBF\xBD");
  EXPECT_EQ(sjis.replaced, 1u);
}

// glibc's iconv passes F4 90 80 80 (U+110000) through from UTF-8; found by
// parse/fuzz/charset_fuzzer.
TEST(CharsetTest, ACodePointPastUnicodesRangeBecomesReplacementCharacters) {
  const Utf8Text text = ConvertToUtf8(
      "a\xF4\x90\x80\x80"
      "b",
      "UTF-8");
  EXPECT_EQ(text.utf8,
            "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(text.replaced, 4u);
}

// glibc's iconv_open skips bytes it does not know in a name; found by
// parse/fuzz/charset_fuzzer.
TEST(CharsetTest, ALabelWithBytesOutsideATokenIsUnknown) {
  EXPECT_EQ(CanonicalEncodingName("\xA0\xDE"
                                  "utf-8"),
            "");
  const Utf8Text text = ConvertToUtf8("\xEF\xBB\xBFhi",
                                      "\xA0\xDE"
                                      "utf-8");
  EXPECT_EQ(text.encoding, "windows-1252");
}

TEST(CharsetTest, DropsTheByteOrderMark) {
  EXPECT_EQ(ConvertToUtf8("\xEF\xBB\xBFhi", "UTF-8").utf8, "hi");
  EXPECT_EQ(ConvertToUtf8(std::string("\xFF\xFEh\0i\0", 6), "UTF-16LE").utf8,
            "hi");
}

TEST(CharsetTest, UnknownEncodingFallsBackToWindows1252) {
  const Utf8Text text = ConvertToUtf8("\xE9", "no-such-thing");
  EXPECT_EQ(text.encoding, "windows-1252");
  EXPECT_EQ(text.utf8, "\xC3\xA9");
}

TEST(CharsetTest, LargeInputGrowsTheOutputBuffer) {
  const std::string input(100000, '\xE9');  // 1 byte in, 2 bytes out
  const Utf8Text text = ConvertToUtf8(input, "windows-1252");
  ASSERT_EQ(text.utf8.size(), 200000u);
  EXPECT_EQ(text.utf8.substr(199998), "\xC3\xA9");
}

TEST(EncodeQueryInTest, WritesTheQueryInTheDocumentsEncoding) {
  EXPECT_EQ(EncodeQueryIn("/x?q=caf\xC3\xA9#caf\xC3\xA9", "windows-1252"),
            "/x?q=caf%E9#caf\xC3\xA9");
  // The path stays UTF-8 (ResolveUrl escapes it).
  EXPECT_EQ(EncodeQueryIn("/caf\xC3\xA9?q=\xC3\xA9", "windows-1252"),
            "/caf\xC3\xA9?q=%E9");
  // Shift_JIS: U+3042 HIRAGANA A is 0x82 0xA0.
  EXPECT_EQ(EncodeQueryIn("?a=\xE3\x81\x82", "Shift_JIS"), "?a=%82%A0");
  // Not in windows-1252: "&#12354;", as the URL Standard's encoder writes.
  EXPECT_EQ(EncodeQueryIn("?a=\xE3\x81\x82", "windows-1252"),
            "?a=%26%2312354%3B");
  // Nothing to do.
  EXPECT_EQ(EncodeQueryIn("/x?q=cafe", "windows-1252"), std::nullopt);
  EXPECT_EQ(EncodeQueryIn("/caf\xC3\xA9", "windows-1252"), std::nullopt);
  EXPECT_EQ(EncodeQueryIn("?q=caf\xC3\xA9", "UTF-8"), std::nullopt);
  EXPECT_EQ(EncodeQueryIn("?q=caf\xC3\xA9", "UTF-16LE"), std::nullopt);
}

}  // namespace
}  // namespace sieve
