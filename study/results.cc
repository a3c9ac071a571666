#include "study/results.h"

#include <cmath>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace sieve::study {
namespace {

std::string Cell(uint64_t value) {
  return value == kNotApplicable ? std::string() : absl::StrCat(value);
}
std::string Cell(double value) {
  return std::isnan(value) ? std::string() : absl::StrFormat("%.6g", value);
}
std::string Quoted(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  return absl::StrCat("\"", absl::StrReplaceAll(text, {{"\"", "\"\""}}), "\"");
}

}  // namespace

std::vector<std::string> ResultColumns() {
  return {"family",
          "structure",
          "fp_rate",
          "n",
          "stream_urls",
          "bits",
          "hashes",
          "bytes_own",
          "bytes_rss",
          "bits_per_url",
          "bits_per_url_theory",
          "insert_ns",
          "query_ns",
          "probes",
          "false_positives",
          "fpr_measured",
          "fpr_formula",
          "estimated_count",
          "lost_new",
          "collisions",
          "repeat_share",
          "disk_bytes",
          "extrapolated",
          "note"};
}

absl::Status WriteResultsCsv(const std::vector<ResultRow>& rows,
                             const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  out << absl::StrJoin(ResultColumns(), ",") << "\n";
  for (const ResultRow& r : rows) {
    const std::vector<std::string> cells = {r.family,
                                            r.structure,
                                            Cell(r.fp_rate),
                                            Cell(r.n),
                                            Cell(r.stream_urls),
                                            Cell(r.bits),
                                            Cell(r.hashes),
                                            Cell(r.bytes_own),
                                            Cell(r.bytes_rss),
                                            Cell(r.bits_per_url),
                                            Cell(r.bits_per_url_theory),
                                            Cell(r.insert_ns),
                                            Cell(r.query_ns),
                                            Cell(r.probes),
                                            Cell(r.false_positives),
                                            Cell(r.fpr_measured),
                                            Cell(r.fpr_formula),
                                            Cell(r.estimated_count),
                                            Cell(r.lost_new),
                                            Cell(r.collisions),
                                            Cell(r.repeat_share),
                                            Cell(r.disk_bytes),
                                            r.extrapolated ? "1" : "0",
                                            Quoted(r.note)};
    out << absl::StrJoin(cells, ",") << "\n";
  }
  out.close();
  if (!out)
    return absl::DataLossError(absl::StrCat("error while writing ", path));
  return absl::OkStatus();
}

}  // namespace sieve::study
