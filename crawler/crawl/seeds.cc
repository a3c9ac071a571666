#include "crawler/crawl/seeds.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sieve {

SeedList ParseSeeds(std::string_view text, std::string_view source,
                    const UrlOptions& options) {
  SeedList seeds;
  // A UTF-8 byte-order mark, as Windows editors write one.
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.starts_with(kBom)) text.remove_prefix(kBom.size());
  int line_number = 0;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++line_number;
    if (size_t hash = line.find('#'); hash != absl::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    std::string written(line.data(), line.size());
    if (!absl::StrContains(line, "://")) {
      // "example.com/x", "example.com:8080/x": taken as http://, as browsers
      // and wget do with an address typed without a scheme.
      written = absl::StrCat("http://", written);
      seeds.notes.push_back(absl::StrCat(std::string(source), ":", line_number,
                                         ": no scheme; taken as ", written));
    }
    absl::StatusOr<std::string> url = ResolveUrl("", written, options);
    if (!url.ok()) {
      seeds.problems.push_back(
          absl::StrCat(std::string(source), ":", line_number, ": '", line,
                       "' is not an http(s) URL (",
                       std::string(url.status().message()), "); skipped"));
      continue;
    }
    seeds.urls.push_back(std::move(*url));
  }
  return seeds;
}

absl::StatusOr<SeedList> ReadSeedFile(const std::string& path,
                                      const UrlOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(
        absl::StrCat("cannot read seed file '", path, "'"));
  std::stringstream text;
  text << in.rdbuf();
  return ParseSeeds(text.str(), path, options);
}

}  // namespace sieve
