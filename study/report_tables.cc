// study/report_tables.cc: the tables of report.md (memory by n,
// filters, exact sets, hashing schemes, the Sieve) and the cell formatting
// that report.cc's prose shares.
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "study/report_internal.h"

namespace sieve::study {
namespace {

// `format` is one printf conversion of a double. snprintf, not
// absl::StrFormat: clang refuses StrFormat with a format known only at run time
// (which the clang fuzz build, scripts/fuzz/run.sh, compiles).
std::string Num(double value, const char* format = "%.3g") {
  if (std::isnan(value)) return "-";
  char cell[64];
  std::snprintf(cell, sizeof(cell), format, value);
  return cell;
}
std::string Count(uint64_t value) {
  return value == kNotApplicable ? std::string("-") : absl::StrCat(value);
}

}  // namespace

namespace internal {

// Decimal units, as the literature quotes them (2.40 GB = 2.40e9 bytes).
std::string HumanBytes(double bytes) {
  if (std::isnan(bytes)) return "-";
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1000 && unit < 4) {
    bytes /= 1000;
    ++unit;
  }
  if (bytes >= 100 || unit == 0)
    return absl::StrFormat("%.0f %s", bytes, units[unit]);
  if (bytes >= 10) return absl::StrFormat("%.1f %s", bytes, units[unit]);
  return absl::StrFormat("%.2f %s", bytes, units[unit]);
}
std::string Rate(double p) { return absl::StrFormat("%g", p); }

std::string SeriesKey(const ResultRow& row) {
  if (std::isnan(row.fp_rate)) return row.structure;
  return absl::StrCat(row.structure, " p=", Rate(row.fp_rate));
}

bool IsGridFamily(const ResultRow& row) {
  return row.family == "filter" || row.family == "exact";
}

std::string Table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& body) {
  std::string out = absl::StrCat("| ", absl::StrJoin(header, " | "), " |\n|");
  for (size_t i = 0; i < header.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& line : body)
    absl::StrAppend(&out, "| ", absl::StrJoin(line, " | "), " |\n");
  return out + "\n";
}

std::string TablesSection(const std::vector<ResultRow>& rows) {
  std::string out;
  // Memory by n.
  std::set<uint64_t> grid;
  std::vector<std::string> keys;
  std::map<std::string, std::map<uint64_t, const ResultRow*>> cells;
  for (const ResultRow& row : rows) {
    if (!IsGridFamily(row)) continue;
    grid.insert(row.n);
    const std::string key = SeriesKey(row);
    if (cells.find(key) == cells.end()) keys.push_back(key);
    cells[key][row.n] = &row;
  }
  std::vector<std::string> header = {"structure"};
  for (uint64_t n : grid)
    header.push_back(absl::StrFormat("n = %.0e", static_cast<double>(n)));
  std::vector<std::vector<std::string>> body;
  for (const std::string& key : keys) {
    std::vector<std::string> line = {key};
    for (uint64_t n : grid) {
      auto it = cells[key].find(n);
      line.push_back(
          it == cells[key].end()
              ? "-"
              : HumanBytes(static_cast<double>(it->second->bytes_own)) +
                    (it->second->extrapolated ? "*" : ""));
    }
    body.push_back(std::move(line));
  }
  absl::StrAppend(&out, "## Memory by n (structure's own count)\n\n",
                  Table(header, body));

  // Filters at each n.
  body.clear();
  for (const ResultRow& r : rows) {
    if (r.family != "filter") continue;
    body.push_back({r.structure, Rate(r.fp_rate), absl::StrCat(r.n),
                    Count(r.bits), Count(r.hashes),
                    HumanBytes(static_cast<double>(r.bytes_own)) +
                        (r.extrapolated ? "*" : ""),
                    HumanBytes(r.bytes_rss), Num(r.bits_per_url, "%.3f"),
                    Num(r.bits_per_url_theory, "%.3f"),
                    Num(r.insert_ns, "%.1f"), Num(r.query_ns, "%.1f"),
                    Num(r.fpr_measured, "%.4g"), Num(r.fpr_formula, "%.4g"),
                    Num(r.estimated_count / static_cast<double>(r.n), "%.4f"),
                    Count(r.lost_new)});
  }
  absl::StrAppend(
      &out,
      "## Filters\n\nbits: m (counters for counting); RSS: memory given back "
      "when "
      "freed; ns per stream URL (batch AddMany) and per probe (batch "
      "MayContainMany); FPR on distinct never-inserted URLs; est/n: "
      "Swamidass-Baldi "
      "count over the true count (scalable: initial capacity n/8); lost new: "
      "new "
      "URLs the filter called seen.\n\n",
      Table({"kind", "p", "n", "bits", "k", "bytes", "RSS", "bits/URL",
             "theory", "insert ns", "query ns", "FPR measured", "FPR formula",
             "est/n", "lost new"},
            body));

  // Exact sets.
  body.clear();
  for (const ResultRow& r : rows) {
    if (r.family != "exact") continue;
    const double n = static_cast<double>(r.n);
    body.push_back({r.structure, absl::StrCat(r.n),
                    HumanBytes(static_cast<double>(r.bytes_own)) +
                        (r.extrapolated ? "*" : ""),
                    HumanBytes(r.bytes_rss), Num(r.bits_per_url, "%.1f"),
                    Num(r.insert_ns, "%.0f"), Num(r.query_ns, "%.0f"),
                    Count(r.collisions),
                    r.structure == "absl_flat_hash_set_xxh3"
                        ? Num(n * n / std::ldexp(1.0, 65), "%.2g")
                        : "-"});
  }
  absl::StrAppend(
      &out,
      "## Exact sets\n\nRSS: growth of the process while building; collisions: "
      "distinct URLs with equal XXH3-64 fingerprints (expected n^2/2^65).\n\n",
      Table({"structure", "n", "bytes", "RSS", "bits/URL", "insert ns",
             "query ns", "collisions", "expected"},
            body));

  // Hashing schemes.
  body.clear();
  for (const ResultRow& r : rows) {
    if (r.family != "hashing" && r.family != "check") continue;
    body.push_back({r.structure, absl::StrCat(r.n), Count(r.bits),
                    Count(r.hashes), Num(r.bits_per_url, "%.2f"),
                    Num(r.fpr_formula, "%.4g"), Num(r.fpr_measured, "%.4g"),
                    Num(r.fpr_measured / r.fpr_formula, "%.2f"),
                    Num(r.insert_ns, "%.0f")});
  }
  absl::StrAppend(
      &out,
      "## Hashing schemes of published articles, at equal m and k\n\n"
      "enhanced_double_multiply_shift: ours (XXH3-128, h1 + i*h2 + (i^3-i)/6, "
      "multiply-shift); "
      "plain_double_mod: h1 + i*h2 mod m from one 128-bit hash split in two (a "
      "Rust crawler "
      "article); seeded_polynomial_mask: seven 32-bit polynomial string hashes "
      "with seeds 5, 7, "
      "11, 13, 31, 37, 61 masked to 2^25 bits (a Java article). "
      "classic_m20n_k10: our classic "
      "filter at m = 20n, k = 10.\n\n",
      Table({"scheme", "n", "m", "k", "bits/URL", "FPR formula", "FPR measured",
             "measured/formula", "insert ns"},
            body));

  // Sieve.
  body.clear();
  for (const ResultRow& r : rows) {
    if (r.family != "sieve") continue;
    body.push_back(
        {r.structure, absl::StrFormat("%.0f %%", 100 * r.repeat_share),
         absl::StrCat(r.n), absl::StrCat(r.stream_urls),
         Num(r.insert_ns, "%.0f"), HumanBytes(static_cast<double>(r.bytes_own)),
         r.disk_bytes == kNotApplicable ? "-" : HumanBytes(r.disk_bytes),
         Count(r.lost_new), absl::StrCat(r.false_positives)});
  }
  absl::StrAppend(
      &out,
      "## The Sieve, plain and lossless (p = 1 %)\n\nLossless "
      "(`verify_positives`): "
      "each \"maybe seen\" of the filter is confirmed against an on-disk "
      "RocksDB "
      "store of 64-bit fingerprints. ns per push include that lookup; disk: "
      "the "
      "store's files after a flush.\n\n",
      Table({"mode", "repeats", "n", "pushes", "ns/push", "filter bytes",
             "disk", "new URLs lost", "false positives caught"},
            body));
  return out;
}

}  // namespace internal
}  // namespace sieve::study
