// study/report_internal.h: pieces of report.md shared by report.cc
// (the plots, the literature and findings prose, the writer) and
// report_tables.cc (the tables). Private to study/: report.h is the
// public API.
#ifndef SIEVE_STUDY_REPORT_INTERNAL_H_
#define SIEVE_STUDY_REPORT_INTERNAL_H_

#include <string>
#include <vector>

#include "study/results.h"

namespace sieve::study::internal {

// Bytes in decimal units, as the literature quotes them (2.40 GB = 2.40e9
// bytes); "-" for NaN.
std::string HumanBytes(double bytes);
// A false-positive rate as "%g": 0.01, 0.0001.
std::string Rate(double p);
// The row's series: its structure, with " p=<rate>" for filters.
std::string SeriesKey(const ResultRow& row);
// Filters and exact sets: the families measured on the grid of n.
bool IsGridFamily(const ResultRow& row);
// A Markdown table, followed by a blank line.
std::string Table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& body);

// The tables section of report.md: memory by n, filters, exact sets, hashing
// schemes, the Sieve.
std::string TablesSection(const std::vector<ResultRow>& rows);

}  // namespace sieve::study::internal

#endif  // SIEVE_STUDY_REPORT_INTERNAL_H_
