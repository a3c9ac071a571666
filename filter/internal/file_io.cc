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
#include "filter/durable_file.h"

namespace sieve::filter_internal {
namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

absl::StatusOr<FileBytes> ReadWholeFile(const std::string& path,
                                        bool memory_map) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return FileError("open filter file", path, errno);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return FileError("stat", path, errno);
  const size_t size = static_cast<size_t>(st.st_size);
  FileBytes file;
  if (size == 0) return file;
  if (memory_map) {
    // MAP_PRIVATE: pages load on first touch and writes (Add) stay private to
    // this process.
    void* base =
        ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd.get(), 0);
    if (base == MAP_FAILED) return FileError("mmap", path, errno);
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
    if (n < 0) return FileError("read", path, errno);
    if (n == 0) break;  // file shrank under us: decoding reports truncation
    done += static_cast<size_t>(n);
  }
  file.bytes = std::string_view(data, done);
  return file;
}

}  // namespace sieve::filter_internal
