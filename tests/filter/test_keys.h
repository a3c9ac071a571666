// tests/filter/test_keys.h: deterministic key sets for the filter tests: key i
// is the 8 bytes of the integer i (the hash sees every bit, so nothing is
// gained by prettier keys).
#ifndef SIEVE_TESTS_FILTER_TEST_KEYS_H_
#define SIEVE_TESTS_FILTER_TEST_KEYS_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace sieve::testing_keys {

class KeySet {
 public:
  // Keys first, first + 1, ..., first + count - 1.
  KeySet(uint64_t first, uint64_t count) : ints_(count), views_(count) {
    for (uint64_t i = 0; i < count; ++i) {
      ints_[i] = first + i;
      views_[i] = std::string_view(reinterpret_cast<const char*>(&ints_[i]),
                                   sizeof(uint64_t));
    }
  }
  KeySet(const KeySet&) = delete;
  KeySet& operator=(const KeySet&) = delete;

  size_t size() const { return views_.size(); }
  std::string_view operator[](size_t i) const { return views_[i]; }
  std::span<const std::string_view> span() const { return views_; }
  std::span<const std::string_view> span(size_t from, size_t count) const {
    return std::span<const std::string_view>(views_).subspan(from, count);
  }

 private:
  std::vector<uint64_t> ints_;
  std::vector<std::string_view> views_;
};

// Keys never used by "inserted" sets in the tests start here.
inline constexpr uint64_t kAbsentBase = uint64_t{1} << 48;

// Results buffer for the batch calls.
struct Results {
  explicit Results(size_t n) : values(new bool[n]), size(n) {}
  std::span<bool> span() { return {values.get(), size}; }
  size_t CountTrue() const {
    size_t count = 0;
    for (size_t i = 0; i < size; ++i) count += values[i] ? 1 : 0;
    return count;
  }
  std::unique_ptr<bool[]> values;
  size_t size;
};

}  // namespace sieve::testing_keys

#endif  // SIEVE_TESTS_FILTER_TEST_KEYS_H_
