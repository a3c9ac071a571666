#include "frontier/internal/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace sieve::internal {
namespace fs = std::filesystem;
namespace {

absl::Status ErrnoError(std::string_view what, const fs::path& path) {
  return absl::InternalError(absl::StrCat(std::string(what), " ", path.string(),
                                          ": ", std::strerror(errno)));
}

absl::Status SyncPath(const fs::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return ErrnoError("open", path);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return ErrnoError("fsync", path);
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFileAndSync(const fs::path& path, std::string_view bytes) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("create", path);
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      absl::Status s = ErrnoError("write", path);
      ::close(fd);
      return s;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  if (::fsync(fd) != 0) {
    absl::Status s = ErrnoError("fsync", path);
    ::close(fd);
    return s;
  }
  if (::close(fd) != 0) return ErrnoError("close", path);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadWholeFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(absl::StrCat("cannot open ", path.string()));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad())
    return absl::DataLossError(absl::StrCat("cannot read ", path.string()));
  return std::move(bytes).str();
}

absl::Status SyncDirectory(const fs::path& dir) {
  return SyncPath(dir, O_RDONLY | O_DIRECTORY);
}

absl::Status SyncTree(const fs::path& root) {
  std::error_code ec;
  for (const fs::directory_entry& entry :
       fs::recursive_directory_iterator(root, ec)) {
    absl::Status s = entry.is_directory(ec) ? SyncDirectory(entry.path())
                                            : SyncPath(entry.path(), O_RDONLY);
    if (!s.ok()) return s;
  }
  if (ec)
    return absl::InternalError(
        absl::StrCat("listing ", root.string(), ": ", ec.message()));
  return SyncDirectory(root);
}

}  // namespace sieve::internal
