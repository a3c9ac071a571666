// crawler/logging.h: the crawler's logger: spdlog, to stderr, with a level from
// --log-level.
//
// The logger is created once in the command that runs and passed by reference
// to what logs; there is no global logger.
#ifndef SIEVE_CRAWLER_LOGGING_H_
#define SIEVE_CRAWLER_LOGGING_H_

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "spdlog/logger.h"
#include "spdlog/sinks/base_sink.h"

namespace sieve {

// A sink that keeps one live status line (crawler/output/progress.h) at the
// bottom of a terminal: a log line clears it first and draws it again after,
// so the two never share a line. Thread-safe (spdlog's sink mutex).
class LiveLineSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // Log lines go to `inner`; the live line to `tty`.
  LiveLineSink(spdlog::sink_ptr inner, std::FILE* tty)
      : inner_(std::move(inner)), tty_(tty) {}
  // Shows `line` (one line, no newline) as the live line, replacing the one
  // shown; "" clears it.
  void SetLine(std::string line);

 protected:
  void sink_it_(const spdlog::details::log_msg& message) override;
  void flush_() override;

 private:
  void Draw();  // REQUIRES: mutex_ held.
  spdlog::sink_ptr inner_;
  std::FILE* tty_;
  std::string line_;  // Guarded by mutex_.
};

// A logger writing "[12:00:01.123] [info] message" lines to stderr at `level`
// (trace, debug, info, warn, error, off), through a LiveLineSink (its only
// sink). InvalidArgument for an unknown level.
absl::StatusOr<std::shared_ptr<spdlog::logger>> MakeStderrLogger(
    std::string_view level);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOGGING_H_
