// crawler/cli/out_dir_lock.h: the lock that gives one `sieve crawl` an
// output directory to itself: an exclusive flock(2) on OUT/.lock, taken before
// anything in OUT is read or removed and held until the crawl ends. The file
// holds the holder's pid, so a second crawl can name it.
//
// Surprises first:
//   - flock locks belong to the open file: a second Acquire on the same
//     directory fails even in the same process, and the kernel drops the lock
//     when the holder exits, however it ends (kill -9 included), so a stale
//     OUT/.lock never blocks a resume.
//   - The directory is created when missing.
//
// Example:
//   absl::StatusOr<std::unique_ptr<sieve::OutDirLock>> lock =
//       sieve::OutDirLock::Acquire("crawl-out");
//   if (!lock.ok()) return lock.status();  // "... in use by pid 1234"
#ifndef SIEVE_CRAWLER_CLI_OUT_DIR_LOCK_H_
#define SIEVE_CRAWLER_CLI_OUT_DIR_LOCK_H_

#include <filesystem>
#include <memory>

#include "absl/status/statusor.h"

namespace sieve {

class OutDirLock {
 public:
  // Creates `dir` if needed and locks it. Unavailable naming the
  // holder's pid when another process (or another OutDirLock) holds it;
  // Internal when the directory or the lock file cannot be created. Cost: a
  // few system calls, never a wait.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<OutDirLock>> Acquire(
      const std::filesystem::path& dir);
  ~OutDirLock();  // Unlocks.
  OutDirLock(const OutDirLock&) = delete;
  OutDirLock& operator=(const OutDirLock&) = delete;

  const std::filesystem::path& dir() const { return dir_; }

 private:
  OutDirLock(std::filesystem::path dir, int fd)
      : dir_(std::move(dir)), fd_(fd) {}
  std::filesystem::path dir_;  // The directory locked.
  int fd_ = -1;  // OUT/.lock, held open (the lock). Default: -1, none.
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CLI_OUT_DIR_LOCK_H_
