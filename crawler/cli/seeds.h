// crawler/cli/seeds.h: reads a seed list: one URL per line, '#' starts a
// comment, blank lines are skipped, a leading UTF-8 byte-order mark is
// ignored, and a line without "://" ("example.com/x", "example.com:8080/x")
// is taken as http:// with a note.
//
// Surprises first:
//   - A bad line is not fatal: it is reported with its line number and skipped,
//     so one typo in a list of 10,000 seeds does not stop the crawl. Only an
//     unreadable file is an error.
//   - Each seed is resolved and normalised with sieve::ResolveUrl (no base), so
//     "HTTP://A.com" and "http://a.com/" are one seed; duplicates are kept (the
//     Sieve drops them).
//
// Example:
//   absl::StatusOr<sieve::SeedList> seeds =
//       sieve::ReadSeedFile("seeds.txt", {});
//   for (const std::string& p : seeds->problems)
//     logger.warn(p);  // "seeds.txt:3: ..."
#ifndef SIEVE_CRAWLER_CLI_SEEDS_H_
#define SIEVE_CRAWLER_CLI_SEEDS_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "parse/url.h"

namespace sieve {

struct SeedList {
  std::vector<std::string>
      urls;  // Normalised absolute http(s) URLs, in file order.
  std::vector<std::string>
      problems;  // "FILE:LINE: what is wrong", one per skipped line.
  std::vector<std::string>
      notes;  // "FILE:LINE: no scheme; taken as http://...", for the log.
};

// Parses seed-list text; `source` names it in problems. Cost: one ResolveUrl
// per line.
SeedList ParseSeeds(std::string_view text, std::string_view source,
                    const UrlOptions& options);

// Parses seeds given one per argument (`sieve crawl URL...`): no comments,
// the same scheme rule; problems name the argument ("argument 2: ...").
SeedList ParseSeedArgs(std::span<const std::string> args,
                       const UrlOptions& options);

// Reads and parses the file at `path`; "-" reads standard input to its end.
// NotFound when it cannot be read.
[[nodiscard]] absl::StatusOr<SeedList> ReadSeedFile(const std::string& path,
                                                    const UrlOptions& options);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CLI_SEEDS_H_
