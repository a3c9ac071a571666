// crawler/output/warc_recovery.h: bringing a crawl's WARC files back to the
// state a checkpoint recorded (WarcWriter::Sync), after a crash.
//
// A kill can leave the open file ending in a torn gzip member, and files
// opened after the checkpoint whose pages the resumed crawl fetches again.
// Recovery cuts every file back to its checkpointed length (a record
// boundary: Sync is only called between exchanges), rebuilds each one's
// CDXJ from the records left, so index and file agree, and removes the
// crawl's files the checkpoint does not name. The resumed crawl then opens a
// new file (WarcWriterOptions::first_serial = NextWarcSerial(states)).
//
// Example (on --resume):
//   absl::Status s = sieve::RecoverWarcDirectory(out / "warc",
//                                               checkpoint.warc_files);
#ifndef SIEVE_CRAWLER_OUTPUT_WARC_RECOVERY_H_
#define SIEVE_CRAWLER_OUTPUT_WARC_RECOVERY_H_

#include <cstdint>
#include <filesystem>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crawler/output/warc_writer.h"
#include "nlohmann/json_fwd.hpp"

namespace sieve {

// Cuts `warc` to `length` bytes (fsync'ed) and rewrites its CDXJ from the
// records left. DataLoss when the file is shorter than `length` or a record
// before it does not read (the file is then left as it was, its CDXJ
// untouched). Cost: inflates the first `length` bytes.
[[nodiscard]] absl::Status TruncateWarcFile(const std::filesystem::path& warc,
                                            int64_t length);

// TruncateWarcFile for each state, then removes every
// "sieve-*.warc.gz" (and its .cdxj) in `directory` that `states` does not
// name. A missing directory with no states is fine.
[[nodiscard]] absl::Status RecoverWarcDirectory(
    const std::filesystem::path& directory,
    const std::vector<WarcFileState>& states);

// The states as a checkpoint keeps them in its JSON:
//   [{"file":"sieve-...-00000.warc.gz","length":123456,"closed":true}, ...]
nlohmann::json WarcFileStatesToJson(const std::vector<WarcFileState>& states);

// Back from that JSON; InvalidArgument when it is not an array of such
// objects (a file name with '/' or not ending in ".warc.gz" included).
[[nodiscard]] absl::StatusOr<std::vector<WarcFileState>> WarcFileStatesFromJson(
    const nlohmann::json& json);

// The serial to give the next WarcWriter: one past the highest in the
// states' file names (0 for none).
int NextWarcSerial(const std::vector<WarcFileState>& states);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_OUTPUT_WARC_RECOVERY_H_
