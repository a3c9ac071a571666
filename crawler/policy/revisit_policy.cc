#include "crawler/policy/revisit_policy.h"

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

// An HTTP date in the IMF-fixdate form servers send (RFC 9110 section
// 5.6.7); nullopt for anything else, the obsolete forms included.
std::optional<absl::Time> ParseHttpDate(const std::string& value) {
  absl::Time t;
  std::string error;
  if (!absl::ParseTime("%a, %d %b %Y %H:%M:%S GMT", value, absl::UTCTimeZone(),
                       &t, &error)) {
    return std::nullopt;
  }
  return t;
}

// The time known to have passed without a change from the date `changed` to
// a fetch `at`: at least half a second, dates having one-second resolution.
absl::Duration FreeSince(absl::Time changed, absl::Time at) {
  return std::max(at - changed, absl::Milliseconds(500));
}

// What `seen` adds to the Last-Modified evidence (revisit_policy.h), given
// the fetch before it (`previous`, with its date `previous_date` as sent) and
// whether the page changed since (nullopt: this is the first fetch).
void NoteDates(UrlHistory& h, const FetchSeen& seen,
               std::optional<bool> changed, absl::Time previous,
               const std::string& previous_date) {
  if (h.dates_unreliable) return;
  if (changed.has_value() && !*changed) {
    // Unchanged: no change from the last fetch to this one, unless the
    // server sent a new date for the same bytes.
    if (!seen.not_modified && seen.last_modified != previous_date) {
      h.dates_unreliable = true;
      return;
    }
    h.change_free += seen.at - previous;
    return;
  }
  const std::optional<absl::Time> date = ParseHttpDate(seen.last_modified);
  // A changed page must carry a date after the last fetch (within the
  // dates' one second).
  if (!date || (changed.has_value() && *date <= previous - absl::Seconds(1))) {
    h.dates_unreliable = true;
    return;
  }
  ++h.dated_changes;
  h.change_free += FreeSince(*date, seen.at);
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
  const absl::Time previous = h.last_fetch;
  const std::string previous_date = h.last_modified;
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
  NoteDates(h, seen, changed, previous, previous_date);
  return changed;
}

std::optional<double> EstimateChangeRate(const UrlHistory& h) {
  if (!h.dates_unreliable && h.dated_changes > 0 &&
      h.change_free > absl::ZeroDuration()) {
    // The median of Gamma(k, T) (Choi 1994), see the header.
    const double k = h.dated_changes;
    return (k - 1.0 / 3 + 8.0 / (405 * k)) /
           absl::ToDoubleSeconds(h.change_free);
  }
  if (h.fetches < 2) return std::nullopt;
  // Cho & Garcia-Molina (2003), 4.1: n revisits at a mean interval I, X of
  // them found a change.
  const double n = h.fetches - 1;
  const double x = h.changes;
  const double mean = absl::ToDoubleSeconds(h.last_fetch - h.first_fetch) / n;
  if (!(mean > 0)) return std::nullopt;
  return -std::log((n - x + 0.5) / (n + 0.5)) / mean;
}

absl::Duration NextInterval(const RevisitOptions& o, const UrlHistory& h,
                            const RevisitBudget& budget) {
  if (o.mode != RevisitMode::kAdaptive) return Bound(o, o.min);
  const std::optional<double> rate = EstimateChangeRate(h);
  // Nothing to estimate from yet: the middle of [min, max] on a log scale,
  // as far (in ratio) from a page changing at min as from one at max.
  if (!rate) return Bound(o, o.min * std::sqrt(o.max / o.min));
  return Bound(o, budget.Interval(h.host, *rate));
}

absl::Time NextDue(const RevisitOptions& o, const UrlHistory& h,
                   const RevisitBudget& budget, absl::Time now,
                   absl::BitGenRef gen) {
  const double factor =
      o.jitter > 0 ? absl::Uniform(gen, 1 - o.jitter, 1 + o.jitter) : 1.0;
  const absl::Duration interval = Bound(o, NextInterval(o, h, budget) * factor);
  return std::max(h.last_fetch + interval, now);
}

}  // namespace sieve
