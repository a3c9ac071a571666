// filter/internal/own_image.h: what the kinds with an image layout of their
// own (scalable, stable, generational) share when they read one back: decode
// it, check it holds their kind and that nothing trails it, and the
// Deserialize / LoadFromFile forms, both through T::FromSource. Private to
// sieve::filter.
#ifndef SIEVE_FILTER_INTERNAL_OWN_IMAGE_H_
#define SIEVE_FILTER_INTERNAL_OWN_IMAGE_H_

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

template <typename T>
absl::StatusOr<T> DeserializeOwnImage(std::string_view bytes,
                                      const LoadOptions& options) {
  return T::FromSource(ImageSource{.bytes = bytes,
                                   .owner = nullptr,
                                   .verify_checksum = options.verify_checksum,
                                   .concurrent = options.concurrent});
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
