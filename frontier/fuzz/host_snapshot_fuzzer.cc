// Fuzzes DecodeHostSnapshot (frontier.state of a checkpoint) and
// DecodeParkedHost (a parked host's record in the checkpoint's store). The
// snapshot ends in an XXH3-64 of everything before it, so the input is also
// tried with those 8 bytes recomputed: the mutations then reach the field
// decoder. What decodes must encode back to the same bytes or snapshot.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "filter/key_hash.h"
#include "frontier/internal/host_snapshot.h"
#include "frontier/internal/parked_store.h"

namespace {

void Check(std::string_view bytes) {
  absl::StatusOr<sieve::HostSnapshot> snapshot =
      sieve::DecodeHostSnapshot(bytes);
  if (!snapshot.ok()) return;
  const std::string again = sieve::EncodeHostSnapshot(*snapshot);
  absl::StatusOr<sieve::HostSnapshot> back = sieve::DecodeHostSnapshot(again);
  if (!back.ok() || back->hosts.size() != snapshot->hosts.size() ||
      back->counters != snapshot->counters ||
      back->next_seq != snapshot->next_seq ||
      sieve::EncodeHostSnapshot(*back) != again) {
    std::abort();
  }
}

void CheckParked(std::string_view bytes) {
  std::optional<sieve::ParkedHost> host = sieve::DecodeParkedHost(bytes);
  if (host.has_value() && sieve::EncodeParkedHost(*host) != bytes) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  Check(input);
  CheckParked(input.substr(0, 26));
  if (input.size() >= 8) {
    std::string fixed(input);
    const uint64_t sum =
        sieve::Fingerprint64(input.substr(0, input.size() - 8));
    std::memcpy(fixed.data() + fixed.size() - 8, &sum, 8);  // little-endian
    Check(fixed);
  }
  return 0;
}
