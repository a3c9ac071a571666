#include "parse/parse_arena.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace sieve {
namespace {

// malloc's alignment on x86-64 and aarch64 glibc (alignof(max_align_t)).
constexpr size_t kAlign = alignof(std::max_align_t);

constexpr size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

ParseArena::ParseArena(const Options& options) : options_(options) {
  static_assert(sizeof(Header) % kAlign == 0,
                "the header must keep malloc's alignment");
  if (options_.use_malloc || options_.max_bytes == 0) return;
  options_.max_bytes = RoundUp(options_.max_bytes, 4096);
  // Address space only: MAP_NORESERVE commits nothing until a page is touched.
  void* range = mmap(nullptr, options_.max_bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (range == MAP_FAILED) return;  // malloc for every block, still correct
  begin_ = static_cast<char*>(range);
  end_ = begin_ + options_.max_bytes;
  top_ = high_ = begin_;
}

ParseArena::~ParseArena() {
  Reset();
  if (begin_ != nullptr) munmap(begin_, options_.max_bytes);
}

void* ParseArena::Allocate(size_t size) {
  const size_t rounded = RoundUp(std::max<size_t>(size, 1), kAlign);
  if (rounded <= static_cast<size_t>(end_ - top_)) {
    last_ = top_;
    top_ += rounded;
    return last_;
  }
  return MallocBlock(size);
}

void ParseArena::Deallocate(void* ptr) {
  if (ptr == nullptr) return;
  char* p = static_cast<char*>(ptr);
  if (p >= begin_ && p < end_) {
    if (p == last_) {  // the last block: give it back at once
      high_ = std::max(high_, top_);
      top_ = last_;
    }
    return;
  }
  FreeBlock(ptr);
}

void ParseArena::Reset() {
  last_page_bytes_ = arena_bytes() + malloc_bytes_;
  Header* block = head_.next;
  while (block != &head_) {
    Header* next = block->next;
    std::free(block);
    block = next;
  }
  head_.next = head_.prev = &head_;
  malloc_bytes_ = 0;
  if (begin_ == nullptr) return;
  high_ = std::max(high_, top_);
  const size_t keep = RoundUp(options_.keep_bytes, 4096);
  if (static_cast<size_t>(high_ - begin_) > keep) {
    // Returns the pages past keep_bytes to the kernel; they read as zero (and
    // cost a page fault) when touched again.
    madvise(begin_ + keep, static_cast<size_t>(high_ - begin_) - keep,
            MADV_DONTNEED);
    high_ = begin_ + keep;
  }
  top_ = begin_;
  last_ = nullptr;
}

void* ParseArena::MallocBlock(size_t size) {
  auto* header = static_cast<Header*>(std::malloc(sizeof(Header) + size));
  if (header == nullptr) std::abort();  // gumbo does not check either
  header->prev = &head_;
  header->next = head_.next;
  header->size = size;
  head_.next->prev = header;
  head_.next = header;
  malloc_bytes_ += size;
  return header + 1;
}

void ParseArena::FreeBlock(void* ptr) {
  Header* header = static_cast<Header*>(ptr) - 1;
  header->prev->next = header->next;
  header->next->prev = header->prev;
  malloc_bytes_ -= header->size;
  std::free(header);
}

}  // namespace sieve
