#include "crawler/cli/seeds.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sieve {

namespace {

// Adds one seed as written (`where` names it in notes and problems).
void AddSeed(absl::string_view seed, const std::string& where,
             const UrlOptions& options, SeedList& seeds) {
  std::string written(seed);
  if (!absl::StrContains(seed, "://")) {
    // "example.com/x", "example.com:8080/x": taken as http://, as browsers
    // and wget do with an address typed without a scheme.
    written = absl::StrCat("http://", written);
    seeds.notes.push_back(
        absl::StrCat(where, ": no scheme; taken as ", written));
  }
  absl::StatusOr<std::string> url = ResolveUrl("", written, options);
  if (!url.ok()) {
    seeds.problems.push_back(
        absl::StrCat(where, ": '", seed, "' is not an http(s) URL (",
                     std::string(url.status().message()), "); skipped"));
    return;
  }
  seeds.urls.push_back(std::move(*url));
}

}  // namespace

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
    AddSeed(line, absl::StrCat(std::string(source), ":", line_number), options,
            seeds);
  }
  return seeds;
}

SeedList ParseSeedArgs(std::span<const std::string> args,
                       const UrlOptions& options) {
  SeedList seeds;
  for (size_t i = 0; i < args.size(); ++i) {
    AddSeed(args[i], absl::StrCat("argument ", i + 1), options, seeds);
  }
  return seeds;
}

absl::StatusOr<SeedList> ReadSeedFile(const std::string& path,
                                      const UrlOptions& options) {
  if (path == "-") {
    std::stringstream text;
    text << std::cin.rdbuf();
    return ParseSeeds(text.str(), "stdin", options);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(
        absl::StrCat("cannot read seed file '", path, "'"));
  std::stringstream text;
  text << in.rdbuf();
  return ParseSeeds(text.str(), path, options);
}

}  // namespace sieve
