// crawler/config/config_options.h: the one documented mapping from each
// setting of `sieve crawl` (a row of config_keys.h) to the library option it
// sets, so a reader can grep from `fetch.timeout` to
// `FetchOptions::total_timeout` and back. crawl_options.cc does the mapping;
// this table names it, and a test (config_test.cc) holds the two together:
// every setting has exactly one row, and where the library owns the default
// the crawl's default (CrawlConfig{}) equals the library's.
//
// Defaults: a setting whose option has a library default takes that default
// (`library_default` is set). The crawl chooses its own only where a crawl
// differs from the library's standalone use, and the row says so (the Sieve's
// sizing: a crawl of the web is sized for 10^7 URLs, a library user for
// 10^6). politeness.max_error_retries was the one setting with two defaults
// (the library's 1, the crawl's 2); both are 2 now, written once in
// frontier/politeness.h, which says why.
//
// Example:
//   const sieve::ConfigOption* o = sieve::FindConfigOption("fetch.timeout");
//   // o->option == "FetchOptions::total_timeout"
#ifndef SIEVE_CRAWLER_CONFIG_CONFIG_OPTIONS_H_
#define SIEVE_CRAWLER_CONFIG_CONFIG_OPTIONS_H_

#include <span>
#include <string_view>

namespace sieve {

struct ConfigOption {
  std::string_view key;  // A ConfigKey's path: "fetch.timeout".
  // The option it sets: "FetchOptions::total_timeout", or where no library
  // option takes it, the crawler's part that reads it ("crawl loop").
  std::string_view option;
  // The library's default in the setting's unit (seconds, counts, 0/1), or
  // nullptr when the crawl chooses its own default (see `note`).
  double (*library_default)() = nullptr;
  // Why the key and the option differ in unit or default, if they do.
  std::string_view note = {};
};

// Every setting, in the order of ConfigKeys().
std::span<const ConfigOption> ConfigOptions();

// The row of `key` ("fetch.timeout"), or nullptr. Cost: O(rows).
const ConfigOption* FindConfigOption(std::string_view key);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CONFIG_CONFIG_OPTIONS_H_
