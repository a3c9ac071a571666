// The fast URL path (parse/internal/fast_path.h) gives exactly the URLs of the
// libcurl path it replaces: on every link of real documentation sites (the
// Debian packages postgresql-doc-15, python3-doc and openjdk-17-doc, installed
// by scripts/install-deps.sh), and on hand-picked references where libcurl
// departs from RFC 3986.
//
// Each page is extracted twice with the real extractor: libcurl resolver and
// malloc'd gumbo tree (the code before the fast path), then fast resolver and
// arena. Everything must match: each link's URL, kind and rel, the base, the
// skipped counts. A site whose files are absent is skipped with a message.
// A site is sampled (every k-th file in path order, k chosen so that about
// kSampleBytes are parsed: some 10 s in a debug build); SIEVE_DOCS_FULL=1
// reads every file (1.31 million links, 3 minutes in a debug build).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "parse/internal/extract_links.h"
#include "parse/internal/url_canon.h"
#include "parse/link_extractor.h"
#include "parse/parse_arena.h"
#include "tests/common/doc_sites.h"
#include "tests/common/files.h"

namespace sieve {
namespace {

using url_internal::Resolver;

constexpr size_t kSampleBytes = size_t{8} << 20;

class DocSiteTest : public ::testing::TestWithParam<test::DocSite> {};

TEST_P(DocSiteTest, FastPathGivesTheSameUrlsAsLibcurlOnEveryLink) {
  const test::DocSite& site = GetParam();
  const test::DocSample sample = test::SampleDocSite(site, kSampleBytes);
  if (sample.files.empty()) GTEST_SKIP() << sample.missing;
  const std::vector<std::filesystem::path>& files = sample.files;
  const size_t stride = sample.stride;

  ParseArena arena;
  ParseArena malloc_arena(ParseArena::Options{.use_malloc = true});
  size_t pages = 0, links = 0, skipped = 0, differing_pages = 0;
  for (size_t i = 0; i < files.size(); i += stride) {
    const std::string html = test::ReadFile(files[i]);
    // Two base forms: a loopback IPv4 host with a port, as in the crawl
    // benchmark, and a DNS name.
    const std::string relative =
        files[i].lexically_relative(site.root).generic_string();
    const std::string base =
        (i / stride) % 2 == 0 ? "http://127.0.0.1:8080/" +
                                    std::string(site.package) + "/" + relative
                              : "https://docs.example.org/" + relative;
    const ExtractedLinks old_path = html_internal::ExtractLinksWith(
        html, base, "text/html", "", {}, &malloc_arena, Resolver::kCurl);
    const ExtractedLinks new_path = html_internal::ExtractLinksWith(
        html, base, "text/html", "", {}, &arena, Resolver::kFast);
    ++pages;
    links += new_path.links.size();
    skipped += new_path.skipped_invalid + new_path.skipped_scheme;
    bool same = old_path.links.size() == new_path.links.size() &&
                old_path.base_url == new_path.base_url &&
                old_path.skipped_invalid == new_path.skipped_invalid &&
                old_path.skipped_scheme == new_path.skipped_scheme;
    for (size_t k = 0; same && k < new_path.links.size(); ++k) {
      const Link& a = old_path.links[k];
      const Link& b = new_path.links[k];
      same = a.url == b.url && a.kind == b.kind && a.rel == b.rel;
      EXPECT_EQ(a.url, b.url) << files[i] << " link " << k;
    }
    if (!same && ++differing_pages <= 10) {
      ADD_FAILURE() << files[i] << ": the two paths differ (links "
                    << old_path.links.size() << " vs " << new_path.links.size()
                    << ")";
    }
  }
  std::cout << site.package << ": " << pages << " of " << files.size()
            << " pages (every " << stride << "), " << links
            << " links compared, " << skipped << " hrefs skipped by both\n";
  EXPECT_EQ(differing_pages, 0u);
  EXPECT_GT(links, 0u);
}

INSTANTIATE_TEST_SUITE_P(DebianDocs, DocSiteTest,
                         ::testing::ValuesIn(test::DocSites()),
                         test::DocSiteName);

struct Case {
  const char* base;
  const char* href;
};

class QuirkTest : public ::testing::TestWithParam<Case> {};

// References where libcurl 7.88 departs from RFC 3986 §5.2, or where the fast
// path must leave the host to libcurl: the fast path must still agree.
TEST_P(QuirkTest, FastPathAgreesWithLibcurl) {
  const auto render = [](const absl::StatusOr<url_internal::UrlComponents>& u) {
    return u.ok() ? u->Assemble() : u.status().ToString();
  };
  const Case& c = GetParam();
  EXPECT_EQ(
      render(url_internal::ResolveComponents(c.base, c.href, Resolver::kFast)),
      render(url_internal::ResolveComponents(c.base, c.href, Resolver::kCurl)))
      << c.base << " + " << c.href;
}

INSTANTIATE_TEST_SUITE_P(
    Forms, QuirkTest,
    ::testing::Values(
        Case{"http://h.com/a/b/c", ".//x"},    // curl drops the empty segment
        Case{"http://h.com/a/b/c", "..//x"},   // likewise after "../"
        Case{"http://h.com/a/b/c", "./?q"},    // curl drops the last '/'
        Case{"http://h.com/a//b/", "../?q"},   // likewise
        Case{"http://h.com/a/b/c", "%41b:c"},  // "Ab:c" reads as a scheme
        Case{"http://h.com//b/c", "../g"},     // curl: "/g", RFC: "//g"
        Case{"http://h.com/a/b/c", "x/./../../../../y"},
        Case{"http://h.com/", "../../a/./b/.."},
        Case{"http://h.com/a/b", "/x/%2e%2E/y"},  // escaped dots are dots
        Case{"http://h.com/a", "//XN--zca.de/p"},
        Case{"http://h.com/a", "//1.2.3/p"},  // IPv4 with two dots
        Case{"http://h.com/a", "//a..b/p"}, Case{"http://h.com/a", "//a.b./p"},
        Case{"http://h.com/a", "//a.b:0/p"},
        Case{"http://h.com/a", "//a.b:0080/p"},
        Case{"http://h.com/a", "//a.b:65536/p"},
        Case{"http://h.com/a", "//u:p@a.b/p"},
        Case{"http://[::1]:81/a/b", "c/../d"}, Case{"http://u@h.com/a/b", "c"},
        Case{"http://127.0.0.1/a/b", "../c?d#e"},
        // Absolute URLs on IPv4 hosts: canonical dotted quads take the fast
        // path, the other forms libcurl's.
        Case{"http://h.com/a", "http://127.0.0.1:8080/x/./y/../z?q"},
        Case{"http://h.com/a", "http://10.0.0.255/a/%2e%2e/b"},
        Case{"http://h.com/a", "http://256.0.0.1/p"},
        Case{"http://h.com/a", "http://010.0.0.1/p"},
        Case{"http://h.com/a", "http://0x7f.1/p"},
        Case{"http://h.com/a", "http://1.2.3.4./p"},
        Case{"http://h.com/a", "http:b/c"},     // same scheme: relative
        Case{"http://h.com/a", "https:b/c"}));  // another: absolute

TEST(ParseArenaTest, ServesPagesPastItsCapFromMallocAndKeepsNothing) {
  ParseArena arena(
      ParseArena::Options{.max_bytes = 64 * 1024, .keep_bytes = 16 * 1024});
  std::string html = "<ul>";
  for (int i = 0; i < 5000; ++i) {
    html += "<li><a href=\"p" + std::to_string(i) + ".html\">x</a>";
  }
  const ExtractedLinks big =
      ExtractLinks(html, "http://h.com/d/", "text/html", "", {}, &arena);
  ASSERT_EQ(big.links.size(), 5000u);
  EXPECT_EQ(big.links[4999].url, "http://h.com/d/p4999.html");
  EXPECT_EQ(arena.arena_bytes(), 0u);   // reset after the page
  EXPECT_EQ(arena.malloc_bytes(), 0u);  // the overflow was freed
  const ExtractedLinks small = ExtractLinks(
      "<a href=x>x</a>", "http://h.com/d/", "text/html", "", {}, &arena);
  ASSERT_EQ(small.links.size(), 1u);
  EXPECT_EQ(small.links[0].url, "http://h.com/d/x");
}

TEST(ParseArenaTest, GivesBackTheLastBlockAndAlignsAsMalloc) {
  ParseArena arena;
  if (!arena.bumping()) GTEST_SKIP() << "malloc mode (sanitizer build)";
  void* a = arena.Allocate(3);
  void* b = arena.Allocate(100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % alignof(std::max_align_t), 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % alignof(std::max_align_t), 0u);
  const size_t used = arena.arena_bytes();
  arena.Deallocate(b);
  EXPECT_LT(arena.arena_bytes(), used);
  arena.Deallocate(a);  // not the last block any more: kept until Reset
  arena.Reset();
  EXPECT_EQ(arena.arena_bytes(), 0u);
}

}  // namespace
}  // namespace sieve
