// Fuzzes the two manifests of a checkpoint: the snapshot's MANIFEST
// (ParseSnapshotManifest, frontier/snapshot.h) and the Sieve's own state file
// with its RAM queue (frontier/internal/snapshot.h). The MANIFEST ends in a
// checksum line, so the input is also tried with that line recomputed: the
// mutations then reach the line parser. Every name accepted must be one a
// reader may join to its directory (relative, no "." or ".." part, no empty
// part, no blanks).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "filter/durable_file.h"
#include "frontier/internal/snapshot.h"
#include "frontier/snapshot.h"

namespace {

void CheckManifest(std::string_view bytes) {
  absl::StatusOr<std::vector<sieve::ManifestEntry>> entries =
      sieve::ParseSnapshotManifest(bytes, "fuzz/MANIFEST");
  if (!entries.ok()) return;
  for (const sieve::ManifestEntry& e : *entries) {
    const std::string path = "/" + e.name + "/";
    if (e.name.empty() || e.name.front() == '/' ||
        path.find("/../") != std::string::npos ||
        path.find("/./") != std::string::npos ||
        path.find("//") != std::string::npos ||
        e.name.find_first_of(" \t\n\r\v\f") != std::string::npos) {
      std::abort();
    }
  }
}

// The input's lines before any "checksum " line, then the right checksum.
std::string WithChecksum(std::string_view input) {
  std::string body(input.substr(0, input.rfind("checksum ")));
  if (!body.empty() && body.back() != '\n') body += '\n';
  return body + absl::StrFormat("checksum %016x\n", sieve::Checksum64(body));
}

void CheckSieveState(std::string_view input) {
  // The state text runs to its "end" line; the RAM queue's bytes follow.
  const size_t end = input.find("end\n");
  const std::string_view text =
      end == std::string_view::npos ? input : input.substr(0, end + 4);
  absl::StatusOr<sieve::internal::SnapshotManifest> state =
      sieve::internal::DecodeManifest(text);
  if (!state.ok()) return;
  (void)sieve::internal::EncodeManifest(*state);
  absl::StatusOr<sieve::internal::RamQueue> queue =
      sieve::internal::DecodeRamQueue(input.substr(text.size()),
                                      state->head_records, state->tail_records);
  if (queue.ok() && (queue->head.size() != state->head_records ||
                     queue->tail.size() != state->tail_records)) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  CheckManifest(input);
  CheckManifest(WithChecksum(input));
  CheckSieveState(input);
  return 0;
}
