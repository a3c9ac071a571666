#include "study/memory_meter.h"

#include <cstring>
#include <memory>
#include <vector>

#include "gtest/gtest.h"

namespace sieve::study {
namespace {

TEST(CountingAllocatorTest, CountsWhatTheContainerHoldsAndReturnsToZero) {
  uint64_t counter = 0;
  {
    std::vector<uint64_t, CountingAllocator<uint64_t>> v{
        CountingAllocator<uint64_t>(&counter)};
    v.reserve(1000);
    EXPECT_EQ(counter, MallocChunkBytes(8000));
  }
  EXPECT_EQ(counter, 0u);
}

TEST(MallocChunkBytesTest, RoundsLikeGlibc) {
  EXPECT_EQ(MallocChunkBytes(1), 32u);
  EXPECT_EQ(MallocChunkBytes(24), 32u);
  EXPECT_EQ(MallocChunkBytes(25), 48u);
  EXPECT_EQ(MallocChunkBytes(48), 64u);
  EXPECT_EQ(MallocChunkBytes(1 << 20), (1u << 20) + 4096u);
}

TEST(ResidentBytesTest, GrowsWhenPagesAreTouched) {
  const uint64_t before = ResidentBytes();
  ASSERT_GT(before, 0u);
  constexpr size_t kBytes = 64 << 20;
  std::unique_ptr<char[]> block(new char[kBytes]);
  std::memset(block.get(), 1, kBytes);
  const uint64_t after = ResidentBytes();
  EXPECT_GE(after - before, kBytes * 9 / 10);
  EXPECT_EQ(block[kBytes - 1], 1);
}

}  // namespace
}  // namespace sieve::study
