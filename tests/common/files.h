// tests/common/files.h: whole files in and out, for tests.
//
// Example:
//   ASSERT_TRUE(sieve::test::WriteFile(dir / "robots.txt", "User-agent: *\n"));
//   EXPECT_THAT(sieve::test::ReadFile(dir / "log.txt"), HasSubstr("done"));
#ifndef SIEVE_TESTS_COMMON_FILES_H_
#define SIEVE_TESTS_COMMON_FILES_H_

#include <filesystem>
#include <string>
#include <string_view>

namespace sieve::test {

// The bytes of the file at `path`; "" when it is missing or unreadable (a test
// that must tell the two apart checks std::filesystem::exists first).
std::string ReadFile(const std::filesystem::path& path);

// Writes `bytes` as the whole file at `path` (made or truncated); false when
// it cannot.
bool WriteFile(const std::filesystem::path& path, std::string_view bytes);

}  // namespace sieve::test

#endif  // SIEVE_TESTS_COMMON_FILES_H_
