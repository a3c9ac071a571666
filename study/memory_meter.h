// study/memory_meter.h: how much memory a structure takes, counted two
// ways.
//
//   1. Its own count: what it allocated, tracked by CountingAllocator (for the
//   standard and Abseil
//      containers) or reported by the structure (Filter::MemoryBytes()).
//   2. The process's resident set growth (RSS, from /proc/self/statm) across
//   the build: what the
//      machine actually paid, including allocator overhead and page rounding.
//
// Surprises first:
//   - RSS growth is only meaningful when nothing else allocates meanwhile, and
//     after the previous structure's memory went back to the OS: call
//     ReleaseFreeMemory() before taking the baseline.
//   - Linux only (reads /proc); elsewhere ResidentBytes() returns 0.
//
// Example:
//   uint64_t counter = 0;
//   std::vector<int, CountingAllocator<int>> v(
//       CountingAllocator<int>(&counter));
//   v.resize(1000);  // counter == 4000
#ifndef SIEVE_STUDY_MEMORY_METER_H_
#define SIEVE_STUDY_MEMORY_METER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

namespace sieve::study {

// Resident set size of this process in bytes (0 when /proc is unavailable).
// Cost: one small read.
uint64_t ResidentBytes();

// Returns freed heap memory to the OS (glibc malloc_trim), so the next RSS
// baseline is honest.
void ReleaseFreeMemory();

// The bytes malloc really hands out for a request of `size` bytes (glibc:
// 16-byte chunks with an 8-byte header, minimum 32). Used to count string heap
// buffers the way the allocator pays them.
uint64_t MallocChunkBytes(uint64_t size);

// A std::allocator that adds every allocation's size (rounded as malloc rounds
// it) to `*counter` and subtracts it on deallocation. Stateful: copies share
// the counter.
template <typename T>
class CountingAllocator {
 public:
  using value_type = T;

  explicit CountingAllocator(uint64_t* counter) : counter_(counter) {}
  template <typename U>
  CountingAllocator(const CountingAllocator<U>& other)
      : counter_(other.counter()) {}  // NOLINT

  T* allocate(size_t count) {
    *counter_ += MallocChunkBytes(count * sizeof(T));
    return std::allocator<T>().allocate(count);
  }
  void deallocate(T* pointer, size_t count) {
    *counter_ -= MallocChunkBytes(count * sizeof(T));
    std::allocator<T>().deallocate(pointer, count);
  }

  uint64_t* counter() const { return counter_; }

  template <typename U>
  bool operator==(const CountingAllocator<U>& other) const {
    return counter_ == other.counter();
  }

 private:
  uint64_t* counter_;
};

}  // namespace sieve::study

#endif  // SIEVE_STUDY_MEMORY_METER_H_
