// Index schemes of published articles at equal m and k, and the m = 20n, k = 10
// check.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "filter/bloom_filter.h"
#include "filter/bloom_math.h"
#include "study/hashing_schemes.h"
#include "study/measure.h"

namespace sieve::study {
namespace {

using Clock = std::chrono::steady_clock;

// The Java article's table: 2 << 24 = 2^25 bits, 7 seeds.
constexpr uint64_t kArticleBits = uint64_t{1} << 25;
constexpr uint32_t kArticleHashes = 7;
// m/n = 9.59 bits per key gives 1 % at the optimal k = 7 (docs/architecture.md,
// "Formulas").
constexpr double kBitsPerKeyAtOnePercent = 9.585;

}  // namespace

std::vector<ResultRow> MeasureHashingSchemes(const MeasureContext& context,
                                             uint64_t max_n) {
  // The article's m when max_n allows its 1 % load (3.5 * 10^6 keys); else the
  // smallest power of two that puts that load at or under max_n.
  uint64_t bits = kArticleBits;
  while (bits > 4096 && static_cast<double>(bits) / kBitsPerKeyAtOnePercent >
                            static_cast<double>(max_n)) {
    bits /= 2;
  }
  constexpr IndexScheme kSchemes[] = {IndexScheme::kEnhancedDouble,
                                      IndexScheme::kPlainDoubleMod,
                                      IndexScheme::kSeededPolynomial};
  std::vector<ResultRow> rows;
  for (double load : {0.5, 1.0, 2.0}) {
    const uint64_t n = static_cast<uint64_t>(load * static_cast<double>(bits) /
                                             kBitsPerKeyAtOnePercent);
    const double formula = BloomMath::FalsePositiveRate(bits, kArticleHashes,
                                                        static_cast<double>(n));
    // At most 10^6 probes: enough for ~250 false positives at the lowest load.
    const uint64_t probes =
        std::min<uint64_t>(ProbeCount(n, formula), 1'000'000);
    if (context.progress != nullptr) {
      context.progress->SetStage(absl::StrFormat("hashing schemes n=%d", n));
    }
    // The three schemes side by side on one pass of the stream.
    std::vector<SchemeBloomFilter> filters;
    std::vector<ResultRow> group(3);
    std::vector<double> insert_seconds(3, 0), query_seconds(3, 0);
    for (size_t s = 0; s < 3; ++s) {
      filters.emplace_back(kSchemes[s], bits, kArticleHashes);
      ResultRow& row = group[s];
      row.family = "hashing";
      row.structure = std::string(IndexSchemeName(kSchemes[s]));
      row.n = n;
      row.bits = bits;
      row.hashes = kArticleHashes;
      row.bytes_own = filters[s].MemoryBytes();
      row.bits_per_url = static_cast<double>(bits) / static_cast<double>(n);
      row.repeat_share = context.stream.repeat_share;
      row.lost_new = 0;
      row.probes = probes;
      row.fpr_formula = formula;
      row.note = absl::StrFormat("equal m=%d, k=%d (the Java article's table)",
                                 bits, kArticleHashes);
    }
    FeedStream(context, n, [&](const UrlBatch& batch) {
      for (size_t s = 0; s < 3; ++s) {
        const Clock::time_point start = Clock::now();
        for (size_t i = 0; i < batch.size(); ++i) {
          group[s].lost_new +=
              !filters[s].Add(batch.urls()[i]) && batch.fresh()[i];
        }
        insert_seconds[s] +=
            std::chrono::duration<double>(Clock::now() - start).count();
        group[s].stream_urls += batch.size();
      }
      if (context.progress != nullptr) {
        context.progress->Advance(3 * batch.size());
      }
    });
    FeedProbes(context, probes, [&](const UrlBatch& batch) {
      for (size_t s = 0; s < 3; ++s) {
        const Clock::time_point start = Clock::now();
        for (std::string_view url : batch.urls()) {
          group[s].false_positives += filters[s].MayContain(url);
        }
        query_seconds[s] +=
            std::chrono::duration<double>(Clock::now() - start).count();
      }
      if (context.progress != nullptr) {
        context.progress->Advance(3 * batch.size());
      }
    });
    for (size_t s = 0; s < 3; ++s) {
      ResultRow& row = group[s];
      row.insert_ns =
          1e9 * insert_seconds[s] / static_cast<double>(row.stream_urls);
      row.query_ns = 1e9 * query_seconds[s] / static_cast<double>(probes);
      row.fpr_measured = static_cast<double>(row.false_positives) /
                         static_cast<double>(probes);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

absl::StatusOr<ResultRow> MeasureTwentyBitsTenHashes(
    const MeasureContext& context, uint64_t n) {
  absl::StatusOr<BloomFilter> filter =
      BloomFilter::CreateWithSize(20 * n, 10, FilterOptions{.capacity = n});
  if (!filter.ok()) return filter.status();
  if (context.progress != nullptr)
    context.progress->SetStage(absl::StrCat("m=20n k=10 n=", n));
  ResultRow row;
  row.family = "check";
  row.structure = "classic_m20n_k10";
  row.n = n;
  row.bits = filter->bit_count();
  row.hashes = filter->hash_count();
  row.bytes_own = filter->MemoryBytes();
  row.bits_per_url =
      8.0 * static_cast<double>(row.bytes_own) / static_cast<double>(n);
  row.repeat_share = context.stream.repeat_share;
  row.lost_new = 0;
  FeedStream(context, n, [&](const UrlBatch& batch) {
    for (size_t i = 0; i < batch.size(); ++i) {
      row.lost_new += !filter->Add(batch.urls()[i]) && batch.fresh()[i];
    }
    row.stream_urls += batch.size();
    if (context.progress != nullptr) context.progress->Advance(batch.size());
  });
  // 8.9e-5 expected: 4 * 10^6 probes give ~360 false positives (5 % standard
  // error); small studies use 10 n.
  const uint64_t probes = std::clamp<uint64_t>(10 * n, 100'000, 4'000'000);
  FeedProbes(context, probes, [&](const UrlBatch& batch) {
    for (std::string_view url : batch.urls())
      row.false_positives += filter->MayContain(url);
    if (context.progress != nullptr) context.progress->Advance(batch.size());
  });
  row.probes = probes;
  row.fpr_measured =
      static_cast<double>(row.false_positives) / static_cast<double>(probes);
  row.fpr_formula =
      BloomMath::FalsePositiveRate(row.bits, 10, static_cast<double>(n));
  row.estimated_count = filter->EstimatedCount();
  row.note = "Pei Cao's table: m/n = 20, k = 10 -> 8.9e-5";
  return row;
}

}  // namespace sieve::study
