// The table of `sieve study`'s settings and its value parsers (see
// study_flags.h).
#include "study/study_flags.h"

#include <cmath>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

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

std::vector<FilterKind> KeepingFilterKinds() {
  std::vector<FilterKind> kinds;
  for (FilterKind kind : AllFilterKinds()) {
    if (!FilterKindForgets(kind)) kinds.push_back(kind);
  }
  return kinds;
}

absl::StatusOr<std::vector<FilterKind>> ParseKinds(std::string_view text) {
  std::vector<FilterKind> kinds;
  absl::flat_hash_set<FilterKind> seen;
  for (absl::string_view part :
       absl::StrSplit(A(text), ',', absl::SkipWhitespace())) {
    absl::StatusOr<FilterKind> kind =
        ParseFilterKind(S(absl::StripAsciiWhitespace(part)));
    if (!kind.ok()) return kind.status();
    if (FilterKindForgets(*kind)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "kinds: ", part,
          " forgets keys by design; the grid measures filters that keep "
          "every key"));
    }
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

namespace {

// 1000000000 -> "1e9"; other values as digits.
std::string CountText(uint64_t n) {
  int exponent = 0;
  uint64_t rest = n;
  while (rest >= 10 && rest % 10 == 0) {
    rest /= 10;
    ++exponent;
  }
  return exponent >= 3 ? absl::StrCat(rest, "e", exponent) : absl::StrCat(n);
}

// 17179869184 -> "16G"; sizes that are no whole multiple as bytes.
std::string ByteSizeText(uint64_t bytes) {
  static constexpr std::pair<int, const char*> kUnits[] = {
      {40, "T"}, {30, "G"}, {20, "M"}, {10, "K"}};
  for (const auto& [shift, unit] : kUnits) {
    const uint64_t size = uint64_t{1} << shift;
    if (bytes >= size && bytes % size == 0)
      return absl::StrCat(bytes >> shift, unit);
  }
  return absl::StrCat(bytes);
}

// Stores a parser's value, or returns its error prefixed with the flag.
template <typename T>
absl::Status Store(absl::StatusOr<T> value, std::string_view flag, T& field) {
  if (!value.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", A(flag), ": ", value.status().message()));
  }
  field = *std::move(value);
  return absl::OkStatus();
}

const StudySetting kSettings[] = {
    {"max-n", "N", "largest number of distinct URLs (1e6 style)",
     [](std::string_view text, StudyFlags& f) {
       return Store(ParseCount(text), "max-n", f.max_n);
     },
     [](const StudyFlags& f) { return CountText(f.max_n); }},
    {"fp-rates", "LIST", "filter false-positive rates, comma-separated",
     [](std::string_view text, StudyFlags& f) {
       return Store(ParseFpRates(text), "fp-rates", f.fp_rates);
     },
     [](const StudyFlags& f) { return absl::StrJoin(f.fp_rates, ","); }},
    {"kinds", "LIST", "filter kinds to measure, comma-separated",
     [](std::string_view text, StudyFlags& f) {
       return Store(ParseKinds(text), "kinds", f.kinds);
     },
     [](const StudyFlags& f) {
       return absl::StrJoin(f.kinds, ",", [](std::string* out, FilterKind k) {
         absl::StrAppend(out, A(FilterKindName(k)));
       });
     }},
    {"memory-cap", "BYTES",
     "exact sets past this many bytes are extrapolated (16G style)",
     [](std::string_view text, StudyFlags& f) {
       return Store(ParseByteSize(text), "memory-cap", f.memory_cap);
     },
     [](const StudyFlags& f) { return ByteSizeText(f.memory_cap); }},
    {"out", "DIR", "output directory (created if missing)",
     [](std::string_view text, StudyFlags& f) {
       f.out = std::string(text);
       return absl::OkStatus();
     },
     [](const StudyFlags& f) { return f.out; }},
    {"seed", "N", "seed of the URL stream",
     [](std::string_view text, StudyFlags& f) {
       return Store(ParseCount(text), "seed", f.seed);
     },
     [](const StudyFlags& f) { return absl::StrCat(f.seed); }},
    {"repeat-share", "NUM", "share of the stream that repeats earlier URLs",
     [](std::string_view text, StudyFlags& f) {
       return Store(ParseNumber(A(text), "number"), "repeat-share",
                    f.repeat_share);
     },
     [](const StudyFlags& f) { return absl::StrCat(f.repeat_share); }},
    {"stream-n", "N", "stream chapter: positions fed (0: --max-n)",
     [](std::string_view text, StudyFlags& f) {
       return Store(ParseCount(text), "stream-n", f.stream_n);
     },
     [](const StudyFlags& f) { return CountText(f.stream_n); }},
    {"stream-window", "N",
     "stream chapter: repeats come from the last N distinct URLs (0: "
     "positions/100)",
     [](std::string_view text, StudyFlags& f) {
       return Store(ParseCount(text), "stream-window", f.stream_window);
     },
     [](const StudyFlags& f) { return CountText(f.stream_window); }},
    {"stream-memory", "BYTES",
     "stream chapter: memory of the forgetting filters (0: twice a classic "
     "filter of the window at 1 %)",
     [](std::string_view text, StudyFlags& f) {
       return Store(ParseByteSize(text), "stream-memory", f.stream_memory);
     },
     [](const StudyFlags& f) { return ByteSizeText(f.stream_memory); }},
};

}  // namespace

std::span<const StudySetting> StudySettings() { return kSettings; }

absl::Status ValidateStudyFlags(const StudyFlags& flags) {
  if (flags.max_n < 1000 || flags.max_n > (uint64_t{1} << 39)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max-n: ", flags.max_n, " is outside [1000, 2^39]"));
  }
  if (flags.fp_rates.empty()) {
    return absl::InvalidArgumentError("--fp-rates: the list is empty");
  }
  for (double p : flags.fp_rates) {
    if (!(p > 0 && p < 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--fp-rates: ", p, " is outside (0, 1)"));
    }
  }
  if (flags.kinds.empty()) {
    return absl::InvalidArgumentError("--kinds: the list is empty");
  }
  if (flags.memory_cap < (uint64_t{1} << 20)) {
    return absl::InvalidArgumentError("--memory-cap: less than 1 MiB");
  }
  if (flags.out.empty()) return absl::InvalidArgumentError("--out: empty");
  if (flags.stream_n != 0 && flags.stream_n < 1000) {
    return absl::InvalidArgumentError("--stream-n: less than 1000");
  }
  if (!(flags.repeat_share >= 0 && flags.repeat_share < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--repeat-share: ", flags.repeat_share, " is outside [0, 1)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<StudyFlags> StudyFlagsFromText(
    std::span<const std::pair<std::string, std::string>> given) {
  StudyFlags flags;
  for (const auto& [name, text] : given) {
    const StudySetting* setting = nullptr;
    for (const StudySetting& s : kSettings) {
      if (s.flag == name) setting = &s;
    }
    if (setting == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    }
    if (absl::Status s = setting->parse(text, flags); !s.ok()) return s;
  }
  if (absl::Status s = ValidateStudyFlags(flags); !s.ok()) return s;
  return flags;
}

std::string StudyCommandLine(const StudyFlags& flags) {
  std::string line = "sieve study";
  for (const StudySetting& s : kSettings) {
    absl::StrAppend(&line, " --", A(s.flag), " ", s.format(flags));
  }
  return line;
}

}  // namespace sieve::study
