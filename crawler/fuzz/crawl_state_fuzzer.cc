// Fuzzes DecodeCrawlState (crawl.state of a checkpoint: JSON with counters,
// seed hosts and WARC file lengths). Any bytes must decode or give DataLoss /
// FailedPrecondition naming the file; never a crash or an exception escaping.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crawler/loop/crawl_state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<sieve::CrawlState> state =
      sieve::DecodeCrawlState(input, "fuzz/crawl.state");
  if (!state.ok() && !absl::IsDataLoss(state.status()) &&
      !absl::IsFailedPrecondition(state.status())) {
    std::abort();
  }
  return 0;
}
