// Parsing of `sieve study`'s flag values (see study_command.h).
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "crawler/study/study_command.h"

namespace sieve::study {
namespace {

// This Abseil build has its own string_view type: convert at the boundary.
absl::string_view A(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
std::string_view S(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}

// Integers up to 2^53 are exact in a double, so "1e9" style values round-trip.
constexpr double kMaxExactInteger = 9007199254740992.0;

absl::StatusOr<double> ParseNumber(absl::string_view text,
                                   absl::string_view what) {
  double value = 0;
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(text), &value) ||
      !std::isfinite(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a number: \"", text, "\""));
  }
  return value;
}

}  // namespace

absl::StatusOr<uint64_t> ParseCount(std::string_view text) {
  absl::StatusOr<double> value = ParseNumber(A(text), "count");
  if (!value.ok()) return value.status();
  if (*value < 0 || *value > kMaxExactInteger || std::floor(*value) != *value) {
    return absl::InvalidArgumentError(absl::StrCat(
        "count: \"", A(text), "\" is not a whole number in [0, 2^53]"));
  }
  return static_cast<uint64_t>(*value);
}

absl::StatusOr<uint64_t> ParseByteSize(std::string_view text) {
  // Optional "B", then optional "i", then an optional K/M/G/T multiplier
  // (binary: K = 1024).
  const std::string lower =
      absl::AsciiStrToLower(absl::StripAsciiWhitespace(A(text)));
  absl::string_view number = lower;
  absl::ConsumeSuffix(&number, "b");
  absl::ConsumeSuffix(&number, "i");
  int shift = 0;
  if (!number.empty()) {
    switch (number.back()) {
      case 'k':
        shift = 10;
        break;
      case 'm':
        shift = 20;
        break;
      case 'g':
        shift = 30;
        break;
      case 't':
        shift = 40;
        break;
      default:
        break;
    }
    if (shift != 0) number.remove_suffix(1);
  }
  absl::StatusOr<double> value = ParseNumber(number, "byte size");
  if (!value.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "byte size: \"", A(text), "\" is not like 16G, 512M, 1024"));
  }
  const double bytes = std::ldexp(*value, shift);
  if (bytes < 0 || bytes > kMaxExactInteger) {
    return absl::InvalidArgumentError(
        absl::StrCat("byte size: \"", A(text), "\" out of range"));
  }
  return static_cast<uint64_t>(bytes);
}

absl::StatusOr<std::vector<double>> ParseFpRates(std::string_view text) {
  std::vector<double> rates;
  for (absl::string_view part :
       absl::StrSplit(A(text), ',', absl::SkipWhitespace())) {
    absl::StatusOr<double> rate = ParseNumber(part, "fp rate");
    if (!rate.ok()) return rate.status();
    if (!(*rate > 0 && *rate < 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("fp rate: ", part, " is outside (0, 1)"));
    }
    rates.push_back(*rate);
  }
  if (rates.empty()) {
    return absl::InvalidArgumentError("fp rates: the list is empty");
  }
  return rates;
}

absl::StatusOr<std::vector<FilterKind>> ParseKinds(std::string_view text) {
  std::vector<FilterKind> kinds;
  absl::flat_hash_set<FilterKind> seen;
  for (absl::string_view part :
       absl::StrSplit(A(text), ',', absl::SkipWhitespace())) {
    absl::StatusOr<FilterKind> kind =
        ParseFilterKind(S(absl::StripAsciiWhitespace(part)));
    if (!kind.ok()) return kind.status();
    if (!seen.insert(*kind).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("kinds: ", part, " is listed twice"));
    }
    kinds.push_back(*kind);
  }
  if (kinds.empty()) {
    return absl::InvalidArgumentError("kinds: the list is empty");
  }
  return kinds;
}

absl::StatusOr<StudyFlags> StudyFlagsFromStrings(
    const StudyFlagStrings& strings) {
  StudyFlags flags;
  if (!strings.max_n.empty()) {
    absl::StatusOr<uint64_t> max_n = ParseCount(strings.max_n);
    if (!max_n.ok()) return max_n.status();
    flags.max_n = *max_n;
  }
  if (flags.max_n < 1000 || flags.max_n > (uint64_t{1} << 39)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max-n: ", flags.max_n, " is outside [1000, 2^39]"));
  }
  if (!strings.fp_rates.empty()) {
    absl::StatusOr<std::vector<double>> rates = ParseFpRates(strings.fp_rates);
    if (!rates.ok()) return rates.status();
    flags.fp_rates = *rates;
  }
  if (!strings.kinds.empty()) {
    absl::StatusOr<std::vector<FilterKind>> kinds = ParseKinds(strings.kinds);
    if (!kinds.ok()) return kinds.status();
    flags.kinds = *kinds;
  }
  if (!strings.memory_cap.empty()) {
    absl::StatusOr<uint64_t> cap = ParseByteSize(strings.memory_cap);
    if (!cap.ok()) return cap.status();
    flags.memory_cap = *cap;
  }
  if (flags.memory_cap < (uint64_t{1} << 20)) {
    return absl::InvalidArgumentError("--memory-cap: less than 1 MiB");
  }
  if (!strings.out.empty()) flags.out = strings.out;
  if (!strings.seed.empty()) {
    absl::StatusOr<uint64_t> seed = ParseCount(strings.seed);
    if (!seed.ok()) return seed.status();
    flags.seed = *seed;
  }
  if (!strings.repeat_share.empty()) {
    absl::StatusOr<double> share =
        ParseNumber(strings.repeat_share, "--repeat-share");
    if (!share.ok()) return share.status();
    flags.repeat_share = *share;
  }
  if (!(flags.repeat_share >= 0 && flags.repeat_share < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--repeat-share: ", flags.repeat_share, " is outside [0, 1)"));
  }
  return flags;
}

}  // namespace sieve::study
