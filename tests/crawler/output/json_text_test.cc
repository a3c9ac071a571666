// AppendJsonString against nlohmann::json, the library the records were
// written with before: the same text for every string, valid UTF-8 or not.
#include "crawler/output/json_text.h"

#include <random>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace sieve {
namespace {

std::string Ours(std::string_view s) {
  std::string out;
  AppendJsonString(out, s);
  return out;
}

std::string Nlohmann(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false,
                                nlohmann::json::error_handler_t::replace);
}

TEST(JsonTextTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(Ours("say \"hi\"\\"), R"("say \"hi\"\\")");
  EXPECT_EQ(Ours("a\nb\tc\x01"), R"("a\nb\tc\u0001")");
  EXPECT_EQ(Ours("http://a/é/€/😀"), "\"http://a/é/€/😀\"");
  std::string empty;
  AppendJsonStringOrNull(empty, "");
  EXPECT_EQ(empty, "null");
}

TEST(JsonTextTest, ReplacesEachIllFormedPartWithOneReplacementCharacter) {
  EXPECT_EQ(Ours("a\xff"
                 "b"),
            "\"a\xEF\xBF\xBD"
            "b\"");
  EXPECT_EQ(Ours("\xC0\xAF"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");  // Overlong.
  EXPECT_EQ(Ours("\xED\xA0\x80"), Nlohmann("\xED\xA0\x80"));    // Surrogate.
  EXPECT_EQ(Ours("\xF4\x90\x80\x80"), Nlohmann("\xF4\x90\x80\x80"));
  EXPECT_EQ(Ours("\xE2\x82"), Nlohmann("\xE2\x82"));  // Cut short.
}

TEST(JsonTextTest, WritesWhatNlohmannWritesForRandomBytes) {
  std::mt19937_64 rng(20261122);
  // Bytes biased towards UTF-8 lead and continuation bytes and the escapes.
  const std::string alphabet =
      "ab/\"\\\n\x01\x7f\x80\xbf\xc2\xdf\xe0\xed\xef\xf0\xf4\xf5\xff\xa0\x9f";
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    const int n = static_cast<int>(rng() % 12);
    for (int j = 0; j < n; ++j) s.push_back(alphabet[rng() % alphabet.size()]);
    ASSERT_EQ(Ours(s), Nlohmann(s)) << testing::PrintToString(s);
  }
}

}  // namespace
}  // namespace sieve
