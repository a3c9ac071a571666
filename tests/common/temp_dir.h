// tests/common/temp_dir.h: a scratch directory that belongs to one test.
//
// ScopedTempDir makes a new, empty directory with a name no other test or
// process has (mkdtemp) under GoogleTest's temp dir ($TEST_TMPDIR, else /tmp),
// and removes it with all it holds when it goes out of scope. Set
// SIEVE_KEEP_TEST_DIRS=1 to keep the directories and look at them.
//
// Example:
//   sieve::test::ScopedTempDir dir("checkpoint");
//   ASSERT_TRUE(frontier->Checkpoint(dir / "ckpt").ok());
//   FastConfig(dir);  // converts to const std::filesystem::path&
//
// Not thread-safe per object; separate objects are independent. The
// constructor fails the test (ADD_FAILURE) when the directory cannot be made.
#ifndef SIEVE_TESTS_COMMON_TEMP_DIR_H_
#define SIEVE_TESTS_COMMON_TEMP_DIR_H_

#include <filesystem>
#include <string>
#include <string_view>

namespace sieve::test {

class ScopedTempDir {
 public:
  // `name` starts the directory's name (letters, digits, '-', '_' kept; the
  // rest become '_'), to tell the directories apart when they are kept.
  // Default: the running test's name.
  explicit ScopedTempDir(std::string_view name = "");
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string string() const { return path_.string(); }
  operator const std::filesystem::path&() const { return path_; }
  std::filesystem::path operator/(const std::filesystem::path& rest) const {
    return path_ / rest;
  }

 private:
  std::filesystem::path path_;
  int owner_pid_ = 0;  // The process that made it, the one to remove it.
};

// A fresh, empty directory `name` (it may hold '/') under this process's own
// scratch root, a ScopedTempDir made on first use and removed when the process
// exits. For a directory that must outlive a scope: a suite's shared fixture,
// a helper that returns a path, a server restarted on the same data. Calling
// it again with the same name empties the directory.
std::filesystem::path FreshDir(std::string_view name);

// That scratch root (made on first use).
const std::filesystem::path& ProcessTempDir();

// The running test's "Suite.Name" with every character but letters, digits,
// '-' and '_' made '_' ("" outside a test).
std::string CurrentTestName();

}  // namespace sieve::test

#endif  // SIEVE_TESTS_COMMON_TEMP_DIR_H_
