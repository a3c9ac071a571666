// filter/durable_file.h: the one place Sieve makes files survive a crash.
// Every module that saves state (the filter's SaveToFile, the frontier's and
// the crawl's checkpoints, the crawl's config, summary.json, the CDXJ index)
// writes through these calls, so
// the write, fsync, rename, directory-fsync protocol exists once. It lives in
// filter/ because filter is the module every other one may depend on.
//
// Surprises first:
//   - A rename is only durable once the directory holding it is fsynced:
//     WriteFileAtomically and AtomicFileWriter::Commit do both.
//   - Errors name the path and the system's reason (e.g. "write
//     /out/pages.jsonl: File too large"); ENOSPC and EFBIG are
//     ResourceExhausted, so callers can tell a full disk from a bug.
//
// Example:
//   absl::Status s = sieve::WriteFileAtomically("/out/config.toml", text);
//   absl::StatusOr<std::string> back =
//   sieve::ReadWholeFile("/out/config.toml");
#ifndef SIEVE_FILTER_DURABLE_FILE_H_
#define SIEVE_FILTER_DURABLE_FILE_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sieve {

// Streams bytes into `path`.tmp; Commit fsyncs it, renames it over `path` and
// fsyncs the directory, so a crash at any moment leaves the old file or the
// new one. Destroyed uncommitted, it removes the temporary file.
class AtomicFileWriter {
 public:
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<AtomicFileWriter>> Open(
      const std::filesystem::path& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  // Cost: one write(2) per call (callers batch small pieces).
  [[nodiscard]] absl::Status Append(std::string_view bytes);
  [[nodiscard]] absl::Status Commit();

 private:
  AtomicFileWriter(std::filesystem::path path, std::filesystem::path tmp,
                   int fd)
      : path_(std::move(path)), tmp_(std::move(tmp)), fd_(fd) {}
  std::filesystem::path path_;
  std::filesystem::path tmp_;
  int fd_ = -1;
  bool committed_ = false;
};

// Replaces `path` with `bytes` atomically and durably (AtomicFileWriter).
[[nodiscard]] absl::Status WriteFileAtomically(
    const std::filesystem::path& path, std::string_view bytes);

// The same for bytes made piece by piece (a filter image too large to build
// in memory first): `write` is called once with a sink that appends each
// piece to the file. The first failed write is the error returned; the pieces
// after it are dropped.
[[nodiscard]] absl::Status WriteFileAtomically(
    const std::filesystem::path& path,
    absl::FunctionRef<void(absl::FunctionRef<void(std::string_view)>)> write);

// Creates or truncates `path`, writes `bytes`, fsyncs the file (not its
// directory: for files inside a directory that is itself published later).
[[nodiscard]] absl::Status WriteFileAndSync(const std::filesystem::path& path,
                                            std::string_view bytes);

// The whole file. NotFound when it does not exist.
[[nodiscard]] absl::StatusOr<std::string> ReadWholeFile(
    const std::filesystem::path& path);

// fsyncs the directory itself (names created, renamed or removed in it).
[[nodiscard]] absl::Status SyncDirectory(const std::filesystem::path& dir);
// fsyncs every regular file and directory under `root`, and `root`.
[[nodiscard]] absl::Status SyncTree(const std::filesystem::path& root);

// XXH3-64 of `bytes`, and of a whole file read in 1 MiB pieces (so a file of
// any size costs 1 MiB of RAM). The checksum of Sieve's saved files.
uint64_t Checksum64(std::string_view bytes);
[[nodiscard]] absl::StatusOr<uint64_t> FileChecksum64(
    const std::filesystem::path& path);

// An absl::Status for a failed system call on `path`, from errno `error`:
// NotFound, PermissionDenied, ResourceExhausted (ENOSPC, EFBIG, EDQUOT) or
// Internal, with the message "<what> <path>: <strerror>".
absl::Status FileError(std::string_view what, const std::filesystem::path& path,
                       int error);

}  // namespace sieve

#endif  // SIEVE_FILTER_DURABLE_FILE_H_
