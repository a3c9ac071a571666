// CreateFilter / DeserializeFilter: route by kind to the concrete classes,
// wrapped in FilterAdapter.
#include "filter/filter.h"

#include "absl/strings/str_cat.h"
#include "filter/blocked_bloom_filter.h"
#include "filter/bloom_filter.h"
#include "filter/counting_bloom_filter.h"
#include "filter/generational_bloom_filter.h"
#include "filter/internal/bit_filter_core.h"
#include "filter/internal/filter_adapter.h"
#include "filter/internal/image_format.h"
#include "filter/scalable_bloom_filter.h"
#include "filter/stable_bloom_filter.h"

namespace sieve {

using filter_internal::Wrap;

std::span<const FilterKind> AllFilterKinds() {
  static constexpr FilterKind kKinds[] = {
#define SIEVE_FILTER_KIND_LIST(name, value, text, cls, forgets) \
  FilterKind::name,
      SIEVE_FILTER_KINDS(SIEVE_FILTER_KIND_LIST)
#undef SIEVE_FILTER_KIND_LIST
  };
  return kKinds;
}

std::string_view FilterKindName(FilterKind kind) {
  switch (kind) {
#define SIEVE_FILTER_KIND_NAME(name, value, text, cls, forgets) \
  case FilterKind::name:                                        \
    return text;
    SIEVE_FILTER_KINDS(SIEVE_FILTER_KIND_NAME)
#undef SIEVE_FILTER_KIND_NAME
  }
  return "unknown";
}

bool FilterKindForgets(FilterKind kind) {
  switch (kind) {
#define SIEVE_FILTER_KIND_FORGETS(name, value, text, cls, forgets) \
  case FilterKind::name:                                           \
    return forgets;
    SIEVE_FILTER_KINDS(SIEVE_FILTER_KIND_FORGETS)
#undef SIEVE_FILTER_KIND_FORGETS
  }
  return false;
}

absl::StatusOr<FilterKind> ParseFilterKind(std::string_view name) {
  std::string accepted;
  for (FilterKind kind : AllFilterKinds()) {
    if (name == FilterKindName(kind)) return kind;
    absl::StrAppend(&accepted, accepted.empty() ? "" : ", ",
                    std::string(FilterKindName(kind)));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown filter kind \"", std::string(name),
                   "\"; expected one of ", accepted));
}

absl::StatusOr<std::unique_ptr<Filter>> CreateFilter(
    const FilterOptions& options) {
  switch (options.kind) {
#define SIEVE_FILTER_KIND_CREATE(name, value, text, cls, forgets) \
  case FilterKind::name:                                          \
    return Wrap(cls::Create(options));
    SIEVE_FILTER_KINDS(SIEVE_FILTER_KIND_CREATE)
#undef SIEVE_FILTER_KIND_CREATE
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
#define SIEVE_FILTER_KIND_LOAD(name, value, text, cls, forgets) \
  case FilterKind::name:                                        \
    return Wrap(cls::FromSource(source));
    SIEVE_FILTER_KINDS(SIEVE_FILTER_KIND_LOAD)
#undef SIEVE_FILTER_KIND_LOAD
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
                                   .concurrent = options.concurrent,
                                   .disk_stages = options.disk_stages});
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
