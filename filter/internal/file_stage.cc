// FileStage: a blocked Bloom filter's blocks in a file, probed with pread and
// set with pwrite (filter/internal/file_stage.h).
#include "filter/internal/file_stage.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "filter/bloom_math.h"
#include "filter/internal/blocked_block.h"

namespace sieve::filter_internal {

namespace {

constexpr uint64_t kBlockBytes = kBlockWords * sizeof(uint64_t);

absl::Status ErrnoError(std::string_view what, const std::string& where) {
  const std::string reason = std::strerror(errno);
  return absl::InternalError(absl::StrCat(
      "filter stage on disk: ", std::string(what), " ", where, ": ", reason));
}

// A new file of `bytes` zero bytes (sparse), already unlinked.
absl::StatusOr<int> NewFile(const std::string& dir, uint64_t bytes) {
  int fd;
  if (dir.empty()) {
    fd = memfd_create("sieve-filter-stage", MFD_CLOEXEC);
    if (fd < 0) return ErrnoError("memfd_create", "");
  } else {
    std::string path = dir + "/.sieve-filter-stage-XXXXXX";
    fd = mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0) return ErrnoError("cannot create a file in", dir);
    unlink(path.c_str());
  }
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    absl::Status status = ErrnoError("cannot size a file in", dir);
    close(fd);
    return status;
  }
  return fd;
}

bool ReadAll(int fd, char* into, uint64_t bytes, uint64_t offset) {
  while (bytes > 0) {
    const ssize_t n = pread(fd, into, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    into += n;
    bytes -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

bool WriteAll(int fd, const char* from, uint64_t bytes, uint64_t offset) {
  while (bytes > 0) {
    const ssize_t n = pwrite(fd, from, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    from += n;
    bytes -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

}  // namespace

FileStage::FileStage(FileStage&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      bit_count_(other.bit_count_),
      hash_count_(other.hash_count_),
      capacity_(other.capacity_),
      fp_rate_(other.fp_rate_),
      seed_(other.seed_),
      set_count_(other.set_count_) {}

FileStage& FileStage::operator=(FileStage&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    bit_count_ = other.bit_count_;
    hash_count_ = other.hash_count_;
    capacity_ = other.capacity_;
    fp_rate_ = other.fp_rate_;
    seed_ = other.seed_;
    set_count_ = other.set_count_;
  }
  return *this;
}

FileStage::~FileStage() {
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<FileStage> FileStage::Open(const std::string& dir,
                                          uint64_t bit_count,
                                          uint32_t hash_count,
                                          uint64_t capacity, double fp_rate,
                                          uint64_t seed) {
  absl::StatusOr<int> fd = NewFile(dir, bit_count / 8);
  if (!fd.ok()) return fd.status();
  return FileStage(*fd, bit_count, hash_count, capacity, fp_rate, seed);
}

absl::StatusOr<FileStage> FileStage::CopyOf(const BlockedBloomFilter& filter,
                                            const std::string& dir) {
  absl::StatusOr<FileStage> stage =
      Open(dir, filter.bit_count(), filter.hash_count(), filter.capacity(),
           filter.fp_rate(), filter.seed());
  if (!stage.ok()) return stage.status();
  if (!WriteAll(stage->fd_,
                reinterpret_cast<const char*>(filter.core().words()),
                stage->DiskBytes(), 0)) {
    return ErrnoError("cannot write a file in", dir);
  }
  stage->set_count_ = filter.set_bit_count();
  return stage;
}

absl::StatusOr<BlockedBloomFilter> FileStage::ReadIntoRam() const {
  absl::StatusOr<BlockedBloomFilter> filter =
      BlockedBloomFilter::CreateWithSize(
          bit_count_, hash_count_,
          {.capacity = capacity_, .fp_rate = fp_rate_, .seed = seed_});
  if (!filter.ok()) return filter.status();
  if (!ReadAll(fd_, reinterpret_cast<char*>(filter->core_.words()), DiskBytes(),
               0)) {
    return ErrnoError("cannot read back a stage from", "its file");
  }
  filter->Recount();
  return filter;
}

bool FileStage::AddHash(const KeyHash& hash) {
  const uint64_t offset =
      BlockOf(hash, bit_count_ / BlockedBloomFilter::kBlockBits) * kBlockBytes;
  uint64_t block[kBlockWords];
  if (!ReadAll(fd_, reinterpret_cast<char*>(block), kBlockBytes, offset))
    return true;  // not stored: seen as new again, never lost
  const uint64_t newly_set =
      SetBlockBits(block, hash, hash_count_, /*concurrent=*/false);
  if (newly_set == 0) return false;
  if (!WriteAll(fd_, reinterpret_cast<const char*>(block), kBlockBytes,
                offset)) {
    return true;
  }
  set_count_ += newly_set;
  return true;
}

bool FileStage::MayContainHash(const KeyHash& hash) const {
  const uint64_t offset =
      BlockOf(hash, bit_count_ / BlockedBloomFilter::kBlockBits) * kBlockBytes;
  uint64_t block[kBlockWords];
  if (!ReadAll(fd_, reinterpret_cast<char*>(block), kBlockBytes, offset))
    return false;
  return TestBlockBits(block, hash, hash_count_, /*concurrent=*/false);
}

double FileStage::EstimatedCount() const {
  return BloomMath::EstimateCount(bit_count_, hash_count_, set_count_);
}

double FileStage::EstimatedFalsePositiveRate() const {
  return BloomMath::BlockedFalsePositiveRate(bit_count_, hash_count_,
                                             EstimatedCount());
}

void FileStage::WriteImage(ByteSink sink) const {
  ImageWriter writer(sink, ImageHeader{.kind = FilterKind::kBlocked,
                                       .hash_count = hash_count_,
                                       .bit_count = bit_count_,
                                       .seed = seed_,
                                       .capacity = capacity_,
                                       .fp_rate = fp_rate_,
                                       .count = set_count_,
                                       .payload_bytes = DiskBytes()});
  constexpr uint64_t kPiece = uint64_t{1} << 20;
  std::vector<char> piece(std::min(kPiece, DiskBytes()));
  for (uint64_t offset = 0; offset < DiskBytes(); offset += piece.size()) {
    const uint64_t n = std::min<uint64_t>(piece.size(), DiskBytes() - offset);
    if (!ReadAll(fd_, piece.data(), n, offset))
      std::fill(piece.begin(), piece.end(), 0);
    writer.Append(std::string_view(piece.data(), n));
  }
  writer.Finish();
}

}  // namespace sieve::filter_internal
