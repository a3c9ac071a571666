// filter/internal/word_array.h: the 64-bit words behind every filter, owned or
// borrowed from a memory-mapped file, with the plain and atomic bit operations
// the filters share.
#ifndef SIEVE_FILTER_INTERNAL_WORD_ARRAY_H_
#define SIEVE_FILTER_INTERNAL_WORD_ARRAY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>

#include "absl/status/statusor.h"

namespace sieve::filter_internal {

class WordArray {
 public:
  WordArray() = default;
  WordArray(WordArray&&) = default;
  WordArray& operator=(WordArray&&) = default;
  WordArray(const WordArray&) = delete;
  WordArray& operator=(const WordArray&) = delete;

  // `count` zeroed words, 64-byte aligned. ResourceExhausted when the memory is
  // not there.
  static absl::StatusOr<WordArray> Allocate(uint64_t count);
  // A copy of `words` (any alignment).
  static absl::StatusOr<WordArray> CopyOf(const char* bytes, uint64_t count);
  // Borrows `count` words at `words` (8-byte aligned), kept alive by `owner`
  // (e.g. a mapping).
  static WordArray Borrow(std::shared_ptr<void> owner, uint64_t* words,
                          uint64_t count);

  uint64_t* data() { return words_; }
  const uint64_t* data() const { return words_; }
  uint64_t size() const { return count_; }
  uint64_t bytes() const { return count_ * sizeof(uint64_t); }
  std::span<const uint64_t> span() const {
    return {words_, static_cast<size_t>(count_)};
  }

 private:
  std::shared_ptr<void> owner_;
  uint64_t* words_ = nullptr;
  uint64_t count_ = 0;
};

// Word loads and read-modify-writes; the atomic forms (relaxed, on 64-bit
// words) when `concurrent`.
inline uint64_t LoadWord(const uint64_t& word, bool concurrent) {
  if (concurrent)
    return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(word))
        .load(std::memory_order_relaxed);
  return word;
}

// Sets `mask` in `word`; returns true when every bit of `mask` was already set.
inline bool TestAndSetBits(uint64_t& word, uint64_t mask, bool concurrent) {
  uint64_t old;
  if (concurrent) {
    old = std::atomic_ref<uint64_t>(word).fetch_or(mask,
                                                   std::memory_order_relaxed);
  } else {
    old = word;
    word = old | mask;
  }
  return (old & mask) == mask;
}

inline void AddToCounter(uint64_t& counter, uint64_t delta, bool concurrent) {
  if (concurrent) {
    std::atomic_ref<uint64_t>(counter).fetch_add(delta,
                                                 std::memory_order_relaxed);
  } else {
    counter += delta;
  }
}

inline void Prefetch(const void* address, bool for_write) {
  if (for_write) {
    __builtin_prefetch(address, 1, 3);
  } else {
    __builtin_prefetch(address, 0, 3);
  }
}

}  // namespace sieve::filter_internal

#endif  // SIEVE_FILTER_INTERNAL_WORD_ARRAY_H_
