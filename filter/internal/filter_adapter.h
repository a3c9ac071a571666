// filter/internal/filter_adapter.h: sieve::Filter for any concrete filter
// class, so CreateFilter can hand out one interface while the classes
// themselves stay free of virtual calls.
#ifndef SIEVE_FILTER_INTERNAL_FILTER_ADAPTER_H_
#define SIEVE_FILTER_INTERNAL_FILTER_ADAPTER_H_

#include <memory>
#include <string>
#include <utility>

#include "filter/bloom_math.h"
#include "filter/filter.h"

namespace sieve::filter_internal {

template <typename T>
class FilterAdapter final : public Filter {
 public:
  explicit FilterAdapter(T filter) : filter_(std::move(filter)) {}

  FilterKind kind() const override { return T::kKind; }
  bool Add(std::string_view key) override { return filter_.Add(key); }
  bool MayContain(std::string_view key) const override {
    return filter_.MayContain(key);
  }
  void AddMany(std::span<const std::string_view> keys,
               std::span<bool> fresh) override {
    filter_.AddMany(keys, fresh);
  }
  void MayContainMany(std::span<const std::string_view> keys,
                      std::span<bool> out) const override {
    filter_.MayContainMany(keys, out);
  }
  double EstimatedCount() const override { return filter_.EstimatedCount(); }
  double EstimatedFalsePositiveRate() const override {
    return filter_.EstimatedFalsePositiveRate();
  }
  double FillRatio() const override { return filter_.FillRatio(); }
  uint64_t MemoryBytes() const override { return filter_.MemoryBytes(); }
  uint64_t DiskBytes() const override {
    if constexpr (T::kKind == FilterKind::kScalable) {
      return filter_.DiskBytes();
    } else {
      return 0;
    }
  }
  uint64_t capacity() const override { return filter_.capacity(); }
  uint64_t bit_count() const override { return filter_.bit_count(); }
  uint32_t hash_count() const override { return filter_.hash_count(); }
  double FormulaFalsePositiveRate(uint64_t n) const override {
    const double keys = static_cast<double>(n);
    if constexpr (T::kKind == FilterKind::kBlocked) {
      return BloomMath::BlockedFalsePositiveRate(filter_.bit_count(),
                                                 filter_.hash_count(), keys);
    } else if constexpr (T::kKind == FilterKind::kScalable) {
      return filter_.EstimatedFalsePositiveRate();
    } else if constexpr (T::kKind == FilterKind::kStable ||
                         T::kKind == FilterKind::kGenerational) {
      return filter_.FormulaFalsePositiveRate(n);
    } else {
      return BloomMath::FalsePositiveRate(filter_.bit_count(),
                                          filter_.hash_count(), keys);
    }
  }
  void OnCapacityExceeded(CapacityCallback callback) override {
    filter_.OnCapacityExceeded(std::move(callback));
  }
  std::string Serialize() const override { return filter_.Serialize(); }
  void SerializeTo(
      absl::FunctionRef<void(std::string_view)> sink) const override {
    filter_.SerializeTo(sink);
  }
  absl::Status SaveToFile(const std::string& path) const override {
    return filter_.SaveToFile(path);
  }

 private:
  T filter_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<Filter>> Wrap(absl::StatusOr<T> filter) {
  if (!filter.ok()) return filter.status();
  return std::unique_ptr<Filter>(new FilterAdapter<T>(*std::move(filter)));
}

}  // namespace sieve::filter_internal

#endif  // SIEVE_FILTER_INTERNAL_FILTER_ADAPTER_H_
