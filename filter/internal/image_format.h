// filter/internal/image_format.h: the saved form of every filter kind.
//
// Layout (little-endian; a multiple of 8 bytes, so the bit array of an image
// that starts 8-byte aligned is itself aligned and can be used in place from a
// memory-mapped file):
//   offset  0  char[8]  magic "SIEVEFLT"
//           8  u16      format version (kFormatVersion)
//          10  u8       kind (FilterKind)
//          11  u8       reserved, 0
//          12  u32      k (hashes per key)
//          16  u64      m (bits, or counters for the counting kind)
//          24  u64      seed of HashKey
//          32  u64      capacity (designed item count)
//          40  f64      fp_rate asked for
//          48  u64      count (bits or counters set; scalable: keys added;
//                       stable: adds; generational: keys in its generations)
//          56  u64      payload bytes P
//          64  P bytes  payload (bit-array words; scalable: its stages)
//        64+P  u64      XXH3-64 (seed 0) of bytes [0, 64+P)
// Any change to this layout or to key_hash.h must bump kFormatVersion (schema
// test pins both).
#ifndef SIEVE_FILTER_INTERNAL_IMAGE_FORMAT_H_
#define SIEVE_FILTER_INTERNAL_IMAGE_FORMAT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "filter/filter.h"

struct XXH3_state_s;

namespace sieve::filter_internal {

inline constexpr uint16_t kFormatVersion = 1;
inline constexpr uint64_t kHeaderBytes = 64;
// Where the kind byte sits in the header (the layout above).
inline constexpr uint64_t kKindOffset = 10;
inline constexpr uint64_t kTrailerBytes = 8;

struct ImageHeader {
  FilterKind kind = FilterKind::kClassic;
  uint32_t hash_count = 0;
  uint64_t bit_count = 0;
  uint64_t seed = 0;
  uint64_t capacity = 0;
  double fp_rate = 0;
  uint64_t count = 0;
  uint64_t payload_bytes = 0;
};

// Receives the image bytes in order.
using ByteSink = absl::FunctionRef<void(std::string_view)>;

// Writes one image: the header at construction, then Append() exactly
// header.payload_bytes, then Finish() for the checksum.
class ImageWriter {
 public:
  ImageWriter(ByteSink sink, const ImageHeader& header);
  ~ImageWriter();
  ImageWriter(const ImageWriter&) = delete;
  ImageWriter& operator=(const ImageWriter&) = delete;

  void Append(std::string_view bytes);
  void Finish();

 private:
  ByteSink sink_;
  std::unique_ptr<XXH3_state_s, void (*)(XXH3_state_s*)> state_;
};

struct DecodedImage {
  ImageHeader header;
  std::string_view payload;
  uint64_t image_bytes = 0;  // header + payload + trailer
};

// Parses the image at the start of `bytes` (it may be followed by more). Errors
// name the problem: truncated, bad magic, unsupported version, unknown kind,
// checksum mismatch.
absl::StatusOr<DecodedImage> DecodeImage(std::string_view bytes,
                                         bool verify_checksum);

// Serialized size of an image with `payload_bytes` of payload.
inline uint64_t ImageBytes(uint64_t payload_bytes) {
  return kHeaderBytes + payload_bytes + kTrailerBytes;
}

// The whole image `write` gives its sink, in one string (a kind's
// Serialize()); `payload_bytes` sizes the string up front.
inline std::string ImageString(uint64_t payload_bytes,
                               absl::FunctionRef<void(ByteSink)> write) {
  std::string bytes;
  bytes.reserve(ImageBytes(payload_bytes));
  write([&](std::string_view part) { bytes.append(part); });
  return bytes;
}

// Bytes an image decoder reads from; `owner`, when set, keeps `bytes` alive and
// lets the decoder use the bit array in place instead of copying it.
struct ImageSource {
  std::string_view bytes;
  std::shared_ptr<void> owner;
  bool verify_checksum = true;
  bool concurrent = false;
  // The scalable kind's (LoadOptions::disk_stages). Default: all in RAM.
  DiskStages disk_stages = {};
};

}  // namespace sieve::filter_internal

#endif  // SIEVE_FILTER_INTERNAL_IMAGE_FORMAT_H_
