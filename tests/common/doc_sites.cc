#include "tests/common/doc_sites.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace sieve::test {

const std::vector<DocSite>& DocSites() {
  static const std::vector<DocSite> sites = {
      {"postgresql-doc-15", "/usr/share/doc/postgresql-doc-15/html"},
      {"python3-doc", "/usr/share/doc/python3-doc/html"},
      {"openjdk-17-doc", "/usr/share/doc/openjdk-17-doc/api"},
      {"libxslt1-dev", "/usr/share/doc/libxslt1-dev/html"},
      {"rust-doc", "/usr/share/doc/rust-doc/html"},
  };
  return sites;
}

std::string DocSiteName(const ::testing::TestParamInfo<DocSite>& info) {
  std::string name = info.param.package;
  std::erase_if(name, [](char c) { return !std::isalnum(c); });
  return name;
}

DocSample SampleDocSite(const DocSite& site, size_t sample_bytes) {
  namespace fs = std::filesystem;
  DocSample sample;
  size_t total_bytes = 0;
  std::error_code error;
  for (fs::recursive_directory_iterator it(
           site.root, fs::directory_options::follow_directory_symlink, error),
       end;
       !error && it != end; it.increment(error)) {
    const std::string ext = it->path().extension().string();
    if (it->is_regular_file(error) && (ext == ".html" || ext == ".htm")) {
      sample.files.push_back(it->path());
      total_bytes += it->file_size(error);
    }
  }
  std::sort(sample.files.begin(), sample.files.end());
  if (sample.files.empty()) {
    sample.missing = absl::StrCat(
        site.package, " is not installed (no HTML under ", site.root, ")");
  }
  if (std::getenv("SIEVE_DOCS_FULL") == nullptr && sample_bytes > 0) {
    sample.stride =
        std::max<size_t>(1, (total_bytes + sample_bytes - 1) / sample_bytes);
  }
  return sample;
}

}  // namespace sieve::test
