// crawler/logging.h: the crawler's logger: spdlog, to stderr, with a level from
// --log-level.
//
// The logger is created once in the command that runs and passed by reference
// to what logs; there is no global logger.
#ifndef SIEVE_CRAWLER_LOGGING_H_
#define SIEVE_CRAWLER_LOGGING_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "spdlog/logger.h"

namespace sieve {

// A logger writing "[12:00:01.123] [info] message" lines to stderr at `level`
// (trace, debug, info, warn, error, off). InvalidArgument for an unknown level.
absl::StatusOr<std::shared_ptr<spdlog::logger>> MakeStderrLogger(
    std::string_view level);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOGGING_H_
