#include "filter/bloom_filter.h"

#include "gtest/gtest.h"

namespace sieve {
namespace {

TEST(BloomFilterTest, AddReportsFreshOnlyTheFirstTime) {
  BloomFilter f = BloomFilter::ForCapacity(1000, 0.01);
  EXPECT_FALSE(f.MayContain("http://a/"));
  EXPECT_TRUE(f.Add("http://a/"));
  EXPECT_FALSE(f.Add("http://a/"));
  EXPECT_TRUE(f.MayContain("http://a/"));
}

TEST(BloomFilterTest, SerializeRoundTripsThroughTheFactory) {
  BloomFilter f = BloomFilter::ForCapacity(1000, 0.01);
  for (int i = 0; i < 500; ++i) f.Add("k" + std::to_string(i));
  absl::StatusOr<BloomFilter> g = BloomFilter::Deserialize(f.Serialize());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->Serialize(), f.Serialize());
  absl::StatusOr<std::unique_ptr<Filter>> h = DeserializeFilter(f.Serialize());
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ((*h)->kind(), FilterKind::kClassic);
  for (int i = 0; i < 500; ++i)
    EXPECT_TRUE((*h)->MayContain("k" + std::to_string(i)));
}

TEST(BloomFilterTest, CreateFilterRejectsBadOptions) {
  EXPECT_FALSE(CreateFilter({.capacity = 0}).ok());
  EXPECT_FALSE(CreateFilter({.fp_rate = 1.0}).ok());
  EXPECT_TRUE(CreateFilter({.kind = FilterKind::kClassic}).ok());
}

}  // namespace
}  // namespace sieve
