#include "crawler/logging.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "spdlog/sinks/stdout_color_sinks.h"

namespace sieve {

void LiveLineSink::SetLine(std::string line) {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool was_shown = !line_.empty();
  line_ = std::move(line);
  if (line_.empty() && was_shown) {
    std::fputs("\r\033[K", tty_);
    std::fflush(tty_);
  } else if (!line_.empty()) {
    Draw();
  }
}

void LiveLineSink::Draw() {
  std::fputs("\r\033[K", tty_);
  std::fputs(line_.c_str(), tty_);
  std::fflush(tty_);
}

void LiveLineSink::sink_it_(const spdlog::details::log_msg& message) {
  if (!line_.empty()) {
    std::fputs("\r\033[K", tty_);  // The log line starts on a clear line.
    std::fflush(tty_);
  }
  inner_->log(message);
  inner_->flush();
  if (!line_.empty()) Draw();
}

void LiveLineSink::flush_() { inner_->flush(); }

absl::StatusOr<std::shared_ptr<spdlog::logger>> MakeStderrLogger(
    std::string_view level) {
  spdlog::level::level_enum parsed =
      spdlog::level::from_str(std::string(level));
  // from_str maps anything it does not know to "off"; only "off" itself may
  // mean that.
  if (parsed == spdlog::level::off && level != "off") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown log level '", std::string(level),
                     "' (trace, debug, info, warn, error, off)"));
  }
  auto logger = std::make_shared<spdlog::logger>(
      "sieve",
      std::make_shared<LiveLineSink>(
          std::make_shared<spdlog::sinks::stderr_color_sink_mt>(), stderr));
  logger->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
  logger->set_level(parsed);
  logger->flush_on(spdlog::level::warn);
  return logger;
}

}  // namespace sieve
