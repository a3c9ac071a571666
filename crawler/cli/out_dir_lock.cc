#include "crawler/cli/out_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace sieve {

absl::StatusOr<std::unique_ptr<OutDirLock>> OutDirLock::Acquire(
    const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InternalError(absl::StrCat("cannot create output directory '",
                                            dir.string(), "': ", ec.message()));
  }
  const std::filesystem::path path = dir / ".lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("open ", path.string(), ": ", std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
    ::close(fd);
    if (error == EWOULDBLOCK) {
      std::string holder(buf, n > 0 ? static_cast<size_t>(n) : 0);
      return absl::UnavailableError(absl::StrCat(
          "'", dir.string(), "' is in use by another sieve crawl (pid ",
          holder.empty() ? "unknown" : absl::StripAsciiWhitespace(holder),
          "; lock file ", path.string(), ")"));
    }
    return absl::InternalError(
        absl::StrCat("flock ", path.string(), ": ", std::strerror(error)));
  }
  const std::string pid = absl::StrCat(::getpid(), "\n");
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) !=
                                     static_cast<ssize_t>(pid.size())) {
    const int error = errno;
    ::close(fd);
    return absl::InternalError(
        absl::StrCat("write ", path.string(), ": ", std::strerror(error)));
  }
  return std::unique_ptr<OutDirLock>(new OutDirLock(dir, fd));
}

OutDirLock::~OutDirLock() {
  if (fd_ >= 0) ::close(fd_);  // Closing the last descriptor unlocks.
}

}  // namespace sieve
