// RunStudy: the order of the measurements and the outputs (see
// study_command.h).
#include "study/study_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "study/measure.h"
#include "study/progress.h"
#include "study/report.h"

namespace sieve::study {
namespace {

// 10^3, 10^4, ... up to max_n, and max_n itself when it is not a power of ten.
std::vector<uint64_t> Grid(uint64_t max_n) {
  std::vector<uint64_t> grid;
  for (uint64_t n = 1000; n <= max_n; n *= 10) grid.push_back(n);
  if (grid.back() != max_n) grid.push_back(max_n);
  return grid;
}

}  // namespace

int RunStudy(const StudyFlags& flags) {
  if (absl::Status s = ValidateStudyFlags(flags); !s.ok()) {
    std::fprintf(stderr, "sieve study: %s\n", std::string(s.message()).c_str());
    return 2;
  }
  std::error_code error;
  std::filesystem::create_directories(flags.out, error);
  if (error) {
    std::fprintf(stderr, "sieve study: cannot create %s: %s\n",
                 flags.out.c_str(), error.message().c_str());
    return 1;
  }
  const auto start = std::chrono::steady_clock::now();
  const std::vector<uint64_t> grid = Grid(flags.max_n);
  const uint64_t check_n = std::min<uint64_t>(flags.max_n, 1'000'000);
  const uint64_t sieve_n =
      std::clamp<uint64_t>(flags.max_n / 50, 1000, 1'000'000);
  const std::vector<double> sieve_repeats = {0.1, 0.8};

  // Work units: URLs handed to a structure (stream and probes), for the
  // progress bar.
  const double stream_factor = 1.0 / (1.0 - flags.repeat_share);
  double total = 0;
  for (uint64_t n : grid) {
    for (double rate : flags.fp_rates) {
      total += static_cast<double>(flags.kinds.size()) *
               (static_cast<double>(n) * stream_factor +
                static_cast<double>(ProbeCount(n, rate)));
    }
    total += 3 * (static_cast<double>(n) * stream_factor +
                  static_cast<double>(ProbeCount(n, 1e-3)));
  }
  total += static_cast<double>(check_n) * stream_factor + 4e6;
  total += 2 * (static_cast<double>(sieve_n) * (stream_factor + 5.0));
  total += 9 * 4e6;  // Hashing schemes, roughly.
  Progress progress(static_cast<uint64_t>(total), ProgressStyleForStderr());

  MeasureContext context;
  context.stream =
      UrlStreamOptions{.seed = flags.seed, .repeat_share = flags.repeat_share};
  context.memory_cap = flags.memory_cap;
  context.filter_group_budget =
      std::min<uint64_t>(flags.memory_cap, uint64_t{12} << 30);
  context.scratch_dir = flags.out + "/.scratch";
  context.progress = &progress;

  ReportInput report{.command = StudyCommandLine(flags), .complete = false};
  auto write = [&](bool complete) -> bool {
    report.complete = complete;
    report.elapsed_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    absl::Status s = WriteStudyOutputs(report, flags.out);
    if (!s.ok())
      std::fprintf(stderr, "sieve study: %s\n",
                   std::string(s.message()).c_str());
    return s.ok();
  };
  auto fail = [&](const absl::Status& s) {
    std::fprintf(stderr, "\nsieve study: %s\n",
                 std::string(s.message()).c_str());
    std::filesystem::remove_all(context.scratch_dir, error);
    return 1;
  };

  absl::StatusOr<ResultRow> check =
      MeasureTwentyBitsTenHashes(context, check_n);
  if (!check.ok()) return fail(check.status());
  report.rows.push_back(*check);
  for (ResultRow& row : MeasureHashingSchemes(context, flags.max_n)) {
    report.rows.push_back(std::move(row));
  }
  absl::StatusOr<std::vector<ResultRow>> sieve_rows =
      MeasureSieve(context, sieve_n, sieve_repeats);
  if (!sieve_rows.ok()) return fail(sieve_rows.status());
  report.rows.insert(report.rows.end(), sieve_rows->begin(), sieve_rows->end());
  std::filesystem::remove_all(context.scratch_dir, error);
  if (!write(false)) return 1;

  for (uint64_t n : grid) {
    progress.SetStage(
        absl::StrFormat("filters n=%.0e", static_cast<double>(n)));
    absl::StatusOr<std::vector<ResultRow>> filters =
        MeasureFilters(context, flags.kinds, flags.fp_rates, n, report.rows);
    if (!filters.ok()) return fail(filters.status());
    report.rows.insert(report.rows.end(), filters->begin(), filters->end());
    if (!write(false)) return 1;
  }
  // The exact sets after every filter: they take the most memory, and a run
  // stopped there has kept all filter results.
  for (uint64_t n : grid) {
    for (ResultRow& row : MeasureExactSets(context, n, report.rows)) {
      report.rows.push_back(std::move(row));
    }
    if (!write(false)) return 1;
  }
  // The stream chapter: forgetting filters at a fixed memory.
  report.stream_options.positions =
      flags.stream_n != 0 ? flags.stream_n : flags.max_n;
  report.stream_options.window =
      flags.stream_window != 0
          ? flags.stream_window
          : std::max<uint64_t>(1000, report.stream_options.positions / 100);
  report.stream_options.memory_bytes = flags.stream_memory;
  report.stream_options.seed = flags.seed;
  progress.AddToTotal(report.stream_options.positions);
  progress.SetStage("stream");
  absl::StatusOr<std::vector<StreamPoint>> stream =
      MeasureStream(report.stream_options, &progress);
  if (!stream.ok()) return fail(stream.status());
  report.stream = *std::move(stream);
  progress.Finish();
  if (!write(true)) return 1;
  std::fprintf(
      stderr,
      "sieve study: wrote %s/{results.csv,memory.svg,fpr.svg,throughput.svg,"
      "stream.csv,stream_fpr.svg,stream_fnr.svg,report.md}\n",
      flags.out.c_str());
  return 0;
}

}  // namespace sieve::study
