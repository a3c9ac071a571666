// crawler/study/study_command.h: `sieve study`, the tool that measures what URL
// deduplication costs at scale: bytes, bits per URL, ns per insert and query,
// measured against predicted false positives, for every Bloom filter kind,
// exact hash-set baselines, the hashing schemes of published articles and the
// lossless Sieve. Writes results.csv, SVG plots and report.md.
//
// Surprises first:
//   - A run to 10^9 URLs takes hours and up to ~13 GiB of RAM for the filters;
//   exact sets stop
//     at --memory-cap and are extrapolated (marked so) beyond it.
//   - Timings depend on the machine and its load; sizes and false-positive
//   rates do not (the URL
//     stream is deterministic from --seed).
//
// Example (what the `sieve` binary does with its flags):
//   absl::StatusOr<sieve::study::StudyFlags> flags =
//   sieve::study::StudyFlagsFromStrings(
//       {.max_n = "1e6", .out = "study-out"});
//   if (!flags.ok()) { /* print flags.status(), exit 2 */ }
//   int exit_code = sieve::study::RunStudy(*flags);
#ifndef SIEVE_CRAWLER_STUDY_STUDY_COMMAND_H_
#define SIEVE_CRAWLER_STUDY_STUDY_COMMAND_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "filter/filter.h"

namespace sieve::study {

struct StudyFlags {
  // Largest number of distinct URLs; the grid is 10^3, 10^4, ... up to it.
  // Default: 10^8.
  uint64_t max_n = 100'000'000;
  // Target false-positive rates of the filters. Default: 0.1, 0.01, 0.001,
  // 0.0001.
  std::vector<double> fp_rates = {0.1, 0.01, 0.001, 0.0001};
  // Filter kinds to measure. Default: all four.
  std::vector<FilterKind> kinds = {FilterKind::kClassic, FilterKind::kBlocked,
                                   FilterKind::kCounting,
                                   FilterKind::kScalable};
  // Exact sets (and any filter) predicted to need more are extrapolated, not
  // built. Default: 16 GiB.
  uint64_t memory_cap = uint64_t{16} << 30;
  // Output directory, created if missing. Default: "study-out".
  std::string out = "study-out";
  // Seeds the URL stream. Default: 42.
  uint64_t seed = 42;
  // Share of stream positions that repeat an earlier URL. REQUIRES: [0, 1).
  // Default: 0.1.
  double repeat_share = 0.1;
};

// The flags as the command line gives them; empty means "default".
struct StudyFlagStrings {
  std::string max_n = {};
  std::string fp_rates = {};
  std::string kinds = {};
  std::string memory_cap = {};
  std::string out = {};
  std::string seed = {};
  std::string repeat_share = {};
};

// "1e6", "1000000", "2.5e3" -> integer count. InvalidArgument for negatives,
// fractions, garbage or values past 2^53.
[[nodiscard]] absl::StatusOr<uint64_t> ParseCount(std::string_view text);
// "16G", "16GiB", "512M", "1024", "1.5T", "4096K" -> bytes (binary multiples: K
// = 1024).
[[nodiscard]] absl::StatusOr<uint64_t> ParseByteSize(std::string_view text);
// "0.1,0.01" -> {0.1, 0.01}; each in (0, 1), at least one.
[[nodiscard]] absl::StatusOr<std::vector<double>> ParseFpRates(
    std::string_view text);
// "classic,blocked" -> kinds; each a FilterKindName, no duplicates, at least
// one.
[[nodiscard]] absl::StatusOr<std::vector<FilterKind>> ParseKinds(
    std::string_view text);
// All flags at once; validates ranges (max_n >= 1000, repeat_share in [0, 1),
// non-empty out).
[[nodiscard]] absl::StatusOr<StudyFlags> StudyFlagsFromStrings(
    const StudyFlagStrings& strings);

// Runs the study and writes DIR/results.csv, DIR/memory.svg, DIR/fpr.svg,
// DIR/throughput.svg and DIR/report.md. Progress goes to stderr (a bar on a
// terminal, periodic lines otherwise). Returns 0 on success, 2 for invalid
// flags, 1 for a runtime failure; errors are one stderr line.
int RunStudy(const StudyFlags& flags);

}  // namespace sieve::study

#endif  // SIEVE_CRAWLER_STUDY_STUDY_COMMAND_H_
