#include "filter/internal/file_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace sieve::filter_internal {
namespace {

absl::Status ErrnoError(const char* what, const std::string& path, int error) {
  std::string message =
      absl::StrCat(what, " ", path, ": ", std::strerror(error));
  if (error == ENOENT) return absl::NotFoundError(message);
  if (error == EACCES || error == EPERM)
    return absl::PermissionDeniedError(message);
  return absl::InternalError(message);
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int Release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

}  // namespace

absl::Status WriteFileAtomically(const std::string& path,
                                 absl::FunctionRef<void(ByteSink)> write) {
  const std::string tmp = path + ".tmp";
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return ErrnoError("cannot create", tmp, errno);
  int error = 0;  // first write error; later writes are skipped
  write([&](std::string_view bytes) {
    while (error == 0 && !bytes.empty()) {
      const ssize_t n = ::write(fd.get(), bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error = errno;
        break;
      }
      bytes.remove_prefix(static_cast<size_t>(n));
    }
  });
  if (error == 0 && ::fsync(fd.get()) != 0) error = errno;
  if (error == 0 && ::close(fd.Release()) != 0) error = errno;
  if (error == 0 && std::rename(tmp.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(tmp.c_str());
    return ErrnoError("cannot write filter file", path, error);
  }
  return absl::OkStatus();
}

absl::StatusOr<FileBytes> ReadWholeFile(const std::string& path,
                                        bool memory_map) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot open filter file", path, errno);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0)
    return ErrnoError("cannot stat", path, errno);
  const size_t size = static_cast<size_t>(st.st_size);
  FileBytes file;
  if (size == 0) return file;
  if (memory_map) {
    // MAP_PRIVATE: pages load on first touch and writes (Add) stay private to
    // this process.
    void* base =
        ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd.get(), 0);
    if (base == MAP_FAILED) return ErrnoError("cannot mmap", path, errno);
    file.owner =
        std::shared_ptr<void>(base, [size](void* p) { ::munmap(p, size); });
    file.bytes = std::string_view(static_cast<const char*>(base), size);
    return file;
  }
  constexpr size_t kAlign = 64;
  void* raw = std::malloc(size + kAlign);
  if (raw == nullptr)
    return absl::ResourceExhaustedError(absl::StrCat("cannot read ", path));
  file.owner = std::shared_ptr<void>(raw, [](void* p) { std::free(p); });
  char* data = reinterpret_cast<char*>(
      (reinterpret_cast<uintptr_t>(raw) + kAlign - 1) & ~uintptr_t{kAlign - 1});
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd.get(), data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("cannot read", path, errno);
    if (n == 0) break;  // file shrank under us: decoding reports truncation
    done += static_cast<size_t>(n);
  }
  file.bytes = std::string_view(data, done);
  return file;
}

}  // namespace sieve::filter_internal
