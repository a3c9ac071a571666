// filter/internal/file_io.h: reading a filter image back, copied into aligned
// memory or memory-mapped (images are written by filter/durable_file.h's
// WriteFileAtomically).
#ifndef SIEVE_FILTER_INTERNAL_FILE_IO_H_
#define SIEVE_FILTER_INTERNAL_FILE_IO_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "filter/internal/image_format.h"

namespace sieve::filter_internal {

// The bytes of a whole file, 64-byte aligned, kept alive by `owner`: a private
// copy-on-write mapping when `memory_map`, else a heap buffer.
struct FileBytes {
  std::shared_ptr<void> owner;
  std::string_view bytes;
};
absl::StatusOr<FileBytes> ReadWholeFile(const std::string& path,
                                        bool memory_map);

}  // namespace sieve::filter_internal

#endif  // SIEVE_FILTER_INTERNAL_FILE_IO_H_
