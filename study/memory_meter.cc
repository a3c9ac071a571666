#include "study/memory_meter.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdio>

namespace sieve::study {

uint64_t ResidentBytes() {
  // /proc/self/statm: size resident shared text lib data dt, in pages
  // (proc(5)).
  std::FILE* file = std::fopen("/proc/self/statm", "r");
  if (file == nullptr) return 0;
  unsigned long long size_pages = 0;
  unsigned long long resident_pages = 0;
  const int read = std::fscanf(file, "%llu %llu", &size_pages, &resident_pages);
  std::fclose(file);
  if (read != 2) return 0;
  return resident_pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

void ReleaseFreeMemory() { malloc_trim(0); }

uint64_t MallocChunkBytes(uint64_t size) {
  // glibc malloc: chunk = request + 8-byte size header, rounded up to 16, at
  // least 32 bytes. Requests past the mmap threshold (128 KiB by default) are
  // page-rounded mmaps.
  const uint64_t chunk = (size + 8 + 15) & ~uint64_t{15};
  if (size >= 128 * 1024) return (size + 16 + 4095) & ~uint64_t{4095};
  return chunk < 32 ? 32 : chunk;
}

}  // namespace sieve::study
