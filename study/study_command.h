// study/study_command.h: `sieve study`, the tool that measures what URL
// deduplication costs at scale: bytes, bits per URL, ns per insert and query,
// measured against predicted false positives, for every Bloom filter kind,
// exact hash-set baselines, the hashing schemes of published articles and the
// lossless Sieve. Writes results.csv, SVG plots and report.md.
//
// Surprises first:
//   - A run to 10^9 URLs takes hours and up to ~13 GiB of RAM for the filters;
//     exact sets stop at --memory-cap and are extrapolated (marked so) beyond
//     it.
//   - Timings depend on the machine and its load; sizes and false-positive
//     rates do not (the URL stream is deterministic from --seed).
//
// Example (the settings come from study_flags.h):
//   absl::StatusOr<sieve::study::StudyFlags> flags =
//       sieve::study::StudyFlagsFromText({{"max-n", "1e6"}});
//   if (!flags.ok()) { /* print flags.status(), exit 2 */ }
//   int exit_code = sieve::study::RunStudy(*flags);
#ifndef SIEVE_STUDY_STUDY_COMMAND_H_
#define SIEVE_STUDY_STUDY_COMMAND_H_

#include "study/study_flags.h"

namespace sieve::study {

// Runs the study and writes DIR/results.csv, DIR/memory.svg, DIR/fpr.svg,
// DIR/throughput.svg and DIR/report.md. Progress goes to stderr (a bar on a
// terminal, periodic lines otherwise). Returns 0 on success, 2 for invalid
// flags, 1 for a runtime failure; errors are one stderr line.
int RunStudy(const StudyFlags& flags);

}  // namespace sieve::study

#endif  // SIEVE_STUDY_STUDY_COMMAND_H_
