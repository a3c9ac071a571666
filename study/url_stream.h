// study/url_stream.h: a deterministic stream of realistic URLs for
// `sieve study`.
//
// The stream looks like what a crawler's frontier sees: hosts whose sizes
// follow a Zipf law (a few big sites, a long tail), paths 0-7 directories deep
// drawn from a per-host vocabulary, a unique page name, query strings on about
// a third of the URLs, and a configurable share of repeats (URLs already
// emitted, which a dedup structure must reject).
//
// Surprises first:
//   - Everything is a pure function of (seed, position): two streams with the
//     same options emit the same bytes on every machine (no std::hash, no std::
//     distributions).
//   - Fresh URL number i is distinct from every other fresh URL by construction
//     (its page name is a bijection of i), so "distinct" is exact, not
//     probable.
//   - ProbeUrl(i) URLs come from a disjoint index range: they are never emitted
//     by the stream, so a filter that answers "maybe" for one of them made a
//     false positive.
//
// Example:
//   sieve::study::UrlStream stream({.seed = 42, .repeat_share = 0.1});
//   sieve::study::UrlBatch batch;
//   while (stream.fresh_count() < 1'000'000) {
//     stream.NextBatch(4096, 1'000'000, &batch);
//     for (std::string_view url : batch.urls()) { ... }
//   }
#ifndef SIEVE_STUDY_URL_STREAM_H_
#define SIEVE_STUDY_URL_STREAM_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sieve::study {

struct UrlStreamOptions {
  // Seeds every choice. Default: 42.
  uint64_t seed = 42;
  // Probability that a stream position repeats an earlier URL (uniformly chosen
  // among the fresh URLs emitted so far, or the last `repeat_window` of them).
  // REQUIRES: 0 <= repeat_share < 1. Default: 0.1.
  double repeat_share = 0.1;
  // Repeats come from the last this many fresh URLs; 0: from all of them.
  // Default: 0.
  uint64_t repeat_window = 0;
  // Number of distinct hosts. REQUIRES: >= 1. Default: 2^20.
  uint64_t host_count = uint64_t{1} << 20;
  // Zipf exponent s of host sizes: P(rank r) ~ r^-s. REQUIRES: > 0.
  // Default: 1.0.
  double zipf_exponent = 1.0;
};

// URLs in one contiguous arena, views valid until the next fill. Reused to
// avoid allocations.
class UrlBatch {
 public:
  void Clear();
  // Appends a URL built by `build(std::string*)`, which appends its bytes to
  // the arena.
  template <typename Build>
  void Add(Build&& build, bool fresh) {
    build(&arena_);
    ends_.push_back(arena_.size());
    fresh_.push_back(fresh);
  }
  // Rebuilds the views after the last Add; call before urls().
  void Seal();

  const std::vector<std::string_view>& urls() const { return views_; }
  // fresh()[i]: urls()[i] was emitted for the first time.
  const std::vector<bool>& fresh() const { return fresh_; }
  size_t size() const { return ends_.size(); }
  uint64_t bytes() const { return arena_.size(); }

 private:
  std::string arena_;
  std::vector<size_t> ends_;
  std::vector<bool> fresh_;
  std::vector<std::string_view> views_;
};

class UrlStream {
 public:
  explicit UrlStream(const UrlStreamOptions& options);

  // Appends the next stream URL to `url` (which is cleared first); returns true
  // when it is fresh.
  bool Next(std::string* url);
  // The same, also giving the URL's fresh index (AppendFreshUrl's `index`).
  bool Next(std::string* url, uint64_t* index);
  // Fills `batch` with up to `max_urls` next stream URLs, stopping early once
  // fresh_count() reaches `fresh_limit` (repeats do not count). Cost: ~100-200
  // ns per URL.
  void NextBatch(size_t max_urls, uint64_t fresh_limit, UrlBatch* batch);

  // Appends fresh URL number `index` (REQUIRES: index < 2^39) to `out`.
  void AppendFreshUrl(uint64_t index, std::string* out) const;
  // Appends probe URL number `index`: distinct from each other and from every
  // stream URL.
  void AppendProbeUrl(uint64_t index, std::string* out) const;
  // Fills `batch` with probe URLs [first, first + count).
  void ProbeBatch(uint64_t first, size_t count, UrlBatch* batch) const;

  // Fresh URLs emitted so far (the number of distinct URLs seen by a consumer).
  uint64_t fresh_count() const { return fresh_count_; }
  // Stream positions emitted so far (fresh + repeats).
  uint64_t position() const { return position_; }

 private:
  // Returns whether the URL at the current position is fresh, and its fresh
  // index.
  bool Step(uint64_t* index);

  UrlStreamOptions options_;
  uint64_t fresh_count_ = 0;
  uint64_t position_ = 0;
};

}  // namespace sieve::study

#endif  // SIEVE_STUDY_URL_STREAM_H_
