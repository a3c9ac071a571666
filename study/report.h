// study/report.h: report.md and the SVG plots of `sieve study`, made
// from its rows.
//
// The report holds the tables (memory, bits per URL, speed, false-positive
// rates, exact sets, hashing schemes, lossless Sieve) and checks the
// literature's figures against the measurements (docs/study.md): 9.6 bits
// per URL at 1 %, +4.8 bits per tenfold lower rate, m = 20n with k = 10
// giving 8.9e-5, and 10^9 URLs at 0.01 % needing 2.40 GB (not 18 MB).
//
// Example:
//   absl::Status s = WriteStudyOutputs(
//       {.rows = rows, .command = "sieve study --max-n 1e6"}, dir);
#ifndef SIEVE_STUDY_REPORT_H_
#define SIEVE_STUDY_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "study/results.h"
#include "study/stream_chapter.h"
#include "study/svg_plot.h"

namespace sieve::study {

struct ReportInput {
  std::vector<ResultRow> rows = {};
  // The command that made the rows, quoted in the report.
  std::string command = {};
  // Wall time of the run so far, seconds.
  double elapsed_seconds = 0;
  // False while the run is still going (the report says so).
  bool complete = true;
  // The stream chapter, once measured (empty before).
  StreamOptions stream_options = {};
  std::vector<StreamPoint> stream = {};
};

// The three plots: memory vs n, measured vs predicted FPR, throughput vs n.
PlotSpec MemoryPlot(const std::vector<ResultRow>& rows);
PlotSpec FalsePositivePlot(const std::vector<ResultRow>& rows);
PlotSpec ThroughputPlot(const std::vector<ResultRow>& rows);

// report.md's text.
std::string RenderReport(const ReportInput& input);

// Writes results.csv, memory.svg, fpr.svg, throughput.svg and report.md into
// `dir` (which must exist).
[[nodiscard]] absl::Status WriteStudyOutputs(const ReportInput& input,
                                             const std::string& dir);

}  // namespace sieve::study

#endif  // SIEVE_STUDY_REPORT_H_
