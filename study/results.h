// study/results.h: one measured (or extrapolated) data point of `sieve
// study`, and the results.csv it becomes.
//
// One ResultRow per (structure, target FPR, n). Fields that do not apply to a
// structure are NaN (doubles) or kNotApplicable (integers) and are written as
// empty CSV cells.
//
// Example:
//   std::vector<ResultRow> rows = ...;
//   absl::Status s = WriteResultsCsv(rows, "study-out/results.csv");
#ifndef SIEVE_STUDY_RESULTS_H_
#define SIEVE_STUDY_RESULTS_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace sieve::study {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr uint64_t kNotApplicable = std::numeric_limits<uint64_t>::max();

struct ResultRow {
  // "filter" (the filter module's kinds), "exact" (hash sets), "hashing" (index
  // schemes of published articles at equal m and k), "sieve" (the frontier's
  // Sieve, plain and lossless), "check" (a literature figure reproduced).
  std::string family;
  // classic, blocked, counting, scalable, std_unordered_set,
  // absl_flat_hash_set_string, absl_flat_hash_set_xxh3, ...
  std::string structure;
  double fp_rate = kNaN;           // Target false-positive rate (filters).
  uint64_t n = 0;                  // Distinct URLs inserted.
  uint64_t stream_urls = 0;        // URLs pushed including repeats.
  uint64_t bits = kNotApplicable;  // m: bits (counters for the counting kind).
  uint64_t hashes = kNotApplicable;  // k.
  uint64_t bytes_own = 0;            // The structure's own count of its bytes.
  double bytes_rss = kNaN;           // Measured RSS growth over the build.
  double bits_per_url = kNaN;        // 8 * bytes_own / n.
  double bits_per_url_theory =
      kNaN;                 // -ln p / (ln 2)^2 for the classic filter.
  double insert_ns = kNaN;  // Per stream URL (batch API for filters).
  double query_ns = kNaN;   // Per probe URL.
  uint64_t probes = 0;      // Distinct never-inserted URLs queried.
  uint64_t false_positives = 0;
  double fpr_measured = kNaN;
  double fpr_formula = kNaN;      // The kind's own formula at its m, k and n.
  double estimated_count = kNaN;  // The filter's Swamidass-Baldi estimate.
  uint64_t lost_new =
      kNotApplicable;  // Fresh URLs the structure called "seen".
  uint64_t collisions =
      kNotApplicable;  // Fingerprint set: distinct URLs, same fingerprint.
  double repeat_share = kNaN;
  uint64_t disk_bytes =
      kNotApplicable;  // Lossless Sieve: its fingerprint store on disk.
  bool extrapolated =
      false;  // Not measured: scaled from the largest measured n.
  std::string note;
};

// The CSV header line's column names, in order.
std::vector<std::string> ResultColumns();

// Writes `rows` as CSV (RFC 4180 quoting for notes) to `path`, replacing it.
[[nodiscard]] absl::Status WriteResultsCsv(const std::vector<ResultRow>& rows,
                                           const std::string& path);

}  // namespace sieve::study

#endif  // SIEVE_STUDY_RESULTS_H_
