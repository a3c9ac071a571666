// Fuzzes RobotsTxt::Parse and matching. The input is the robots.txt; its own
// lines are also tried as paths and user agents, so patterns meet paths that
// resemble them.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/robots.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const sieve::RobotsTxt robots = sieve::RobotsTxt::Parse(input);
  (void)robots.IsAllowed("SieveBot/1.0", "/");
  (void)robots.IsAllowed("*", "/a/b?c=d");
  (void)robots.CrawlDelay("SieveBot/1.0");
  size_t start = 0;
  for (int lines = 0; start < input.size() && lines < 16; ++lines) {
    size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view line = input.substr(start, end - start);
    (void)robots.IsAllowed("SieveBot", line);
    (void)robots.IsAllowed(line, "/x");
    (void)robots.CrawlDelay(line);
    start = end + 1;
  }
  return 0;
}
