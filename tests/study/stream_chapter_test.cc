#include "study/stream_chapter.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace sieve::study {
namespace {

// The stretches come in exactly `points` per structure, each ending after
// the previous one and the last at `positions`, and every position counted
// once. (Before, the log spacing's rounding left the last point at
// positions - 1 and a one-item stretch after it: 2,000 positions at 5 points,
// and the study's 10^6 at 24.)
TEST(MeasureStreamTest, EndsWithOneStretchAtTheLastPosition) {
  struct Case {
    uint64_t positions;
    uint32_t points;
  };
  for (const Case c :
       {Case{2000, 5}, Case{2000, 24}, Case{5000, 11}, Case{30000, 24}}) {
    SCOPED_TRACE(testing::Message()
                 << c.positions << " positions, " << c.points << " points");
    absl::StatusOr<std::vector<StreamPoint>> points = MeasureStream(
        {.positions = c.positions, .window = 1000, .points = c.points},
        nullptr);
    ASSERT_TRUE(points.ok()) << points.status();
    for (const std::string structure : {"stable", "generational", "scalable"}) {
      std::vector<StreamPoint> mine;
      for (const StreamPoint& p : *points)
        if (p.structure == structure) mine.push_back(p);
      ASSERT_EQ(mine.size(), c.points) << structure;
      uint64_t previous = 0;
      for (const StreamPoint& p : mine) {
        EXPECT_GT(p.position, previous) << structure;
        EXPECT_EQ(p.fresh + p.repeats, p.position - previous) << structure;
        previous = p.position;
      }
      EXPECT_EQ(mine.back().position, c.positions) << structure;
      // The last stretch is a real one, not a single item.
      EXPECT_GT(mine.back().fresh + mine.back().repeats, 1u) << structure;
    }
  }
}

}  // namespace
}  // namespace sieve::study
