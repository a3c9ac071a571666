#include "filter/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xxhash.h"

namespace sieve {
namespace fs = std::filesystem;
namespace {

absl::Status WriteAll(int fd, std::string_view bytes, const fs::path& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return FileError("write", path, errno);
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::Status SyncPath(const fs::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return FileError("open", path, errno);
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (rc != 0) return FileError("fsync", path, error);
  return absl::OkStatus();
}

}  // namespace

absl::Status FileError(std::string_view what, const fs::path& path, int error) {
  std::string message = absl::StrCat(std::string(what), " ", path.string(),
                                     ": ", std::strerror(error));
  switch (error) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    case ENOSPC:
    case EFBIG:
    case EDQUOT:
      return absl::ResourceExhaustedError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::StatusOr<std::unique_ptr<AtomicFileWriter>> AtomicFileWriter::Open(
    const fs::path& path) {
  fs::path tmp = path;
  tmp += ".tmp";
  const int fd =
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return FileError("create", tmp, errno);
  return std::unique_ptr<AtomicFileWriter>(
      new AtomicFileWriter(path, std::move(tmp), fd));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(tmp_.c_str());
}

absl::Status AtomicFileWriter::Append(std::string_view bytes) {
  if (fd_ < 0) return absl::FailedPreconditionError("file already committed");
  return WriteAll(fd_, bytes, tmp_);
}

absl::Status AtomicFileWriter::Commit() {
  if (fd_ < 0) return absl::FailedPreconditionError("file already committed");
  if (::fsync(fd_) != 0) return FileError("fsync", tmp_, errno);
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) return FileError("close", tmp_, errno);
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    return FileError("rename", tmp_, errno);
  }
  committed_ = true;
  fs::path dir = path_.parent_path();
  return SyncDirectory(dir.empty() ? fs::path(".") : dir);
}

absl::Status WriteFileAtomically(const fs::path& path, std::string_view bytes) {
  absl::StatusOr<std::unique_ptr<AtomicFileWriter>> writer =
      AtomicFileWriter::Open(path);
  if (!writer.ok()) return writer.status();
  if (absl::Status s = (*writer)->Append(bytes); !s.ok()) return s;
  return (*writer)->Commit();
}

absl::Status WriteFileAtomically(
    const fs::path& path,
    absl::FunctionRef<void(absl::FunctionRef<void(std::string_view)>)> write) {
  absl::StatusOr<std::unique_ptr<AtomicFileWriter>> writer =
      AtomicFileWriter::Open(path);
  if (!writer.ok()) return writer.status();
  absl::Status status;
  write([&](std::string_view piece) {
    if (status.ok()) status = (*writer)->Append(piece);
  });
  if (!status.ok()) return status;
  return (*writer)->Commit();
}

absl::Status WriteFileAndSync(const fs::path& path, std::string_view bytes) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return FileError("create", path, errno);
  absl::Status s = WriteAll(fd, bytes, path);
  if (s.ok() && ::fsync(fd) != 0) s = FileError("fsync", path, errno);
  if (::close(fd) != 0 && s.ok()) s = FileError("close", path, errno);
  return s;
}

absl::StatusOr<std::string> ReadWholeFile(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return FileError("open", path, errno);
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      return FileError("read", path, error);
    }
    if (n == 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

absl::Status SyncDirectory(const fs::path& dir) {
  return SyncPath(dir, O_RDONLY | O_DIRECTORY);
}

absl::Status SyncTree(const fs::path& root) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_regular_file(st)) {
      if (absl::Status s = SyncPath(it->path(), O_RDONLY); !s.ok()) return s;
    } else if (fs::is_directory(st)) {
      if (absl::Status s = SyncDirectory(it->path()); !s.ok()) return s;
    }
  }
  if (ec) {
    return absl::InternalError(
        absl::StrCat("list ", root.string(), ": ", ec.message()));
  }
  return SyncDirectory(root);
}

uint64_t Checksum64(std::string_view bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

absl::StatusOr<uint64_t> FileChecksum64(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return FileError("open", path, errno);
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  std::vector<char> buffer(size_t{1} << 20);
  absl::Status status;
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      status = FileError("read", path, errno);
      break;
    }
    if (n == 0) break;
    XXH3_64bits_update(state, buffer.data(), static_cast<size_t>(n));
  }
  const uint64_t digest = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  ::close(fd);
  if (!status.ok()) return status;
  return digest;
}

}  // namespace sieve
