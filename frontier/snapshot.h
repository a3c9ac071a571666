// frontier/snapshot.h: one durable checkpoint of a crawl, as one directory with
// one manifest. Every part of the crawl's state (the frontier's queues and
// filter, the store's RocksDB files, the crawl loop's counters) is a file of
// the same snapshot, so there is one publication step and one format version.
//
// Layout under a checkpoint directory DIR:
//   DIR/CURRENT             "ckpt-000042\n": the snapshot to restore, replaced
//                           atomically (filter/durable_file.h)
//   DIR/ckpt-000042/
//     MANIFEST              "sieve-snapshot <version>", then one line per file:
//                           "file <bytes> <xxh3-64 hex> <relative path>", then
//                           "checksum <xxh3-64 hex of every line above>"
//     ...                   the files the writers added, any depth
// A snapshot is written under ckpt-N.tmp/, fsynced whole, renamed to ckpt-N/,
// and only then named by CURRENT; older snapshots are deleted after that. A
// crash at any moment leaves the previous snapshot complete and named.
//
// SnapshotReader::Open checks everything before the caller reads anything:
// CURRENT, the manifest's version and checksum, and every listed file's size
// and checksum; an error names the file and the problem. So a restore either
// starts from a snapshot exactly as written or does not start.
//
// Cost: Commit reads every file once to checksum it, except files that are
// hard links to a file already checksummed in an earlier snapshot of the same
// writer's SnapshotChecksumCache (RocksDB's table files, which never change).
//
// Example:
//   absl::StatusOr<sieve::SnapshotWriter> w =
//   sieve::SnapshotWriter::Begin(dir); if (!w.ok()) return w.status(); if
//   (absl::Status s = w->AddFile("crawl.state", bytes); !s.ok()) return s; if
//   (absl::Status s = frontier.Checkpoint(*w); !s.ok()) return s; if
//   (absl::Status s = w->Commit(); !s.ok()) return s;
//   ...
//   absl::StatusOr<sieve::SnapshotReader> r = sieve::SnapshotReader::Open(dir);
//   absl::StatusOr<std::string> state = r->ReadFile("crawl.state");
#ifndef SIEVE_FRONTIER_SNAPSHOT_H_
#define SIEVE_FRONTIER_SNAPSHOT_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "filter/durable_file.h"

namespace sieve {

// Bump when any file's encoding or the layout changes; readers refuse other
// versions.
inline constexpr uint32_t kSnapshotFormatVersion = 2;

// The one error of every saved format's reader for a version it does not
// read: FailedPrecondition "<what>: format N is too old (this build reads
// M)" for N < M, "... format N is newer than this build (it reads M)"
// otherwise. Example: FormatVersionError("frontier.state", 1, 2).
absl::Status FormatVersionError(std::string_view what, uint64_t found,
                                uint64_t reads);

// Checksums of files already read, keyed by (device, inode, size, mtime), so a
// file hard-linked into successive snapshots is read once. Not thread-safe.
class SnapshotChecksumCache {
 public:
  using Key = std::tuple<uint64_t, uint64_t, uint64_t, int64_t>;
  // Drops entries not used since the last call (files no snapshot links any
  // more), so the cache stays as large as one snapshot.
  void Trim();
  std::map<Key, std::pair<uint64_t, bool>>& entries() { return entries_; }

 private:
  std::map<Key, std::pair<uint64_t, bool>> entries_;  // checksum, used
};

class SnapshotWriter {
 public:
  // Starts the next snapshot under `dir` (created if missing): number
  // max(existing)+1, staged in ckpt-N.tmp/. A stale staging directory of a
  // crashed attempt is removed. `cache` may be null.
  [[nodiscard]] static absl::StatusOr<SnapshotWriter> Begin(
      const std::filesystem::path& dir, SnapshotChecksumCache* cache = nullptr);
  SnapshotWriter(SnapshotWriter&&) = default;
  SnapshotWriter& operator=(SnapshotWriter&&) = default;
  ~SnapshotWriter();  // Uncommitted: removes the staging directory.

  // Writes `bytes` as `name` (a relative path; directories are created) and
  // fsyncs it. InvalidArgument for an absolute name, "..", a blank, or a name
  // already added.
  [[nodiscard]] absl::Status AddFile(std::string_view name,
                                     std::string_view bytes);
  // The same for a file too large to hold in RAM: the caller appends to the
  // writer returned and commits it (filter/durable_file.h).
  [[nodiscard]] absl::StatusOr<std::unique_ptr<AtomicFileWriter>> CreateFile(
      std::string_view name);
  // The path where the caller will create directory `name` itself (e.g. a
  // RocksDB checkpoint); every file under it is listed at Commit. The parent
  // exists; `name` does not.
  [[nodiscard]] absl::StatusOr<std::filesystem::path> AddDirectory(
      std::string_view name);

  // Lists and checksums the files, writes MANIFEST, fsyncs the tree, renames
  // the snapshot into place, replaces CURRENT and removes older snapshots.
  [[nodiscard]] absl::Status Commit();

  uint64_t number() const { return number_; }

 private:
  SnapshotWriter() = default;
  // Checks `name`, records it and creates its parent directories; returns
  // where it goes.
  absl::StatusOr<std::filesystem::path> ReserveFile(std::string_view name);

  std::filesystem::path dir_;
  std::filesystem::path staging_;
  std::string name_;
  uint64_t number_ = 0;
  std::vector<std::string> names_;        // Files added with AddFile.
  std::vector<std::string> directories_;  // Directories from AddDirectory.
  SnapshotChecksumCache* cache_ = nullptr;
  bool done_ = false;
};

// One line of a MANIFEST: a file with its size and XXH3-64, or a directory
// (AddDirectory) whose files are listed on their own lines.
struct ManifestEntry {
  std::string name;  // Relative; no "..", no blanks.
  bool directory = false;
  uint64_t size = 0;
  uint64_t checksum = 0;
};

// Decodes a MANIFEST's bytes (layout in the file comment) without touching
// the files it lists: the checksum line, the magic, the format version and the
// form of every line. DataLoss naming `source` and the line for anything
// malformed; FailedPrecondition for another format version. Cost: O(|bytes|).
// SnapshotReader::Open calls it; the fuzz target frontier/fuzz/manifest_fuzzer
// feeds it arbitrary bytes.
//   absl::StatusOr<std::vector<sieve::ManifestEntry>> entries =
//       sieve::ParseSnapshotManifest(bytes, dir / "MANIFEST");
[[nodiscard]] absl::StatusOr<std::vector<ManifestEntry>> ParseSnapshotManifest(
    std::string_view bytes, const std::filesystem::path& source);

class SnapshotReader {
 public:
  // Verifies the snapshot CURRENT names in `dir` (see the file comment).
  // NotFound when `dir` holds no CURRENT; DataLoss naming the file for a
  // missing, truncated or altered file; FailedPrecondition for an unknown
  // format version.
  [[nodiscard]] static absl::StatusOr<SnapshotReader> Open(
      const std::filesystem::path& dir);

  bool Contains(std::string_view name) const;
  // A file the manifest lists. NotFound names it when it is not listed.
  [[nodiscard]] absl::StatusOr<std::string> ReadFile(
      std::string_view name) const;
  // Where `name` (a file or a directory added with AddDirectory) lies.
  std::filesystem::path PathOf(std::string_view name) const;
  uint64_t number() const { return number_; }

 private:
  std::filesystem::path root_;  // DIR/ckpt-N
  uint64_t number_ = 0;
  std::map<std::string, uint64_t, std::less<>> files_;  // name -> size
};

}  // namespace sieve

#endif  // SIEVE_FRONTIER_SNAPSHOT_H_
