#include "filter/internal/bit_filter_core.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"
#include "filter/durable_file.h"
#include "filter/internal/file_io.h"

namespace sieve::filter_internal {
namespace {

uint64_t WordsFor(uint64_t slots, uint32_t slot_bits) {
  return (slots * slot_bits + 63) / 64;
}

}  // namespace

absl::StatusOr<BitFilterCore> BitFilterCore::Create(
    FilterKind kind, uint64_t bit_count, uint32_t hash_count,
    uint32_t slot_bits, const FilterOptions& options) {
  if (bit_count == 0 || bit_count > BloomMath::kMaxBits / slot_bits) {
    return absl::InvalidArgumentError(
        absl::StrCat("filter size of ", bit_count, " slots is outside [1, ",
                     BloomMath::kMaxBits / slot_bits, "]"));
  }
  if (hash_count == 0 || hash_count > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("hash count must be in [1, 1024], got ", hash_count));
  }
  if (options.capacity == 0) {
    return absl::InvalidArgumentError("filter capacity must be > 0, got 0");
  }
  absl::StatusOr<WordArray> words =
      WordArray::Allocate(WordsFor(bit_count, slot_bits));
  if (!words.ok()) return words.status();
  BitFilterCore core;
  core.kind_ = kind;
  core.words_ = *std::move(words);
  core.bit_count_ = bit_count;
  core.hash_count_ = hash_count;
  core.slot_bits_ = slot_bits;
  core.capacity_ = options.capacity;
  core.fp_rate_ = options.fp_rate;
  core.seed_ = options.seed;
  core.concurrent_ = options.concurrent;
  return core;
}

absl::StatusOr<BitFilterCore> BitFilterCore::FromImage(
    FilterKind kind, uint32_t slot_bits, uint64_t granularity,
    const DecodedImage& image, const ImageSource& source) {
  const ImageHeader& h = image.header;
  if (h.kind != kind) {
    return absl::InvalidArgumentError(absl::StrCat(
        "filter image holds a ", std::string(FilterKindName(h.kind)),
        " filter, not a ", std::string(FilterKindName(kind)), " one"));
  }
  if (h.bit_count == 0 || h.bit_count > BloomMath::kMaxBits / slot_bits ||
      h.bit_count % granularity != 0 ||
      WordsFor(h.bit_count, slot_bits) * 8 != h.payload_bytes ||
      h.hash_count == 0 || h.hash_count > 1024 || h.count > h.bit_count ||
      h.capacity == 0) {
    return absl::DataLossError(absl::StrCat(
        "filter image corrupt: inconsistent header (m=", h.bit_count,
        ", k=", h.hash_count, ", count=", h.count, ", capacity=", h.capacity,
        ", payload=", h.payload_bytes, ")"));
  }
  const uint64_t word_count = h.payload_bytes / 8;
  BitFilterCore core;
  const char* payload = image.payload.data();
  if (source.owner != nullptr &&
      reinterpret_cast<uintptr_t>(payload) % 8 == 0) {
    core.words_ = WordArray::Borrow(
        source.owner, reinterpret_cast<uint64_t*>(const_cast<char*>(payload)),
        word_count);
  } else {
    absl::StatusOr<WordArray> words = WordArray::CopyOf(payload, word_count);
    if (!words.ok()) return words.status();
    core.words_ = *std::move(words);
  }
  core.kind_ = kind;
  core.bit_count_ = h.bit_count;
  core.hash_count_ = h.hash_count;
  core.slot_bits_ = slot_bits;
  core.capacity_ = h.capacity;
  core.fp_rate_ = h.fp_rate;
  core.seed_ = h.seed;
  core.concurrent_ = source.concurrent;
  core.set_count_ = h.count;
  return core;
}

void BitFilterCore::InstallWatch(CapacityCallback callback) {
  const uint64_t m = bit_count_;
  const uint32_t k = hash_count_;
  watch_.Install(std::move(callback), capacity_,
                 [m, k](double count) -> uint64_t {
                   // EstimateCount is increasing in the set count, so the
                   // crossing needs at least ExpectedSetBits(count) set slots
                   // (minus one for rounding).
                   const double bits =
                       std::floor(BloomMath::ExpectedSetBits(m, k, count)) - 1;
                   if (bits >= static_cast<double>(m))
                     return std::numeric_limits<uint64_t>::max();
                   return bits <= 0 ? 0 : static_cast<uint64_t>(bits);
                 });
}

absl::Status BitFilterCore::CheckCompatible(const BitFilterCore& other) const {
  if (kind_ != other.kind_ || bit_count_ != other.bit_count_ ||
      hash_count_ != other.hash_count_ || seed_ != other.seed_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "filters differ: ", std::string(FilterKindName(kind_)),
        " m=", bit_count_, " k=", hash_count_, " seed=", seed_, " vs ",
        std::string(FilterKindName(other.kind_)), " m=", other.bit_count_,
        " k=", other.hash_count_, " seed=", other.seed_));
  }
  return absl::OkStatus();
}

void BitFilterCore::WriteImage(ByteSink sink) const {
  ImageWriter writer(sink, ImageHeader{.kind = kind_,
                                       .hash_count = hash_count_,
                                       .bit_count = bit_count_,
                                       .seed = seed_,
                                       .capacity = capacity_,
                                       .fp_rate = fp_rate_,
                                       .count = set_count(),
                                       .payload_bytes = words_.bytes()});
  writer.Append(std::string_view(reinterpret_cast<const char*>(words_.data()),
                                 words_.bytes()));
  writer.Finish();
}

std::string BitFilterCore::Serialize() const {
  return ImageString(words_.bytes(), [&](ByteSink sink) { WriteImage(sink); });
}

absl::Status BitFilterCore::SaveToFile(const std::string& path) const {
  return WriteFileAtomically(path, [&](ByteSink sink) { WriteImage(sink); });
}

absl::StatusOr<ImageSource> SourceFromFile(const std::string& path,
                                           const LoadOptions& options) {
  absl::StatusOr<FileBytes> file = ReadWholeFile(path, options.memory_map);
  if (!file.ok()) return file.status();
  return ImageSource{.bytes = file->bytes,
                     .owner = file->owner,
                     .verify_checksum = options.verify_checksum,
                     .concurrent = options.concurrent,
                     .disk_stages = options.disk_stages};
}

void DieOnBadSizing(std::string_view kind, const absl::Status& status) {
  std::fprintf(stderr, "sieve::%.*s::ForCapacity: %s\n",
               static_cast<int>(kind.size()), kind.data(),
               std::string(status.message()).c_str());
  std::abort();
}

}  // namespace sieve::filter_internal
