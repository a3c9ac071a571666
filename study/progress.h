// study/progress.h: progress of a long `sieve study` run on stderr.
//
// On a terminal: one bar redrawn in place (at most 10 times a second) with
// percent, elapsed time, an ETA and what is being measured. Otherwise (a log
// file): one plain line every `interval`. Not thread-safe: one caller drives
// it.
//
// Example:
//   Progress progress(total_units, ProgressStyleForStderr());
//   progress.SetStage("classic p=0.01 n=1e6");
//   progress.Advance(4096);
//   progress.Finish();
#ifndef SIEVE_STUDY_PROGRESS_H_
#define SIEVE_STUDY_PROGRESS_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/time/time.h"

namespace sieve::study {

enum class ProgressStyle { kBar, kLines, kSilent };

// kBar when stderr is a terminal, kLines otherwise.
ProgressStyle ProgressStyleForStderr();

class Progress {
 public:
  // `total` work units (any unit; the study counts URLs processed).
  // Default interval between plain lines: 10 s.
  Progress(uint64_t total, ProgressStyle style, std::FILE* out = stderr,
           absl::Duration line_interval = absl::Seconds(10));

  void SetStage(std::string stage);
  // Adds `units` done; redraws when due. Cost: one clock read.
  void Advance(uint64_t units);
  // Adds to the total (work discovered late).
  void AddToTotal(uint64_t units) { total_ += units; }
  // Prints the final state and a newline.
  void Finish();

  uint64_t done() const { return done_; }

 private:
  void Draw(bool final_draw);

  uint64_t total_;
  uint64_t done_ = 0;
  ProgressStyle style_;
  std::FILE* out_;
  absl::Duration line_interval_;
  absl::Time start_;
  absl::Time last_draw_;
  std::string stage_;
};

}  // namespace sieve::study

#endif  // SIEVE_STUDY_PROGRESS_H_
