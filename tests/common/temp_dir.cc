#include "tests/common/temp_dir.h"

#include <stdlib.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace sieve::test {
namespace {

std::string Sanitized(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
      c = '_';
  }
  return out;
}

}  // namespace

std::string CurrentTestName() {
  const ::testing::TestInfo* info =
      ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) return "";
  return Sanitized(absl::StrCat(info->test_suite_name(), ".", info->name()));
}

ScopedTempDir::ScopedTempDir(std::string_view name) {
  std::string prefix = name.empty() ? CurrentTestName() : Sanitized(name);
  if (prefix.empty()) prefix = "sieve";
  std::string templ = (std::filesystem::path(::testing::TempDir()) /
                       absl::StrCat(prefix, "-XXXXXX"))
                          .string();
  if (mkdtemp(templ.data()) == nullptr) {
    ADD_FAILURE() << "cannot make a scratch directory " << templ;
    return;
  }
  path_ = templ;
  owner_pid_ = ::getpid();
}

ScopedTempDir::~ScopedTempDir() {
  if (path_.empty() || owner_pid_ != ::getpid() ||
      std::getenv("SIEVE_KEEP_TEST_DIRS") != nullptr) {
    return;
  }
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

const std::filesystem::path& ProcessTempDir() {
  // Destroyed at exit, which removes it (in this process only).
  static const ScopedTempDir root("sieve-test");
  return root.path();
}

std::filesystem::path FreshDir(std::string_view name) {
  const std::filesystem::path dir = ProcessTempDir() / name;
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  std::filesystem::create_directories(dir, error);
  if (error) ADD_FAILURE() << "cannot make " << dir << ": " << error.message();
  return dir;
}

}  // namespace sieve::test
