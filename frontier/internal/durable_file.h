// frontier/internal/durable_file.h: the few file operations a crash-safe
// snapshot needs: write and fsync a file, fsync a directory (so a rename in it
// survives a crash), fsync a whole tree.
#ifndef SIEVE_FRONTIER_INTERNAL_DURABLE_FILE_H_
#define SIEVE_FRONTIER_INTERNAL_DURABLE_FILE_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sieve::internal {

// Creates or truncates `path`, writes `bytes`, fsyncs the file.
absl::Status WriteFileAndSync(const std::filesystem::path& path,
                              std::string_view bytes);
absl::StatusOr<std::string> ReadWholeFile(const std::filesystem::path& path);
// fsyncs the directory itself (its entries: names created, renamed or removed
// in it).
absl::Status SyncDirectory(const std::filesystem::path& dir);
// fsyncs every regular file and directory under `root`, and `root`.
absl::Status SyncTree(const std::filesystem::path& root);

}  // namespace sieve::internal

#endif  // SIEVE_FRONTIER_INTERNAL_DURABLE_FILE_H_
