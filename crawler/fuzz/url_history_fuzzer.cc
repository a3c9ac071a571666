// Fuzzes DecodeHistoryFile and DecodeUrlHistory (crawl.history of a
// checkpoint: the per-URL history of a revisit crawl). Any bytes must decode
// or give DataLoss; a file that decodes encodes to bytes that decode to the
// same table.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crawler/crawl/url_history.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<sieve::UrlHistory> one = sieve::DecodeUrlHistory(input);
  if (!one.ok() && !absl::IsDataLoss(one.status())) std::abort();
  if (one.ok() && !(*sieve::DecodeUrlHistory(EncodeUrlHistory(*one)) == *one))
    std::abort();
  absl::StatusOr<sieve::UrlHistoryTable> table =
      sieve::DecodeHistoryFile(input, "fuzz/crawl.history");
  if (!table.ok()) {
    if (!absl::IsDataLoss(table.status())) std::abort();
    return 0;
  }
  absl::StatusOr<sieve::UrlHistoryTable> again =
      sieve::DecodeHistoryFile(sieve::EncodeHistoryFile(*table), "fuzz/again");
  if (!again.ok() || *again != *table) std::abort();
  return 0;
}
