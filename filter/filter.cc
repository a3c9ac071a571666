// CreateFilter / DeserializeFilter: route by kind to the concrete classes,
// wrapped in FilterAdapter.
#include "filter/filter.h"

#include "absl/strings/str_cat.h"
#include "filter/blocked_bloom_filter.h"
#include "filter/bloom_filter.h"
#include "filter/counting_bloom_filter.h"
#include "filter/internal/bit_filter_core.h"
#include "filter/internal/filter_adapter.h"
#include "filter/internal/image_format.h"
#include "filter/scalable_bloom_filter.h"

namespace sieve {

using filter_internal::Wrap;

std::span<const FilterKind> AllFilterKinds() {
  static constexpr FilterKind kKinds[] = {
      FilterKind::kClassic, FilterKind::kBlocked, FilterKind::kCounting,
      FilterKind::kScalable};
  return kKinds;
}

std::string_view FilterKindName(FilterKind kind) {
  switch (kind) {
    case FilterKind::kClassic:
      return "classic";
    case FilterKind::kBlocked:
      return "blocked";
    case FilterKind::kCounting:
      return "counting";
    case FilterKind::kScalable:
      return "scalable";
  }
  return "unknown";
}

absl::StatusOr<FilterKind> ParseFilterKind(std::string_view name) {
  for (FilterKind kind : AllFilterKinds()) {
    if (name == FilterKindName(kind)) return kind;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown filter kind \"", std::string(name),
                   "\"; expected classic, blocked, counting or scalable"));
}

absl::StatusOr<std::unique_ptr<Filter>> CreateFilter(
    const FilterOptions& options) {
  switch (options.kind) {
    case FilterKind::kClassic:
      return Wrap(BloomFilter::Create(options));
    case FilterKind::kBlocked:
      return Wrap(BlockedBloomFilter::Create(options));
    case FilterKind::kCounting:
      return Wrap(CountingBloomFilter::Create(options));
    case FilterKind::kScalable:
      return Wrap(ScalableBloomFilter::Create(options));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown filter kind ", static_cast<int>(options.kind)));
}

namespace {

absl::StatusOr<std::unique_ptr<Filter>> FromSource(
    const filter_internal::ImageSource& source) {
  // Decode once without the checksum just to learn the kind; the kind's own
  // loader verifies.
  absl::StatusOr<filter_internal::DecodedImage> image =
      filter_internal::DecodeImage(source.bytes, /*verify_checksum=*/false);
  if (!image.ok()) return image.status();
  switch (image->header.kind) {
    case FilterKind::kClassic:
      return Wrap(BloomFilter::FromSource(source));
    case FilterKind::kBlocked:
      return Wrap(BlockedBloomFilter::FromSource(source));
    case FilterKind::kCounting:
      return Wrap(CountingBloomFilter::FromSource(source));
    case FilterKind::kScalable:
      return Wrap(ScalableBloomFilter::FromSource(source));
  }
  return absl::InvalidArgumentError("unknown filter kind");
}

}  // namespace

absl::StatusOr<std::unique_ptr<Filter>> DeserializeFilter(
    std::string_view bytes) {
  return DeserializeFilter(bytes, LoadOptions{});
}

absl::StatusOr<std::unique_ptr<Filter>> DeserializeFilter(
    std::string_view bytes, const LoadOptions& options) {
  return FromSource(
      filter_internal::ImageSource{.bytes = bytes,
                                   .owner = nullptr,
                                   .verify_checksum = options.verify_checksum,
                                   .concurrent = options.concurrent});
}

absl::StatusOr<std::unique_ptr<Filter>> LoadFilterFromFile(
    const std::string& path) {
  return LoadFilterFromFile(path, LoadOptions{});
}

absl::StatusOr<std::unique_ptr<Filter>> LoadFilterFromFile(
    const std::string& path, const LoadOptions& options) {
  absl::StatusOr<filter_internal::ImageSource> source =
      filter_internal::SourceFromFile(path, options);
  if (!source.ok()) return source.status();
  return FromSource(*source);
}

}  // namespace sieve
