#include "filter/internal/word_array.h"

#include <sys/mman.h>

#include <bit>
#include <cstdlib>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"

namespace sieve::filter_internal {
namespace {

// Asks the kernel to back a large array with 2 MiB pages (transparent huge
// pages, which Debian enables for regions that ask with "madvise"). Every probe
// of a filter lands on a random page: with 4 KiB pages a multi-GB filter misses
// the TLB on almost every probe and pays a page walk on top of the cache miss.
// Advice only: where the kernel says no, the filter works the same, slower.
void AdviseHugePages(void* start, uint64_t bytes) {
  constexpr uint64_t kHugePage = uint64_t{2} << 20;
  if (bytes < 2 * kHugePage) return;
  constexpr uintptr_t kPage = 4096;
  const uintptr_t first =
      (reinterpret_cast<uintptr_t>(start) + kPage - 1) & ~(kPage - 1);
  const uintptr_t end =
      (reinterpret_cast<uintptr_t>(start) + bytes) & ~(kPage - 1);
  if (end > first) {
    ::madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
  }
}

}  // namespace

absl::StatusOr<WordArray> WordArray::Allocate(uint64_t count) {
  constexpr uint64_t kAlign = 64;
  const uint64_t bytes = count * sizeof(uint64_t);
  if (count > (uint64_t{1} << 60) / sizeof(uint64_t)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", count, " words"));
  }
  // calloc: large blocks come straight from fresh zero pages, so no memset
  // touches them.
  void* raw = std::calloc(static_cast<size_t>(bytes + kAlign), 1);
  if (raw == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("out of memory allocating a filter of ", bytes, " bytes"));
  }
  const uintptr_t aligned =
      (reinterpret_cast<uintptr_t>(raw) + kAlign - 1) & ~(kAlign - 1);
  AdviseHugePages(reinterpret_cast<void*>(aligned), bytes);
  WordArray array;
  array.owner_ = std::shared_ptr<void>(raw, [](void* p) { std::free(p); });
  array.words_ = reinterpret_cast<uint64_t*>(aligned);
  array.count_ = count;
  return array;
}

absl::StatusOr<WordArray> WordArray::CopyOf(const char* bytes, uint64_t count) {
  absl::StatusOr<WordArray> array = Allocate(count);
  if (!array.ok()) return array.status();
  if (count > 0) std::memcpy(array->words_, bytes, count * sizeof(uint64_t));
  return array;
}

WordArray WordArray::Borrow(std::shared_ptr<void> owner, uint64_t* words,
                            uint64_t count) {
  WordArray array;
  array.owner_ = std::move(owner);
  array.words_ = words;
  array.count_ = count;
  return array;
}

}  // namespace sieve::filter_internal
