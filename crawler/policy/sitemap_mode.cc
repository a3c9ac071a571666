#include "crawler/policy/sitemap_mode.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace sieve {
namespace {

// The one lookup both enums share: `name` among `all`, by `name_of`.
template <typename T, typename NameOf>
absl::StatusOr<T> ParseByName(std::string_view name, std::span<const T> all,
                              NameOf name_of) {
  std::string names;
  for (T value : all) {
    if (name == name_of(value)) return value;
    absl::StrAppend(&names, names.empty() ? "" : ", ",
                    std::string(name_of(value)));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "must be one of ", names, "; got \"", std::string(name), "\""));
}

}  // namespace

std::span<const SitemapSource> AllSitemapSources() {
  static constexpr SitemapSource kAll[] = {SitemapSource::kOff,
                                           SitemapSource::kRobots,
                                           SitemapSource::kRobotsAndProbe};
  return kAll;
}

std::string_view SitemapSourceName(SitemapSource source) {
  switch (source) {
    case SitemapSource::kOff:
      return "off";
    case SitemapSource::kRobots:
      return "robots";
    case SitemapSource::kRobotsAndProbe:
      return "robots+probe";
  }
  return "unknown";
}

absl::StatusOr<SitemapSource> ParseSitemapSource(std::string_view name) {
  return ParseByName(name, AllSitemapSources(), SitemapSourceName);
}

std::span<const SitemapLocationRule> AllSitemapLocationRules() {
  static constexpr SitemapLocationRule kAll[] = {SitemapLocationRule::kLenient,
                                                 SitemapLocationRule::kStrict};
  return kAll;
}

std::string_view SitemapLocationRuleName(SitemapLocationRule rule) {
  switch (rule) {
    case SitemapLocationRule::kLenient:
      return "lenient";
    case SitemapLocationRule::kStrict:
      return "strict";
  }
  return "unknown";
}

absl::StatusOr<SitemapLocationRule> ParseSitemapLocationRule(
    std::string_view name) {
  return ParseByName(name, AllSitemapLocationRules(), SitemapLocationRuleName);
}

}  // namespace sieve
