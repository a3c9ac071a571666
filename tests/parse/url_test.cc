#include "parse/url.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sieve {
namespace {

using ::testing::HasSubstr;

TEST(UrlTest, PublicSurfaceExamplesHold) {
  EXPECT_EQ(*ResolveUrl("http://a/b/c/d;p?q", "../g"), "http://a/b/g");
  EXPECT_EQ(*NormalizeUrl("HTTP://Example.COM:80/a/../b"),
            "http://example.com/b");
}

// RFC 3986 §5.4: every example, with the base of §5.4. Expected values are the
// RFC's, written in our normal form (fragment dropped, "http://g" gets its "/"
// path). "http:g" takes the RFC's "backward compatible" reading, as browsers
// do.
struct Rfc3986Case {
  const char* ref;
  const char* want;
};

class Rfc3986ExampleTest : public ::testing::TestWithParam<Rfc3986Case> {};

TEST_P(Rfc3986ExampleTest, ResolvesAsTheRfcSays) {
  const absl::StatusOr<std::string> got =
      ResolveUrl("http://a/b/c/d;p?q", GetParam().ref);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, GetParam().want) << "ref: " << GetParam().ref;
}

// §5.4.1 Normal Examples.
INSTANTIATE_TEST_SUITE_P(
    Normal, Rfc3986ExampleTest,
    ::testing::Values(
        Rfc3986Case{"g", "http://a/b/c/g"},
        Rfc3986Case{"./g", "http://a/b/c/g"},
        Rfc3986Case{"g/", "http://a/b/c/g/"}, Rfc3986Case{"/g", "http://a/g"},
        Rfc3986Case{"//g", "http://g/"},
        Rfc3986Case{"?y", "http://a/b/c/d;p?y"},
        Rfc3986Case{"g?y", "http://a/b/c/g?y"},
        Rfc3986Case{"#s", "http://a/b/c/d;p?q"},
        Rfc3986Case{"g#s", "http://a/b/c/g"},
        Rfc3986Case{"g?y#s", "http://a/b/c/g?y"},
        Rfc3986Case{";x", "http://a/b/c/;x"},
        Rfc3986Case{"g;x", "http://a/b/c/g;x"},
        Rfc3986Case{"g;x?y#s", "http://a/b/c/g;x?y"},
        Rfc3986Case{"", "http://a/b/c/d;p?q"},
        Rfc3986Case{".", "http://a/b/c/"}, Rfc3986Case{"./", "http://a/b/c/"},
        Rfc3986Case{"..", "http://a/b/"}, Rfc3986Case{"../", "http://a/b/"},
        Rfc3986Case{"../g", "http://a/b/g"}, Rfc3986Case{"../..", "http://a/"},
        Rfc3986Case{"../../", "http://a/"},
        Rfc3986Case{"../../g", "http://a/g"}));

// §5.4.2 Abnormal Examples.
INSTANTIATE_TEST_SUITE_P(
    Abnormal, Rfc3986ExampleTest,
    ::testing::Values(Rfc3986Case{"../../../g", "http://a/g"},
                      Rfc3986Case{"../../../../g", "http://a/g"},
                      Rfc3986Case{"/./g", "http://a/g"},
                      Rfc3986Case{"/../g", "http://a/g"},
                      Rfc3986Case{"g.", "http://a/b/c/g."},
                      Rfc3986Case{".g", "http://a/b/c/.g"},
                      Rfc3986Case{"g..", "http://a/b/c/g.."},
                      Rfc3986Case{"..g", "http://a/b/c/..g"},
                      Rfc3986Case{"./../g", "http://a/b/g"},
                      Rfc3986Case{"./g/.", "http://a/b/c/g/"},
                      Rfc3986Case{"g/./h", "http://a/b/c/g/h"},
                      Rfc3986Case{"g/../h", "http://a/b/c/h"},
                      Rfc3986Case{"g;x=1/./y", "http://a/b/c/g;x=1/y"},
                      Rfc3986Case{"g;x=1/../y", "http://a/b/c/y"},
                      Rfc3986Case{"g?y/./x", "http://a/b/c/g?y/./x"},
                      Rfc3986Case{"g?y/../x", "http://a/b/c/g?y/../x"},
                      Rfc3986Case{"g#s/./x", "http://a/b/c/g"},
                      Rfc3986Case{"g#s/../x", "http://a/b/c/g"},
                      Rfc3986Case{"http:g", "http://a/b/c/g"}));

TEST(UrlTest, RejectsTheRfcExampleWithAnotherScheme) {
  // §5.4.1 "g:h" → "g:h" is a valid resolution, but not a URL the crawler can
  // fetch.
  const absl::StatusOr<std::string> got =
      ResolveUrl("http://a/b/c/d;p?q", "g:h");
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.status().message(), HasSubstr("unsupported scheme"));
}

struct NormalizeCase {
  const char* in;
  const char* want;
};

class NormalizeTest : public ::testing::TestWithParam<NormalizeCase> {};

TEST_P(NormalizeTest, GivesTheCanonicalSpelling) {
  const absl::StatusOr<std::string> got = NormalizeUrl(GetParam().in);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, GetParam().want);
  const absl::StatusOr<std::string> again = NormalizeUrl(*got);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *got) << "not a fixed point";
}

INSTANTIATE_TEST_SUITE_P(
    Rules, NormalizeTest,
    ::testing::Values(
        NormalizeCase{"HTTP://WWW.Example.COM/",
                      "http://www.example.com/"},  // case
        NormalizeCase{"http://example.com",
                      "http://example.com/"},  // empty path
        NormalizeCase{"https://example.com:443/x",
                      "https://example.com/x"},  // default port
        NormalizeCase{"http://example.com:8080/x", "http://example.com:8080/x"},
        NormalizeCase{"http://example.com:0080/x", "http://example.com/x"},
        NormalizeCase{"http://example.com/a#frag",
                      "http://example.com/a"},  // fragment
        NormalizeCase{"http://example.com/a/./b/../c",
                      "http://example.com/a/c"},
        NormalizeCase{"http://example.com/%7efoo%2Fbar%2e",
                      "http://example.com/~foo%2Fbar."},
        NormalizeCase{"http://example.com/a%2fb?x=%3d%41",
                      "http://example.com/a%2Fb?x=%3DA"},
        NormalizeCase{"http://example.com/a/%2e%2E/b", "http://example.com/b"},
        NormalizeCase{"http://example.com/a b?c d",
                      "http://example.com/a%20b?c%20d"},
        NormalizeCase{"http://example.com/caf\xc3\xa9",
                      "http://example.com/caf%C3%A9"},
        NormalizeCase{"http://b\xc3\xbc"
                      "cher.de/",
                      "http://xn--bcher-kva.de/"},  // IDN
        NormalizeCase{"http://EXAMPLE.com/?b=2&a=1",
                      "http://example.com/?b=2&a=1"},
        NormalizeCase{"http://@example.com/",
                      "http://example.com/"},  // empty userinfo
        NormalizeCase{"http://user:@example.com/", "http://user@example.com/"},
        NormalizeCase{"  http://example.com/\t\na  ", "http://example.com/a"},
        NormalizeCase{"http:\\\\example.com\\a\\b", "http://example.com/a/b"},
        NormalizeCase{"http://0x7f.1/", "http://127.0.0.1/"},
        // Stray '%' stays; an escape that would complete it stays encoded.
        NormalizeCase{"http://a.com/%%33%3%41%zz", "http://a.com/%%33%3%41%zz"},
        NormalizeCase{"http://[0:0::1]:80/", "http://[::1]/"}));

class RejectTest : public ::testing::TestWithParam<const char*> {};

TEST_P(RejectTest, ReturnsAnError) {
  EXPECT_FALSE(NormalizeUrl(GetParam()).ok()) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(
    Bad, RejectTest,
    ::testing::Values("ftp://example.com/", "mailto:a@b.c", "javascript:x()",
                      "data:text/html,x", "relative/only", "http://",
                      "http://exa mple.com/", "http://a:99999/", "http://a:8x/",
                      "http://256.0.0.1/", "http://[::1/", "http://a<b/", ""));

TEST(UrlTest, SchemeErrorsNameTheScheme) {
  const absl::StatusOr<std::string> got = ResolveUrl("http://a/", "FTP://x/");
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.status().message(), HasSubstr("ftp"));
}

TEST(UrlTest, OptionsAreOffByDefault) {
  const UrlOptions defaults;
  EXPECT_TRUE(defaults.drop_query_params.empty());
  EXPECT_FALSE(defaults.sort_query);
  EXPECT_FALSE(defaults.drop_www);
  EXPECT_EQ(*NormalizeUrl("http://www.a.com/?utm_source=x&b=1&a=2"),
            "http://www.a.com/?utm_source=x&b=1&a=2");
}

TEST(UrlTest, DropsQueryParametersMatchingPatterns) {
  UrlOptions options;
  options.drop_query_params = {"utm_*", "*sessid", "sid"};
  EXPECT_EQ(
      *NormalizeUrl("http://a.com/"
                    "p?utm_source=x&id=3&UTM_Medium=y&PHPSESSID=9&sid=1&side=2",
                    options),
      "http://a.com/p?id=3&side=2");
  EXPECT_EQ(*NormalizeUrl("http://a.com/p?utm_source=x#f", options),
            "http://a.com/p");
}

TEST(UrlTest, SortsQueryParametersStablyByName) {
  UrlOptions options;
  options.sort_query = true;
  EXPECT_EQ(*NormalizeUrl("http://a.com/?b=2&a=9&a=1&&c", options),
            "http://a.com/?a=9&a=1&b=2&c");
}

TEST(UrlTest, DropsWwwOnlyWhenTwoLabelsRemain) {
  UrlOptions options;
  options.drop_www = true;
  EXPECT_EQ(*NormalizeUrl("http://WWW.example.com/x", options),
            "http://example.com/x");
  EXPECT_EQ(*NormalizeUrl("http://www.com/x", options), "http://www.com/x");
  EXPECT_EQ(*ResolveUrl("http://www.a.org/b/", "c", options),
            "http://a.org/b/c");
}

TEST(UrlTest, SameSchemeReferenceIsRelativeOtherSchemeIsAbsolute) {
  EXPECT_EQ(*ResolveUrl("http://a/b/c", "http:d"), "http://a/b/d");
  EXPECT_EQ(*ResolveUrl("https://a/b/c", "http:d"), "http://d/");
  EXPECT_EQ(*ResolveUrl("http://a/b/c", "\\\\other\\x"), "http://other/x");
}

TEST(UrlTest, SplitUrlGivesHostPortAndPathWithQuery) {
  const absl::StatusOr<UrlParts> parts =
      SplitUrl("HTTPS://Example.com:8443/a/../b?q=1#frag");
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_EQ(parts->scheme, "https");
  EXPECT_EQ(parts->host, "example.com");
  EXPECT_EQ(parts->port, 8443);
  EXPECT_EQ(parts->path_and_query, "/b?q=1");
  EXPECT_EQ(parts->normalized_url, "https://example.com:8443/b?q=1");
  EXPECT_EQ(parts->Authority(), "example.com:8443");

  const absl::StatusOr<UrlParts> plain = SplitUrl("http://example.com");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->port, 80);
  EXPECT_EQ(plain->path_and_query, "/");
  EXPECT_EQ(plain->Authority(), "example.com");
  EXPECT_FALSE(SplitUrl("mailto:x@y").ok());
}

// Every shape of normalised URL: cut without a parse, the same pieces as
// SplitUrl's, for the URLs ResolveUrl gives with and without options.
TEST(UrlTest, SplitNormalizedUrlGivesSplitUrlsPiecesForNormalisedUrls) {
  UrlOptions options;
  options.drop_query_params = {"utm_*", "sid"};
  options.sort_query = true;
  const char* const kHrefs[] = {
      "HTTPS://Example.com:8443/a/../b?q=1#frag",
      "http://example.com",
      "http://user:p%40ss@example.com:81/x",
      "http://[::1]:8080/x?y",
      "http://[::1]/",
      "https://127.0.0.1/a b?c=d&utm_x=1&sid=2",
      "//other.org/p?b=2&a=1",
      "rel/x?z",
      "http://xn--bcher-kva.example/",
      "https://bücher.example/ä",
  };
  for (const char* href : kHrefs) {
    for (const UrlOptions& o : {UrlOptions{}, options}) {
      const absl::StatusOr<std::string> url =
          ResolveUrl("http://base.example:8000/dir/page", href, o);
      ASSERT_TRUE(url.ok()) << href;
      const absl::StatusOr<UrlParts> want = SplitUrl(*url, o);
      const absl::StatusOr<UrlParts> got = SplitNormalizedUrl(*url);
      ASSERT_TRUE(want.ok() && got.ok()) << *url;
      EXPECT_EQ(got->scheme, want->scheme) << *url;
      EXPECT_EQ(got->host, want->host) << *url;
      EXPECT_EQ(got->port, want->port) << *url;
      EXPECT_EQ(got->path_and_query, want->path_and_query) << *url;
      EXPECT_EQ(got->normalized_url, want->normalized_url) << *url;
    }
  }
}

TEST(UrlTest, SplitNormalizedUrlRefusesWhatHasNotTheNormalShape) {
  for (const char* url :
       {"", "ftp://a/", "http://a", "http:///x", "http://a:/x", "http://a:x/y",
        "http://a:123456/", "mailto:x@y", "http://@/x"}) {
    EXPECT_FALSE(SplitNormalizedUrl(url).ok()) << url;
  }
}

}  // namespace
}  // namespace sieve
