#include "crawler/output/progress.h"

#include <cstdio>

#include "absl/strings/str_format.h"

namespace sieve {

std::string FormatProgressLine(const ProgressSnapshot& s,
                               double pages_per_second) {
  std::string line = absl::StrFormat(
      "pages %d (%.1f/s) | queued %d | in flight %d | hosts %d | filter "
      "%.0f/%d fpr %.2g | "
      "errors %d",
      s.pages, pages_per_second, s.queued, s.in_flight, s.hosts_active,
      s.filter_estimated_count, s.filter_capacity, s.filter_estimated_fp_rate,
      s.errors);
  if (s.rendering) {
    absl::StrAppendFormat(&line, " | rendered %d, browsers %d", s.rendered,
                          s.browsers_alive);
  }
  return line;
}

Progress::Progress(std::shared_ptr<spdlog::logger> logger, bool live)
    : log_(std::move(logger)),
      live_(live),
      interval_(live ? absl::Milliseconds(500) : absl::Seconds(5)) {
  for (const spdlog::sink_ptr& sink : log_->sinks()) {
    if (auto live_sink = std::dynamic_pointer_cast<LiveLineSink>(sink)) {
      sink_ = std::move(live_sink);
    }
  }
}

void Progress::Tick(absl::Time now,
                    const std::function<ProgressSnapshot()>& snapshot) {
  if (last_ == absl::InfinitePast()) {
    last_ = now;
    return;
  }
  if (now - last_ < interval_) return;
  const ProgressSnapshot s = snapshot();
  const double rate = static_cast<double>(s.pages - last_pages_) /
                      absl::ToDoubleSeconds(now - last_);
  last_ = now;
  last_pages_ = s.pages;
  const std::string line = FormatProgressLine(s, rate);
  if (live_ && sink_ != nullptr) {
    sink_->SetLine(line);
    line_shown_ = true;
  } else if (live_) {
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    line_shown_ = true;
  } else {
    log_->info("{}", line);
  }
}

void Progress::Finish(const ProgressSnapshot& s) {
  if (line_shown_ && sink_ != nullptr) {
    sink_->SetLine("");
  } else if (line_shown_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
  const double rate =
      s.seconds > 0 ? static_cast<double>(s.pages_this_run) / s.seconds : 0;
  log_->info("{}", FormatProgressLine(s, rate));
}

}  // namespace sieve
