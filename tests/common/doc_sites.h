// tests/common/doc_sites.h: real websites on disk, the HTML documentation that
// Debian's doc packages install under /usr/share/doc (scripts/install-deps.sh
// installs all but rust-doc, which only bench/ reads).
//
// Example (a parameterised test over the sites):
//   INSTANTIATE_TEST_SUITE_P(DebianDocs, DocSiteTest,
//                            ::testing::ValuesIn(sieve::test::DocSites()),
//                            sieve::test::DocSiteName);
//   TEST_P(DocSiteTest, ...) {
//     const sieve::test::DocSample sample = sieve::test::SampleDocSite(
//         GetParam(), 8 << 20);
//     if (sample.files.empty()) GTEST_SKIP() << sample.missing;
//     for (size_t i = 0; i < sample.files.size(); i += sample.stride) ...
//   }
#ifndef SIEVE_TESTS_COMMON_DOC_SITES_H_
#define SIEVE_TESTS_COMMON_DOC_SITES_H_

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace sieve::test {

struct DocSite {
  const char* package;
  const char* root;  // HTML files under it, followed through symlinks
};

// The sites: postgresql-doc-15, python3-doc, openjdk-17-doc, libxslt1-dev (old
// hand-made XHTML in ISO-8859-1 with an XML declaration) and rust-doc (the
// second site of bench/crawler/crawl_bench.sh; not in the install script).
const std::vector<DocSite>& DocSites();

// The package name with all but letters and digits dropped, for test names.
std::string DocSiteName(const ::testing::TestParamInfo<DocSite>& info);

struct DocSample {
  std::vector<std::filesystem::path> files;  // every .html/.htm, sorted
  size_t stride = 1;    // read files[0], files[stride], ...
  std::string missing;  // why files is empty: the message to skip with
};

// The site's pages and the stride that reads about `sample_bytes` of them;
// stride 1 (every page) when SIEVE_DOCS_FULL is set. Cost: one walk of the
// site's tree.
DocSample SampleDocSite(const DocSite& site, size_t sample_bytes);

}  // namespace sieve::test

#endif  // SIEVE_TESTS_COMMON_DOC_SITES_H_
