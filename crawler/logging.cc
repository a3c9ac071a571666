#include "crawler/logging.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "spdlog/sinks/stdout_color_sinks.h"

namespace sieve {

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
      "sieve", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  logger->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
  logger->set_level(parsed);
  logger->flush_on(spdlog::level::warn);
  return logger;
}

}  // namespace sieve
