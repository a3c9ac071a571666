// SpillQueue::Lend: while a checkpoint writes the lent RAM records outside the
// Sieve's lock, the queue keeps serving in FIFO order and takes new records;
// EndLending puts back what is left, in order.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "frontier/internal/scratch_db.h"
#include "frontier/internal/spill_queue.h"
#include "gtest/gtest.h"
#include "tests/common/temp_dir.h"

namespace sieve::internal {
namespace {

namespace fs = std::filesystem;

class SpillQueueLendingTest : public ::testing::Test {
 protected:
  SpillQueue::StoreOpener Opener() {
    return [this]() -> absl::StatusOr<ScratchDb*> {
      if (store_ == nullptr) {
        absl::StatusOr<std::unique_ptr<ScratchDb>> db =
            ScratchDb::Open(dir_, /*seed=*/{});
        if (!db.ok()) return db.status();
        store_ = *std::move(db);
      }
      return store_.get();
    };
  }
  const test::ScopedTempDir scratch_;
  const fs::path dir_ = scratch_ / "store";
  std::unique_ptr<ScratchDb> store_;  // Closed before scratch_ is removed.
};

std::string Record(int i) { return absl::StrCat("record-", i); }

TEST_F(SpillQueueLendingTest, ServesInOrderWhileLentAndAfterwards) {
  // A budget of a few dozen records, so the queue has head, disk and tail.
  SpillQueue queue(4096, Opener());
  int pushed = 0;
  int popped = 0;
  for (; pushed < 300; ++pushed) queue.Push(Record(pushed));
  for (; popped < 20; ++popped) ASSERT_EQ(queue.Pop(), Record(popped));
  ASSERT_GT(queue.disk_count(), 0u);
  const uint64_t size_before = queue.size();

  SpillQueue::Lent lent = queue.Lend();
  EXPECT_EQ(queue.size(), size_before);
  const std::deque<std::string> head_copy = *lent.head;
  const std::deque<std::string> tail_copy = *lent.tail;
  // Pop through everything (lent head, disk, lent tail) and push meanwhile.
  for (int round = 0; round < 400; ++round) {
    if (round % 3 == 0) queue.Push(Record(pushed++));
    std::optional<std::string> next = queue.Pop();
    if (!next.has_value()) break;
    ASSERT_EQ(*next, Record(popped)) << "round " << round;
    ++popped;
  }
  // The lent records did not change under the reader.
  EXPECT_EQ(*lent.head, head_copy);
  EXPECT_EQ(*lent.tail, tail_copy);
  lent = {};
  queue.EndLending();
  for (; pushed < 600; ++pushed) queue.Push(Record(pushed));
  while (std::optional<std::string> next = queue.Pop()) {
    ASSERT_EQ(*next, Record(popped));
    ++popped;
  }
  EXPECT_EQ(popped, pushed);
  EXPECT_TRUE(queue.status().ok()) << queue.status();
}

TEST_F(SpillQueueLendingTest, EndLendingKeepsWhatWasNotPopped) {
  SpillQueue queue(4096, Opener());
  for (int i = 0; i < 200; ++i) queue.Push(Record(i));
  SpillQueue::Lent lent = queue.Lend();
  ASSERT_EQ(queue.Pop(), Record(0));
  queue.Push(Record(200));
  lent = {};
  queue.EndLending();
  EXPECT_EQ(queue.size(), 200u);
  for (int i = 1; i <= 200; ++i) ASSERT_EQ(queue.Pop(), Record(i));
  EXPECT_EQ(queue.Pop(), std::nullopt);
}

}  // namespace
}  // namespace sieve::internal
