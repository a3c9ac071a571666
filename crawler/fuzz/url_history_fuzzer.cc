// Fuzzes DecodeUrlHistory (one URL's history in a revisit crawl's store,
// frontier/url_record_store.h, and so in its checkpoints). Any bytes must
// decode or give DataLoss; a record that decodes encodes to bytes that decode
// to the same history.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crawler/policy/url_history.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<sieve::UrlHistory> one = sieve::DecodeUrlHistory(input);
  if (!one.ok()) {
    if (!absl::IsDataLoss(one.status())) std::abort();
    return 0;
  }
  absl::StatusOr<sieve::UrlHistory> again =
      sieve::DecodeUrlHistory(sieve::EncodeUrlHistory(*one));
  if (!again.ok() || !(*again == *one)) std::abort();
  return 0;
}
