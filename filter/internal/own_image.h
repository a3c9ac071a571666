// filter/internal/own_image.h: what the kinds with an image layout of their
// own (scalable, stable, generational) share when they read one back: decode
// it, check it holds their kind and that nothing trails it (DecodeOwnImage),
// read its payload's fixed fields and nested part images (OwnPayload), and
// the Deserialize / LoadFromFile forms, both through T::FromSource. Private
// to sieve::filter.
#ifndef SIEVE_FILTER_INTERNAL_OWN_IMAGE_H_
#define SIEVE_FILTER_INTERNAL_OWN_IMAGE_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "filter/filter.h"
#include "filter/internal/batch.h"
#include "filter/internal/bit_filter_core.h"
#include "filter/internal/image_format.h"

namespace sieve::filter_internal {

// The image of `source`, which must be one whole image of `kind`.
inline absl::StatusOr<DecodedImage> DecodeOwnImage(const ImageSource& source,
                                                   FilterKind kind) {
  absl::StatusOr<DecodedImage> image =
      DecodeImage(source.bytes, source.verify_checksum);
  if (!image.ok()) return image.status();
  if (image->header.kind != kind) {
    return absl::InvalidArgumentError(absl::StrCat(
        "filter image holds a ",
        std::string(FilterKindName(image->header.kind)), " filter, not a ",
        std::string(FilterKindName(kind)), " one"));
  }
  if (image->image_bytes != source.bytes.size())
    return TrailingBytesError(source.bytes.size() - image->image_bytes);
  return image;
}

// The payload of one whole image of a kind with a layout of its own, read front
// to back: the fixed-width fields of its prefix, then (scalable, generational)
// its parts, each a u64 count followed by one image of the part's kind. Every
// error is DataLoss "<kind> filter image corrupt: <what>".
//
// Example (a payload of a u64 part count, then the parts):
//   absl::StatusOr<OwnPayload> in = OwnPayload::Open(source, kKind, 8, "no count");
//   if (!in.ok()) return in.status();
//   const uint64_t parts = in->Field<uint64_t>(0);
//   for (uint64_t i = 0; i < parts; ++i) {
//     uint64_t count;
//     absl::StatusOr<BloomFilter> part = in->NextPart<BloomFilter>(&count, "cut short");
//     ...
//   }
//   if (!in->rest().empty()) return in->Corrupt("bytes after the last part");
class OwnPayload {
 public:
  // Decodes `source` (DecodeOwnImage) and checks its payload holds the
  // `prefix_bytes` of fixed fields; `no_prefix` says what is missing if not.
  static absl::StatusOr<OwnPayload> Open(const ImageSource& source,
                                         FilterKind kind, uint64_t prefix_bytes,
                                         std::string_view no_prefix) {
    absl::StatusOr<DecodedImage> image = DecodeOwnImage(source, kind);
    if (!image.ok()) return image.status();
    OwnPayload payload(*image, kind, source.owner);
    if (image->payload.size() < prefix_bytes) return payload.Corrupt(no_prefix);
    payload.prefix_ = image->payload.substr(0, prefix_bytes);
    payload.rest_ = image->payload.substr(prefix_bytes);
    return payload;
  }

  const ImageHeader& header() const { return header_; }

  absl::Status Corrupt(std::string_view what) const {
    return absl::DataLossError(
        absl::StrCat(std::string(FilterKindName(kind_)),
                     " filter image corrupt: ", std::string(what)));
  }

  // The fixed field at `offset` of the prefix (copied: the payload need not
  // be aligned). REQUIRES: offset + sizeof(V) <= prefix_bytes.
  template <typename V>
  V Field(uint64_t offset) const {
    V value;
    std::memcpy(&value, prefix_.data() + offset, sizeof(V));
    return value;
  }

  // The payload after the prefix and the parts read so far.
  std::string_view rest() const { return rest_; }

  // The kind byte of the next part's image (after its u64 count), if there
  // are bytes enough to hold one; NextPart checks the rest.
  std::optional<uint8_t> NextPartKind() const {
    constexpr uint64_t kAt = sizeof(uint64_t) + kKindOffset;
    if (rest_.size() <= kAt) return std::nullopt;
    return static_cast<uint8_t>(rest_[kAt]);
  }

  // The next part: its u64 count into `*count`, then one image of `Part`,
  // read without its checksum (the outer image's covered its bytes) and used
  // in place where the source's owner keeps the bytes alive. `cut_short`
  // says what is missing when not even the count is left.
  template <typename Part>
  absl::StatusOr<Part> NextPart(uint64_t* count, std::string_view cut_short) {
    if (rest_.size() < sizeof(uint64_t)) return Corrupt(cut_short);
    std::memcpy(count, rest_.data(), sizeof(uint64_t));
    rest_.remove_prefix(sizeof(uint64_t));
    uint64_t consumed = 0;
    absl::StatusOr<Part> part =
        Part::FromImage(ImageSource{.bytes = rest_,
                                    .owner = owner_,
                                    .verify_checksum = false,
                                    .concurrent = false},
                        &consumed);
    if (part.ok()) rest_.remove_prefix(consumed);
    return part;
  }

 private:
  OwnPayload(const DecodedImage& image, FilterKind kind,
             std::shared_ptr<void> owner)
      : header_(image.header), kind_(kind), owner_(std::move(owner)) {}

  ImageHeader header_;
  FilterKind kind_;
  std::shared_ptr<void> owner_;
  std::string_view prefix_;
  std::string_view rest_;
};

template <typename T>
absl::StatusOr<T> DeserializeOwnImage(std::string_view bytes,
                                      const LoadOptions& options) {
  return T::FromSource(ImageSource{.bytes = bytes,
                                   .owner = nullptr,
                                   .verify_checksum = options.verify_checksum,
                                   .concurrent = options.concurrent,
                                   .disk_stages = options.disk_stages});
}

template <typename T>
absl::StatusOr<T> LoadOwnImage(const std::string& path,
                               const LoadOptions& options) {
  absl::StatusOr<ImageSource> source = SourceFromFile(path, options);
  if (!source.ok()) return source.status();
  return T::FromSource(*source);
}

}  // namespace sieve::filter_internal

#endif  // SIEVE_FILTER_INTERNAL_OWN_IMAGE_H_
