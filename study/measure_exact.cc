// Exact baselines: the sets a crawler without a Bloom filter keeps. Each is
// built alone so the RSS growth while building is its own.
#include <chrono>
#include <cmath>
#include <string>
#include <unordered_set>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "filter/key_hash.h"
#include "study/measure.h"
#include "study/memory_meter.h"

namespace sieve::study {
namespace {

using Clock = std::chrono::steady_clock;

// libstdc++ keeps strings of up to 15 bytes inline; longer ones own a heap
// buffer of size + 1.
constexpr size_t kInlineStringBytes = 15;
uint64_t StringHeapBytes(size_t length) {
  return length > kInlineStringBytes ? MallocChunkBytes(length + 1) : 0;
}

// RSS growth since `before`, signed (RSS may shrink).
double Growth(uint64_t before) {
  return static_cast<double>(ResidentBytes()) - static_cast<double>(before);
}

// Transparent hashing, so lookups by string_view build no std::string.
struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const {
    return std::hash<std::string_view>()(s);
  }
};

// Slots of an absl::flat_hash_set holding n elements: capacities are 2^k - 1
// and the table grows past 7/8 full (absl raw_hash_set.h).
double FlatCapacity(uint64_t n) {
  double capacity = 15;
  while (capacity * 7 / 8 < static_cast<double>(n)) capacity = capacity * 2 + 1;
  return capacity;
}

class StdUnorderedSet {
 public:
  static constexpr std::string_view kName = "std_unordered_set";
  // Bucket array (one pointer per bucket, ~1 bucket per element) at n, and at
  // its peak, when a rehash holds the old and the doubled new array.
  static double TableBytes(uint64_t n) { return 8.0 * static_cast<double>(n); }
  static double TablePeakBytes(uint64_t n) { return 3 * TableBytes(n); }
  StdUnorderedSet()
      : set_(0, StringViewHash(), std::equal_to<>(), Alloc(&bytes_)) {}
  // Returns whether `url` was inserted (absent before); `collision` unused.
  bool Insert(std::string_view url, bool /*fresh*/) {
    if (set_.find(url) != set_.end()) return false;
    set_.emplace(url);
    strings_ += StringHeapBytes(url.size());
    return true;
  }
  bool Contains(std::string_view url) const {
    return set_.find(url) != set_.end();
  }
  uint64_t OwnBytes() const { return bytes_ + strings_ + sizeof(*this); }
  uint64_t collisions() const { return kNotApplicable; }

 private:
  using Alloc = CountingAllocator<std::string>;
  uint64_t bytes_ = 0;
  uint64_t strings_ = 0;
  std::unordered_set<std::string, StringViewHash, std::equal_to<>, Alloc> set_;
};

class AbslStringSet {
 public:
  static constexpr std::string_view kName = "absl_flat_hash_set_string";
  // Slot array: a std::string (32 bytes) and a control byte per slot; at a
  // resize the old array (half the slots) lives beside the new one.
  static double TableBytes(uint64_t n) { return FlatCapacity(n) * 33; }
  static double TablePeakBytes(uint64_t n) { return 1.5 * TableBytes(n); }
  AbslStringSet() : set_(0, Hash(), Eq(), Alloc(&bytes_)) {}
  bool Insert(std::string_view url, bool /*fresh*/) {
    if (!set_.emplace(absl::string_view(url.data(), url.size())).second)
      return false;
    strings_ += StringHeapBytes(url.size());
    return true;
  }
  bool Contains(std::string_view url) const {
    return set_.contains(absl::string_view(url.data(), url.size()));
  }
  uint64_t OwnBytes() const { return bytes_ + strings_ + sizeof(*this); }
  uint64_t collisions() const { return kNotApplicable; }

 private:
  using Hash = absl::flat_hash_set<std::string>::hasher;
  using Eq = absl::flat_hash_set<std::string>::key_equal;
  using Alloc = CountingAllocator<std::string>;
  uint64_t bytes_ = 0;
  uint64_t strings_ = 0;
  absl::flat_hash_set<std::string, Hash, Eq, Alloc> set_;
};

// 64-bit fingerprints (XXH3-64, the frontier's exact-store key). Two distinct
// URLs with one fingerprint are a collision: the second would be wrongly
// dropped. Expected ~n^2 / 2^65.
class FingerprintSet {
 public:
  static constexpr std::string_view kName = "absl_flat_hash_set_xxh3";
  static double TableBytes(uint64_t n) { return FlatCapacity(n) * 9; }
  static double TablePeakBytes(uint64_t n) { return 1.5 * TableBytes(n); }
  FingerprintSet() : set_(0, Hash(), Eq(), Alloc(&bytes_)) {}
  bool Insert(std::string_view url, bool fresh) {
    const bool inserted = set_.insert(Fingerprint64(url)).second;
    if (fresh && !inserted) ++collisions_;
    return inserted;
  }
  bool Contains(std::string_view url) const {
    return set_.contains(Fingerprint64(url));
  }
  uint64_t OwnBytes() const { return bytes_ + sizeof(*this); }
  uint64_t collisions() const { return collisions_; }

 private:
  using Hash = absl::flat_hash_set<uint64_t>::hasher;
  using Eq = absl::flat_hash_set<uint64_t>::key_equal;
  using Alloc = CountingAllocator<uint64_t>;
  uint64_t bytes_ = 0;
  uint64_t collisions_ = 0;
  absl::flat_hash_set<uint64_t, Hash, Eq, Alloc> set_;
};

template <typename Set>
ResultRow MeasureOne(const MeasureContext& context, uint64_t n,
                     const std::vector<ResultRow>& previous) {
  const ResultRow* base = LastMeasured(previous, Set::kName, kNaN);
  if (base != nullptr) {
    // Predict the peak before building: per-URL bytes outside the table
    // (nodes, string buffers) grow linearly; the table grows in steps and
    // peaks during a resize. A single resize allocates gigabytes at once, so
    // the RSS check while building cannot be the only guard.
    const double base_n = static_cast<double>(base->n);
    const double per_url = std::max(0.0, static_cast<double>(base->bytes_own) -
                                             Set::TableBytes(base->n)) /
                           base_n;
    const double peak =
        per_url * static_cast<double>(n) + Set::TablePeakBytes(n);
    if (peak > static_cast<double>(context.memory_cap)) {
      ResultRow row = Extrapolate(*base, n, context);
      // Linear in the elements, plus the table at its real size.
      row.bytes_own = static_cast<uint64_t>(per_url * static_cast<double>(n) +
                                            Set::TableBytes(n));
      row.bits_per_url =
          8.0 * static_cast<double>(row.bytes_own) / static_cast<double>(n);
      row.bytes_rss = kNaN;
      row.note = absl::StrFormat(
          "extrapolated from n=%d: predicted peak %.3g bytes > --memory-cap",
          base->n, peak);
      return row;
    }
  }
  if (context.progress != nullptr)
    context.progress->SetStage(absl::StrFormat("%s n=%d", Set::kName, n));

  ResultRow row;
  row.family = "exact";
  row.structure = std::string(Set::kName);
  row.n = n;
  row.repeat_share = context.stream.repeat_share;
  ReleaseFreeMemory();
  const uint64_t rss_before = ResidentBytes();
  double insert_seconds = 0;
  uint64_t lost_new = 0;
  bool over_cap = false;
  {
    auto set = std::make_unique<Set>();
    FeedStream(context, n, [&](const UrlBatch& batch) {
      if (over_cap) return;
      const Clock::time_point start = Clock::now();
      for (size_t i = 0; i < batch.size(); ++i) {
        lost_new +=
            !set->Insert(batch.urls()[i], batch.fresh()[i]) && batch.fresh()[i];
      }
      insert_seconds +=
          std::chrono::duration<double>(Clock::now() - start).count();
      row.stream_urls += batch.size();
      // Safety net: stop a structure whose measured growth passes the cap.
      if (Growth(rss_before) > static_cast<double>(context.memory_cap)) {
        over_cap = true;
      }
      if (context.progress != nullptr) context.progress->Advance(batch.size());
    });
    row.bytes_own = set->OwnBytes();
    row.bytes_rss = Growth(rss_before);
    row.collisions = set->collisions();
    row.lost_new = lost_new;
    if (!over_cap) {
      const uint64_t probes = ProbeCount(n, 1e-3);
      double query_seconds = 0;
      FeedProbes(context, probes, [&](const UrlBatch& batch) {
        const Clock::time_point start = Clock::now();
        for (std::string_view url : batch.urls())
          row.false_positives += set->Contains(url);
        query_seconds +=
            std::chrono::duration<double>(Clock::now() - start).count();
        if (context.progress != nullptr)
          context.progress->Advance(batch.size());
      });
      row.probes = probes;
      row.query_ns = 1e9 * query_seconds / static_cast<double>(probes);
      row.fpr_measured = static_cast<double>(row.false_positives) /
                         static_cast<double>(probes);
    }
  }
  ReleaseFreeMemory();
  if (over_cap) {
    row.n = 0;  // Not a valid measurement at n; report it as extrapolated from
                // the last one.
    if (base != nullptr) return Extrapolate(*base, n, context);
    row.note = "stopped: RSS growth passed --memory-cap";
    return row;
  }
  row.bits_per_url =
      8.0 * static_cast<double>(row.bytes_own) / static_cast<double>(n);
  row.insert_ns = 1e9 * insert_seconds / static_cast<double>(row.stream_urls);
  row.estimated_count = kNaN;
  return row;
}

}  // namespace

std::vector<ResultRow> MeasureExactSets(
    const MeasureContext& context, uint64_t n,
    const std::vector<ResultRow>& previous) {
  return {MeasureOne<StdUnorderedSet>(context, n, previous),
          MeasureOne<AbslStringSet>(context, n, previous),
          MeasureOne<FingerprintSet>(context, n, previous)};
}

}  // namespace sieve::study
