// filter/internal/file_stage.h: one stage of a scalable filter kept on disk
// (FilterOptions::disk_stages, filter/filter.h): a blocked Bloom filter whose
// 512-bit blocks live in a file, not in RAM. Its bits and its saved image are
// those of a BlockedBloomFilter of the same sizes, so a saved stage reads back
// either way. Private to sieve::filter.
//
// Cost: MayContainHash one 64-byte pread; AddHash one pread and, when a bit
// was clear, one pwrite (the scalable filter fills its stages in RAM and
// writes each to a file once, CopyOf, so it adds to a FileStage only when a
// saved image's newest stage does not fit its budget); RAM: this object only.
// Errors of the file reads and writes read as "not seen" (and set no bit): the
// caller lets the key through again rather than lose it. Not thread-safe for writes (the scalable filter's
// lock guards its stages); reads may run concurrently.
#ifndef SIEVE_FILTER_INTERNAL_FILE_STAGE_H_
#define SIEVE_FILTER_INTERNAL_FILE_STAGE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "filter/blocked_bloom_filter.h"
#include "filter/internal/image_format.h"
#include "filter/key_hash.h"

namespace sieve::filter_internal {

class FileStage {
 public:
  FileStage(FileStage&& other) noexcept;
  FileStage& operator=(FileStage&& other) noexcept;
  FileStage(const FileStage&) = delete;
  FileStage& operator=(const FileStage&) = delete;
  ~FileStage();

  // `filter`'s bits and sizes written to a new file under `dir` (empty: a
  // memfd, which costs RAM like the filter itself).
  static absl::StatusOr<FileStage> CopyOf(const BlockedBloomFilter& filter,
                                          const std::string& dir);
  // The same bits read back into a filter in RAM (the file's size of RAM).
  absl::StatusOr<BlockedBloomFilter> ReadIntoRam() const;

  bool AddHash(const KeyHash& hash);
  bool MayContainHash(const KeyHash& hash) const;
  void PrefetchHash(const KeyHash&, bool) const {}

  double EstimatedCount() const;
  double EstimatedFalsePositiveRate() const;
  uint64_t set_bit_count() const { return set_count_; }
  uint64_t bit_count() const { return bit_count_; }
  uint32_t hash_count() const { return hash_count_; }
  uint64_t capacity() const { return capacity_; }
  uint64_t seed() const { return seed_; }
  // RAM: this object. DiskBytes: the file's size.
  uint64_t MemoryBytes() const { return sizeof(*this); }
  uint64_t DiskBytes() const { return bit_count_ / 8; }

  // A BlockedBloomFilter's image of the same bits, read from the file in
  // pieces (a block that cannot be read is written as zeros).
  uint64_t ImageBytes() const {
    return filter_internal::ImageBytes(DiskBytes());
  }
  void WriteImage(ByteSink sink) const;

 private:
  FileStage(int fd, uint64_t bit_count, uint32_t hash_count, uint64_t capacity,
            double fp_rate, uint64_t seed)
      : fd_(fd),
        bit_count_(bit_count),
        hash_count_(hash_count),
        capacity_(capacity),
        fp_rate_(fp_rate),
        seed_(seed) {}
  static absl::StatusOr<FileStage> Open(const std::string& dir,
                                        uint64_t bit_count, uint32_t hash_count,
                                        uint64_t capacity, double fp_rate,
                                        uint64_t seed);

  int fd_ = -1;
  uint64_t bit_count_ = 0;
  uint32_t hash_count_ = 0;
  uint64_t capacity_ = 0;
  double fp_rate_ = 0;
  uint64_t seed_ = 0;
  uint64_t set_count_ = 0;
};

}  // namespace sieve::filter_internal

#endif  // SIEVE_FILTER_INTERNAL_FILE_STAGE_H_
