#include "crawler/crawl/revisit_policy.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "absl/random/distributions.h"
#include "absl/strings/str_cat.h"

namespace sieve {
namespace {

constexpr std::array<RevisitMode, 3> kModes = {
    RevisitMode::kOff, RevisitMode::kFixed, RevisitMode::kAdaptive};

absl::Duration Bound(const RevisitOptions& o, absl::Duration d) {
  return std::clamp(d, o.min, std::max(o.min, o.max));
}

}  // namespace

std::span<const RevisitMode> AllRevisitModes() { return kModes; }

std::string_view RevisitModeName(RevisitMode mode) {
  switch (mode) {
    case RevisitMode::kOff:
      return "off";
    case RevisitMode::kFixed:
      return "fixed";
    case RevisitMode::kAdaptive:
      return "adaptive";
  }
  return "off";
}

absl::StatusOr<RevisitMode> ParseRevisitMode(std::string_view name) {
  for (RevisitMode m : kModes) {
    if (RevisitModeName(m) == name) return m;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("'", std::string(name), "' is not off, fixed or adaptive"));
}

std::optional<bool> RecordFetch(UrlHistory& h, const FetchSeen& seen) {
  std::optional<bool> changed;
  if (h.fetches == 0) {
    h.first_fetch = seen.at;
    h.last_change = seen.at;
  } else {
    changed = !seen.not_modified && seen.digest != h.digest;
    if (*changed) {
      ++h.changes;
      h.last_change = seen.at;
    }
  }
  ++h.fetches;
  h.last_fetch = seen.at;
  if (!seen.not_modified) {
    h.digest = seen.digest;
    h.etag = seen.etag;
    h.last_modified = seen.last_modified;
  }
  return changed;
}

absl::Duration NextInterval(const RevisitOptions& o, const UrlHistory& h) {
  if (o.mode != RevisitMode::kAdaptive) return Bound(o, o.min);
  // Nothing to estimate from yet: the middle of [min, max] on a log scale,
  // as far (in ratio) from a page changing at min as from one at max.
  if (h.fetches < 2) return Bound(o, o.min * std::sqrt(o.max / o.min));
  // Cho & Garcia-Molina (2003), 4.1: n revisits at a mean interval I, X of
  // them found a change.
  const double n = h.fetches - 1;
  const double x = h.changes;
  const absl::Duration mean = (h.last_fetch - h.first_fetch) / n;
  const double per_interval = -std::log((n - x + 0.5) / (n + 0.5));
  if (per_interval <= 0 || mean <= absl::ZeroDuration()) return Bound(o, o.max);
  return Bound(o, mean / per_interval);
}

absl::Time NextDue(const RevisitOptions& o, const UrlHistory& h, absl::Time now,
                   absl::BitGenRef gen) {
  const double factor =
      o.jitter > 0 ? absl::Uniform(gen, 1 - o.jitter, 1 + o.jitter) : 1.0;
  const absl::Duration interval = Bound(o, NextInterval(o, h) * factor);
  return std::max(h.last_fetch + interval, now);
}

}  // namespace sieve
