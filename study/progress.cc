#include "study/progress.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace sieve::study {
namespace {

std::string Clock(absl::Duration d) {
  const int64_t seconds = absl::ToInt64Seconds(d);
  return absl::StrFormat("%d:%02d:%02d", seconds / 3600, (seconds / 60) % 60,
                         seconds % 60);
}

}  // namespace

ProgressStyle ProgressStyleForStderr() {
  return isatty(STDERR_FILENO) ? ProgressStyle::kBar : ProgressStyle::kLines;
}

Progress::Progress(uint64_t total, ProgressStyle style, std::FILE* out,
                   absl::Duration line_interval)
    : total_(std::max<uint64_t>(total, 1)),
      style_(style),
      out_(out),
      line_interval_(line_interval),
      start_(absl::Now()),
      last_draw_(absl::InfinitePast()) {}

void Progress::SetStage(std::string stage) {
  stage_ = std::move(stage);
  if (style_ == ProgressStyle::kLines) {
    absl::FPrintF(out_, "study: [%s] %s\n", Clock(absl::Now() - start_),
                  stage_);
    std::fflush(out_);
  }
}

void Progress::Advance(uint64_t units) {
  done_ += units;
  const absl::Time now = absl::Now();
  const absl::Duration every =
      style_ == ProgressStyle::kBar ? absl::Milliseconds(100) : line_interval_;
  if (now - last_draw_ >= every) {
    last_draw_ = now;
    Draw(false);
  }
}

void Progress::Finish() {
  done_ = std::max(done_, total_);
  Draw(true);
}

void Progress::Draw(bool final_draw) {
  if (style_ == ProgressStyle::kSilent) return;
  const double fraction =
      std::min(1.0, static_cast<double>(done_) / static_cast<double>(total_));
  const absl::Duration elapsed = absl::Now() - start_;
  const std::string eta = fraction > 0.001
                              ? Clock(elapsed * ((1 - fraction) / fraction))
                              : std::string("?");
  if (style_ == ProgressStyle::kBar) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(fraction * kWidth);
    absl::FPrintF(out_, "\r[%s%s] %5.1f%% %s eta %s  %-40.40s",
                  std::string(filled, '#'), std::string(kWidth - filled, '.'),
                  100 * fraction, Clock(elapsed), eta, stage_);
    if (final_draw) absl::FPrintF(out_, "\n");
  } else {
    absl::FPrintF(out_, "study: %5.1f%% elapsed %s eta %s  %s\n",
                  100 * fraction, Clock(elapsed), eta, stage_);
  }
  std::fflush(out_);
}

}  // namespace sieve::study
