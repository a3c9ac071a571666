// Fuzzes DeserializeFilter, which reads a filter image (filter.bin of a
// checkpoint, or any file given to LoadFilterFromFile) of any kind. The image
// ends in a checksum, so the input is also read with verify_checksum = false:
// mutations then reach the header and payload checks instead of stopping at
// the checksum. A filter that loads must work (add, test, estimate) and must
// survive a round trip: Serialize() reads back, and serialises to the same
// bytes again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "filter/filter.h"

namespace {

void Exercise(sieve::Filter& filter) {
  (void)filter.MayContain("http://a.example/");
  (void)filter.Add("http://b.example/x");
  if (!filter.MayContain("http://b.example/x")) std::abort();
  (void)filter.EstimatedCount();
  (void)filter.EstimatedFalsePositiveRate();
  (void)filter.FillRatio();
  (void)filter.FormulaFalsePositiveRate(1000);
  const std::string bytes = filter.Serialize();
  absl::StatusOr<std::unique_ptr<sieve::Filter>> back =
      sieve::DeserializeFilter(bytes);
  if (!back.ok() || (*back)->kind() != filter.kind() ||
      (*back)->bit_count() != filter.bit_count() ||
      !(*back)->MayContain("http://b.example/x") ||
      (*back)->Serialize() != bytes) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  for (const bool verify : {true, false}) {
    absl::StatusOr<std::unique_ptr<sieve::Filter>> filter =
        sieve::DeserializeFilter(input, {.verify_checksum = verify});
    if (filter.ok()) Exercise(**filter);
  }
  return 0;
}
