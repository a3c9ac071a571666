#include "filter/internal/image_format.h"

#include <xxhash.h>

#include <bit>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace sieve::filter_internal {
namespace {

static_assert(std::endian::native == std::endian::little,
              "bit arrays are saved as raw little-endian words");

constexpr char kMagic[8] = {'S', 'I', 'E', 'V', 'E', 'F', 'L', 'T'};

template <typename T>
void Put(char* at, T value) {
  std::memcpy(at, &value, sizeof(value));
}
template <typename T>
T Get(const char* at) {
  T value;
  std::memcpy(&value, at, sizeof(value));
  return value;
}

bool IsKnownKind(uint8_t kind) {
  for (FilterKind known : AllFilterKinds()) {
    if (kind == static_cast<uint8_t>(known)) return true;
  }
  return false;
}

}  // namespace

ImageWriter::ImageWriter(ByteSink sink, const ImageHeader& header)
    : sink_(sink),
      state_(XXH3_createState(), [](XXH3_state_s* s) { XXH3_freeState(s); }) {
  XXH3_64bits_reset(state_.get());
  char bytes[kHeaderBytes] = {};
  std::memcpy(bytes, kMagic, sizeof(kMagic));
  Put<uint16_t>(bytes + 8, kFormatVersion);
  Put<uint8_t>(bytes + kKindOffset, static_cast<uint8_t>(header.kind));
  Put<uint32_t>(bytes + 12, header.hash_count);
  Put<uint64_t>(bytes + 16, header.bit_count);
  Put<uint64_t>(bytes + 24, header.seed);
  Put<uint64_t>(bytes + 32, header.capacity);
  Put<double>(bytes + 40, header.fp_rate);
  Put<uint64_t>(bytes + 48, header.count);
  Put<uint64_t>(bytes + 56, header.payload_bytes);
  Append(std::string_view(bytes, sizeof(bytes)));
}

ImageWriter::~ImageWriter() = default;

void ImageWriter::Append(std::string_view bytes) {
  XXH3_64bits_update(state_.get(), bytes.data(), bytes.size());
  sink_(bytes);
}

void ImageWriter::Finish() {
  char trailer[kTrailerBytes];
  Put<uint64_t>(trailer, XXH3_64bits_digest(state_.get()));
  sink_(std::string_view(trailer, sizeof(trailer)));
}

absl::StatusOr<DecodedImage> DecodeImage(std::string_view bytes,
                                         bool verify_checksum) {
  const uint64_t size = bytes.size();
  if (size >= sizeof(kMagic) &&
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return absl::InvalidArgumentError("not a Sieve filter image: bad magic");
  }
  if (size < kHeaderBytes + kTrailerBytes) {
    return absl::DataLossError(absl::StrCat(
        "filter image truncated: ", size, " bytes, smaller than the ",
        kHeaderBytes, "-byte header and checksum"));
  }
  const char* p = bytes.data();
  const uint16_t version = Get<uint16_t>(p + 8);
  if (version != kFormatVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported filter format version ", version,
                     " (this build reads ", kFormatVersion, ")"));
  }
  const uint8_t kind = Get<uint8_t>(p + kKindOffset);
  if (!IsKnownKind(kind)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown filter kind ", kind));
  }
  DecodedImage image;
  ImageHeader& h = image.header;
  h.kind = static_cast<FilterKind>(kind);
  h.hash_count = Get<uint32_t>(p + 12);
  h.bit_count = Get<uint64_t>(p + 16);
  h.seed = Get<uint64_t>(p + 24);
  h.capacity = Get<uint64_t>(p + 32);
  h.fp_rate = Get<double>(p + 40);
  h.count = Get<uint64_t>(p + 48);
  h.payload_bytes = Get<uint64_t>(p + 56);
  if (h.payload_bytes > size - kHeaderBytes - kTrailerBytes) {
    return absl::DataLossError(absl::StrCat("filter image truncated: ", size,
                                            " bytes, its header announces ",
                                            ImageBytes(h.payload_bytes)));
  }
  if (h.payload_bytes % 8 != 0) {
    return absl::DataLossError(absl::StrCat("filter image corrupt: payload of ",
                                            h.payload_bytes, " bytes"));
  }
  image.payload = bytes.substr(kHeaderBytes, h.payload_bytes);
  image.image_bytes = ImageBytes(h.payload_bytes);
  if (verify_checksum) {
    const uint64_t stored = Get<uint64_t>(p + kHeaderBytes + h.payload_bytes);
    const uint64_t actual = XXH3_64bits(p, kHeaderBytes + h.payload_bytes);
    if (stored != actual) {
      return absl::DataLossError("filter image corrupt: checksum mismatch");
    }
  }
  return image;
}

}  // namespace sieve::filter_internal
