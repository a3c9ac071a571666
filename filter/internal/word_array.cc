#include "filter/internal/word_array.h"

#include <bit>
#include <cstdlib>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"

namespace sieve::filter_internal {

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
