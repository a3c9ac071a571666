// The GoogleTest binary that skip_regex_check.cmake runs with a filter to see
// which outputs SIEVE_SKIP_REGEX (cmake/SieveHelpers.cmake) takes as skipped.
// Not a ctest test of its own: Fails fails on purpose.
#include "gtest/gtest.h"

TEST(SkipCheck, Skips) { GTEST_SKIP() << "skipped on purpose"; }
TEST(SkipCheck, SkipsToo) { GTEST_SKIP() << "skipped on purpose"; }
TEST(SkipCheck, Passes) { SUCCEED(); }
TEST(SkipCheck, Fails) { FAIL() << "fails on purpose"; }
