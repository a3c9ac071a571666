// Fuzzes ApplyConfigToml (a --config file, or a resumed crawl's config.toml)
// and its inverse ConfigToToml. Any text must give a config or a clear error,
// never a crash. A config that loads must round-trip: the TOML ConfigToToml
// writes for it (what a crawl saves for --resume) loads again, to a config
// that writes the same TOML.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "crawler/cli/crawl_command.h"
#include "crawler/config/config_loader.h"
#include "crawler/config/crawl_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  sieve::CrawlConfig config;
  if (!sieve::ApplyConfigToml(input, "fuzz.toml", config).ok()) return 0;
  const std::string saved = sieve::ConfigToToml(config);
  sieve::CrawlConfig again;
  const absl::Status reloaded =
      sieve::ApplyConfigToml(saved, "config.toml", again);
  if (!reloaded.ok() || sieve::ConfigToToml(again) != saved) {
    std::fprintf(stderr, "config.toml does not round-trip: %s\n%s\n",
                 reloaded.ToString().c_str(), saved.c_str());
    std::abort();
  }
  return 0;
}
