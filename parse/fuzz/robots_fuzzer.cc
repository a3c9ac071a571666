// Fuzzes RobotsTxt::Parse and matching. The input is the robots.txt; its own
// lines are also tried as paths and user agents, so patterns meet paths that
// resemble them. Differential: the compiled RobotsMatcher must answer as
// RobotsTxt::IsAllowed does (when no rule was dropped by its cap).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parse/robots.h"
#include "parse/robots_matcher.h"

namespace {

void Check(const sieve::RobotsTxt& robots, const sieve::RobotsMatcher& matcher,
           std::string_view agent, std::string_view path) {
  const bool reference = robots.IsAllowed(agent, path);
  if (matcher.ignored_wildcard_rules() == 0 &&
      matcher.IsAllowed(path) != reference) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const sieve::RobotsTxt robots = sieve::RobotsTxt::Parse(input);
  const sieve::RobotsMatcher mine =
      sieve::RobotsMatcher::Compile(robots, "SieveBot/1.0");
  const sieve::RobotsMatcher star = sieve::RobotsMatcher::Compile(robots, "*");
  Check(robots, mine, "SieveBot/1.0", "/");
  Check(robots, star, "*", "/a/b?c=d");
  (void)robots.CrawlDelay("SieveBot/1.0");
  size_t start = 0;
  for (int lines = 0; start < input.size() && lines < 16; ++lines) {
    size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view line = input.substr(start, end - start);
    Check(robots, mine, "SieveBot", line);
    if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
      Check(robots, mine, "SieveBot", line.substr(colon + 1));
    }
    (void)robots.IsAllowed(line, "/x");
    (void)robots.CrawlDelay(line);
    start = end + 1;
  }
  return 0;
}
