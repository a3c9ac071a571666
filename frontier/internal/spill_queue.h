// frontier/internal/spill_queue.h: a FIFO of encoded records
// (frontier/internal/record.h) that keeps at most about `budget` bytes in RAM
// and the rest in RocksDB, in order.
//
// Three segments, oldest first:
//   head (RAM) | disk [disk_begin, disk_end) | tail (RAM)
// Push appends to the tail. When the tail reaches half the budget it moves:
// into the head if head and disk are empty, else to disk in one WriteBatch
// (keys disk_end, disk_end+1, ...). Pop takes from the head; an empty head is
// refilled with up to half the budget read from disk (then deleted with one
// DeleteRange), or, with the disk empty, takes the whole tail. So RAM holds
// head (<= budget/2) + tail (< budget/2 + one record), and every disk write
// or read moves about half the budget at once.
//
// Not thread-safe: the Sieve serialises calls. The store is opened through
// `open_store` on the first spill only; a queue that never outgrows its
// budget never touches disk. On a store error the queue stops spilling and
// keeps records in RAM past the budget (status() reports it).
#ifndef SIEVE_FRONTIER_INTERNAL_SPILL_QUEUE_H_
#define SIEVE_FRONTIER_INTERNAL_SPILL_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "frontier/internal/scratch_db.h"

namespace sieve::internal {

class SpillQueue {
 public:
  using StoreOpener = std::function<absl::StatusOr<ScratchDb*>()>;
  // Sequence number of the first disk record of an empty queue; records
  // restored in front of the disk segment take the numbers below it.
  static constexpr uint64_t kFirstSequence = uint64_t{1} << 62;

  SpillQueue(size_t budget_bytes, StoreOpener open_store);

  void Push(std::string record);
  std::optional<std::string> Pop();

  uint64_t size() const {
    return LentLeft(lent_head_, lent_head_pos_) + head_.size() + disk_count() +
           LentLeft(lent_tail_, lent_tail_pos_) + tail_.size();
  }
  uint64_t disk_count() const { return disk_end_ - disk_begin_; }
  uint64_t bytes_in_memory() const { return head_bytes_ + tail_bytes_; }
  uint64_t spilled() const { return spilled_; }
  const absl::Status& status() const { return status_; }

  // --- Snapshot support (Checkpoint/Restore) ---
  // The RAM records, lent to a checkpoint so it can write them without the
  // Sieve's lock: Lend moves the head and the tail out into deques that stay
  // unchanged until EndLending (O(1)). Meanwhile the queue serves the lent
  // records by copy, in order, appends new ones behind them and spills
  // nothing; EndLending puts back what is left (O(records popped or pushed
  // meanwhile)). REQUIRES: not lending already.
  struct Lent {
    std::shared_ptr<const std::deque<std::string>> head;
    std::shared_ptr<const std::deque<std::string>> tail;
  };
  Lent Lend();
  void EndLending();
  bool lending() const { return lent_head_ != nullptr; }
  uint64_t disk_begin() const { return disk_begin_; }
  uint64_t disk_end() const { return disk_end_; }
  // Rebuilds the state of a snapshot: `head` records, then the disk records
  // [disk_begin, disk_end) already in the store, then `tail` records. REQUIRES:
  // the queue is empty. Head records go to disk in front of the disk segment
  // when it is non-empty, so the budget holds.
  absl::Status Restore(std::vector<std::string> head, uint64_t disk_begin,
                       uint64_t disk_end, std::vector<std::string> tail,
                       uint64_t spilled);

 private:
  // Moves the tail to disk. Keeps it in RAM on error.
  void SpillTail();
  // Reads up to half the budget from the front of the disk segment into the
  // head.
  void RefillHead();
  ScratchDb* Store();
  static uint64_t LentLeft(const std::shared_ptr<std::deque<std::string>>& lent,
                           size_t pos) {
    return lent == nullptr ? 0 : lent->size() - pos;
  }
  // Pop while lending: lent head, head, disk, lent tail, tail.
  std::optional<std::string> PopLending();

  const size_t half_budget_;
  StoreOpener open_store_;
  ScratchDb* store_ = nullptr;
  std::deque<std::string> head_;
  std::deque<std::string> tail_;
  uint64_t head_bytes_ = 0;
  uint64_t tail_bytes_ = 0;
  uint64_t disk_begin_ = kFirstSequence;
  uint64_t disk_end_ = kFirstSequence;
  uint64_t spilled_ = 0;
  absl::Status status_;
  // While lending: the records lent (head and tail at Lend), and how many of
  // each have been popped since. Counted in head_bytes_ and tail_bytes_.
  std::shared_ptr<std::deque<std::string>> lent_head_;
  std::shared_ptr<std::deque<std::string>> lent_tail_;
  size_t lent_head_pos_ = 0;
  size_t lent_tail_pos_ = 0;
};

}  // namespace sieve::internal

#endif  // SIEVE_FRONTIER_INTERNAL_SPILL_QUEUE_H_
