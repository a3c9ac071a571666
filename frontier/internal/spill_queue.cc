#include "frontier/internal/spill_queue.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "frontier/internal/record.h"
#include "rocksdb/iterator.h"
#include "rocksdb/write_batch.h"

namespace sieve::internal {

SpillQueue::SpillQueue(size_t budget_bytes, StoreOpener open_store)
    : half_budget_(budget_bytes / 2), open_store_(std::move(open_store)) {}

ScratchDb* SpillQueue::Store() {
  if (store_ == nullptr && status_.ok()) {
    absl::StatusOr<ScratchDb*> opened = open_store_();
    if (opened.ok()) {
      store_ = *opened;
    } else {
      status_ = opened.status();
    }
  }
  return store_;
}

void SpillQueue::Push(std::string record) {
  tail_bytes_ += RecordCost(record);
  tail_.push_back(std::move(record));
  // While a checkpoint holds the lent records nothing moves: the pushes of
  // those few seconds stay in RAM, past the budget if need be.
  if (tail_bytes_ < half_budget_ || lending()) return;
  if (head_.empty() && disk_count() == 0) {
    head_.swap(tail_);
    head_bytes_ = tail_bytes_;
    tail_bytes_ = 0;
    return;
  }
  SpillTail();
}

void SpillQueue::SpillTail() {
  ScratchDb* store = Store();
  if (store == nullptr) return;  // Error recorded: keep the tail in RAM.
  rocksdb::WriteBatch batch;
  uint64_t sequence = disk_end_;
  for (const std::string& record : tail_) {
    batch.Put(store->queue_cf(), BigEndianKey(sequence++), record);
  }
  rocksdb::Status s = store->db()->Write(store->write_options(), &batch);
  if (!s.ok()) {
    status_ = FromRocks(s, "spilling the queue");
    return;
  }
  spilled_ += tail_.size();
  disk_end_ = sequence;
  tail_.clear();
  tail_bytes_ = 0;
}

void SpillQueue::RefillHead() {
  ScratchDb* store = Store();
  if (store == nullptr) return;
  const std::string begin_key = BigEndianKey(disk_begin_);
  const std::string end_key = BigEndianKey(disk_end_);
  const rocksdb::Slice upper_bound(end_key);
  rocksdb::ReadOptions read_options;
  read_options.iterate_upper_bound = &upper_bound;
  read_options.fill_cache = false;  // Each record is read once.
  std::unique_ptr<rocksdb::Iterator> it(
      store->db()->NewIterator(read_options, store->queue_cf()));
  uint64_t next = disk_begin_;
  for (it->Seek(begin_key);
       it->Valid() && (head_bytes_ < half_budget_ || head_.empty());
       it->Next()) {
    if (ParseBigEndianKey(it->key()) != next) {
      status_ = absl::DataLossError(
          absl::StrCat("spilled queue record ", next, " missing"));
      break;
    }
    head_.push_back(it->value().ToString());
    head_bytes_ += RecordCost(head_.back());
    ++next;
  }
  if (status_.ok() && !it->status().ok())
    status_ = FromRocks(it->status(), "reading the queue");
  it.reset();
  if (!status_.ok()) {
    // The disk segment cannot be read in order: give up on it rather than loop
    // forever.
    disk_begin_ = disk_end_;
    return;
  }
  rocksdb::Status s = store->db()->DeleteRange(
      store->write_options(), store->queue_cf(), begin_key, BigEndianKey(next));
  if (!s.ok()) status_ = FromRocks(s, "deleting read queue records");
  disk_begin_ = next;
}

std::optional<std::string> SpillQueue::Pop() {
  if (lending()) return PopLending();
  if (head_.empty()) {
    if (disk_count() > 0) {
      RefillHead();
    } else {
      head_.swap(tail_);
      head_bytes_ = tail_bytes_;
      tail_bytes_ = 0;
    }
    if (head_.empty() && !tail_.empty()) {  // Only after a disk error.
      head_.swap(tail_);
      head_bytes_ = tail_bytes_;
      tail_bytes_ = 0;
    }
    if (head_.empty()) return std::nullopt;
  }
  std::string record = std::move(head_.front());
  head_.pop_front();
  head_bytes_ -= RecordCost(record);
  return record;
}

std::optional<std::string> SpillQueue::PopLending() {
  std::string record;
  if (lent_head_pos_ < lent_head_->size()) {
    record = (*lent_head_)[lent_head_pos_++];  // A copy: the original is lent.
    head_bytes_ -= RecordCost(record);
    return record;
  }
  if (head_.empty() && disk_count() > 0) RefillHead();
  if (!head_.empty()) {
    record = std::move(head_.front());
    head_.pop_front();
    head_bytes_ -= RecordCost(record);
    return record;
  }
  if (lent_tail_pos_ < lent_tail_->size()) {
    record = (*lent_tail_)[lent_tail_pos_++];
    tail_bytes_ -= RecordCost(record);
    return record;
  }
  if (tail_.empty()) return std::nullopt;
  record = std::move(tail_.front());
  tail_.pop_front();
  tail_bytes_ -= RecordCost(record);
  return record;
}

SpillQueue::Lent SpillQueue::Lend() {
  lent_head_ = std::make_shared<std::deque<std::string>>(std::move(head_));
  lent_tail_ = std::make_shared<std::deque<std::string>>(std::move(tail_));
  head_.clear();
  tail_.clear();
  lent_head_pos_ = 0;
  lent_tail_pos_ = 0;
  return Lent{.head = lent_head_, .tail = lent_tail_};
}

void SpillQueue::EndLending() {
  if (!lending()) return;
  // What is left of the lent head comes before what was refilled meanwhile;
  // what is left of the lent tail before what was pushed meanwhile. The
  // checkpoint has let go of its references by now, so moving is safe.
  std::deque<std::string> head = std::move(*lent_head_);
  head.erase(head.begin(),
             head.begin() + static_cast<ptrdiff_t>(lent_head_pos_));
  for (std::string& r : head_) head.push_back(std::move(r));
  head_.swap(head);
  std::deque<std::string> tail = std::move(*lent_tail_);
  tail.erase(tail.begin(),
             tail.begin() + static_cast<ptrdiff_t>(lent_tail_pos_));
  for (std::string& r : tail_) tail.push_back(std::move(r));
  tail_.swap(tail);
  lent_head_.reset();
  lent_tail_.reset();
  lent_head_pos_ = 0;
  lent_tail_pos_ = 0;
}

absl::Status SpillQueue::Restore(std::vector<std::string> head,
                                 uint64_t disk_begin, uint64_t disk_end,
                                 std::vector<std::string> tail,
                                 uint64_t spilled) {
  spilled_ = spilled;
  disk_begin_ = disk_begin;
  disk_end_ = disk_end;
  if (disk_count() > 0 && !head.empty()) {
    // Put the head in front of the disk segment rather than over the budget in
    // RAM.
    ScratchDb* store = Store();
    if (store == nullptr) return status_;
    rocksdb::WriteBatch batch;
    uint64_t sequence = disk_begin_ - head.size();
    for (const std::string& record : head) {
      batch.Put(store->queue_cf(), BigEndianKey(sequence++), record);
    }
    absl::Status s =
        FromRocks(store->db()->Write(store->write_options(), &batch),
                  "restoring the queue head");
    if (!s.ok()) return s;
    disk_begin_ -= head.size();
  } else {
    for (std::string& record : head) Push(std::move(record));
  }
  for (std::string& record : tail) Push(std::move(record));
  return status_;
}

}  // namespace sieve::internal
