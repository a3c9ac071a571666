// study/study_flags.h: the settings of `sieve study`, declared once.
//
// StudyFlags holds every setting with its default (the member initialisers are
// the only place a default is written). StudySettings() is the one table of
// them: flag name, value type, help, how to parse a value and how to print
// one. The `sieve` binary builds its study flags, its `sieve help study` text
// and its list of accepted flags from that table, and RunStudy writes the
// command line of a run into report.md from it.
//
// Example (what the `sieve` binary does with its flags):
//   absl::StatusOr<sieve::study::StudyFlags> flags =
//       sieve::study::StudyFlagsFromText({{"max-n", "1e6"}, {"out", "o"}});
//   if (!flags.ok()) { /* print flags.status(), exit 2 */ }
//   int exit_code = sieve::study::RunStudy(*flags);
#ifndef SIEVE_STUDY_STUDY_FLAGS_H_
#define SIEVE_STUDY_STUDY_FLAGS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "filter/filter.h"

namespace sieve::study {

// The filter kinds that never forget a key (not FilterKindForgets).
std::vector<FilterKind> KeepingFilterKinds();

struct StudyFlags {
  // Largest number of distinct URLs; the grid is 10^3, 10^4, ... up to it.
  // REQUIRES: in [1000, 2^39].
  uint64_t max_n = 100'000'000;
  // Target false-positive rates of the filters. REQUIRES: each in (0, 1).
  std::vector<double> fp_rates = {0.1, 0.01, 0.001, 0.0001};
  // Filter kinds to measure. REQUIRES: kinds that keep every key (the
  // forgetting ones are measured on a stream, not on this grid). Default:
  // every such kind.
  std::vector<FilterKind> kinds = KeepingFilterKinds();
  // Exact sets (and any filter) predicted to need more bytes are extrapolated,
  // not built. REQUIRES: >= 1 MiB.
  uint64_t memory_cap = uint64_t{16} << 30;
  // Output directory, created if missing. REQUIRES: not empty.
  std::string out = "study-out";
  // Seeds the URL stream.
  uint64_t seed = 42;
  // Share of stream positions that repeat an earlier URL. REQUIRES: [0, 1).
  double repeat_share = 0.1;
  // The stream chapter (study/stream_chapter.h): positions fed; 0 means
  // max_n. Default: 0.
  uint64_t stream_n = 0;
  // Its repeats come from the last this many distinct URLs; 0 means
  // max(1000, positions / 100). Default: 0.
  uint64_t stream_window = 0;
  // Memory of its stable and generational filters; 0 means twice a classic
  // filter of the window at 1 %. Default: 0.
  uint64_t stream_memory = 0;
};

// One row of the settings table.
struct StudySetting {
  // Dashed flag name ("max-n").
  std::string_view flag;
  // What a value looks like ("N", "LIST", "BYTES").
  std::string_view value_name;
  // One line.
  std::string_view help;
  // Parses `text` into the setting; InvalidArgument names the flag.
  absl::Status (*parse)(std::string_view text, StudyFlags& flags);
  // The setting's value as parse() reads it back ("1e8", "16G", "0.1,0.01").
  std::string (*format)(const StudyFlags& flags);
};

// Every setting, in the order help lists them.
std::span<const StudySetting> StudySettings();

// Defaults, then each (flag, text) pair in order, then ValidateStudyFlags.
// InvalidArgument for an unknown flag name or a bad value, naming the flag.
[[nodiscard]] absl::StatusOr<StudyFlags> StudyFlagsFromText(
    std::span<const std::pair<std::string, std::string>> given);

// The ranges each field's comment REQUIRES; the error names the flag.
[[nodiscard]] absl::Status ValidateStudyFlags(const StudyFlags& flags);

// "sieve study --max-n 1e6 --fp-rates ... --out DIR": a command line that
// repeats a run with `flags`.
std::string StudyCommandLine(const StudyFlags& flags);

// The value parsers the table uses:
// "1e6", "1000000", "2.5e3" -> integer count. InvalidArgument for negatives,
// fractions, garbage or values past 2^53.
[[nodiscard]] absl::StatusOr<uint64_t> ParseCount(std::string_view text);
// "16G", "16GiB", "512M", "1024", "1.5T", "4096K" -> bytes (binary multiples:
// K = 1024).
[[nodiscard]] absl::StatusOr<uint64_t> ParseByteSize(std::string_view text);
// "0.1,0.01" -> {0.1, 0.01}; each in (0, 1), at least one.
[[nodiscard]] absl::StatusOr<std::vector<double>> ParseFpRates(
    std::string_view text);
// "classic,blocked" -> kinds; each a FilterKindName (filter/'s parser), no
// duplicates, at least one.
[[nodiscard]] absl::StatusOr<std::vector<FilterKind>> ParseKinds(
    std::string_view text);

}  // namespace sieve::study

#endif  // SIEVE_STUDY_STUDY_FLAGS_H_
