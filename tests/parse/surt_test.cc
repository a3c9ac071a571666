#include "parse/surt.h"

#include "gtest/gtest.h"

namespace sieve {
namespace {

// Expected keys are those of the Internet Archive's `surt` package (its own
// tests, from WaybackURLKeyMakerTest.java), which pywb and warcio use.
TEST(SurtTest, MatchesTheSurtPackagesKeys) {
  EXPECT_EQ(SurtKey("http://www.archive.org/"), "org,archive)/");
  EXPECT_EQ(SurtKey("http://archive.org/"), "org,archive)/");
  EXPECT_EQ(SurtKey("http://archive.org/goo/"), "org,archive)/goo");
  EXPECT_EQ(SurtKey("http://archive.org/goo/?"), "org,archive)/goo");
  EXPECT_EQ(SurtKey("http://archive.org/goo/?b&a"), "org,archive)/goo?a&b");
  EXPECT_EQ(SurtKey("http://archive.org/goo/?a=2&b&a=1"),
            "org,archive)/goo?a=1&a=2&b");
  EXPECT_EQ(SurtKey("http://192.168.1.254/info/"), "254,1,168,192)/info");
  EXPECT_EQ(SurtKey(""), "-");
  EXPECT_EQ(SurtKey("dns:archive.org"), "dns:archive.org");
}

TEST(SurtTest, KeepsOnlyNonDefaultPorts) {
  EXPECT_EQ(SurtKey("http://127.0.0.1:8080/a"), "1,0,0,127:8080)/a");
  EXPECT_EQ(SurtKey("http://example.com:80/a"), "com,example)/a");
  EXPECT_EQ(SurtKey("https://example.com:443/a"), "com,example)/a");
  EXPECT_EQ(SurtKey("https://example.com:80/a"), "com,example:80)/a");
}

TEST(SurtTest, DropsSchemeUserInfoFragmentAndCase) {
  EXPECT_EQ(SurtKey("HTTPS://user:pw@WWW2.Example.COM/Some/Path.HTML#frag"),
            "com,example)/some/path.html");
  EXPECT_EQ(SurtKey("http://example.com"), "com,example)/");
}

TEST(SurtTest, DecodesEscapesThenEscapesOnlyWhatMust) {
  EXPECT_EQ(SurtKey("http://a.com/x%3Ay%2528z?q=a%20b"),
            "com,a)/x:y(z?q=a%20b");
}

}  // namespace
}  // namespace sieve
