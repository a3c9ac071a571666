// crawler/config/enum_fields.h: the settings whose value is one of a closed
// set of names (crawl.scope, politeness.key, ...), as EnumFields of the
// settings table (config_keys.h), each made by one template from the owning
// module's Name, Parse and All functions, so every enum setting reads, writes
// and lists its names the same way.
//
// Example (a new enum setting is one line):
//   inline constexpr EnumField kScopeField =
//       EnumFieldOf<&CrawlConfig::crawl, &CrawlConfig::Crawl::scope,
//                   &ScopeModeName, &ParseScopeMode, &AllScopeModes>();
#ifndef SIEVE_CRAWLER_CONFIG_ENUM_FIELDS_H_
#define SIEVE_CRAWLER_CONFIG_ENUM_FIELDS_H_

#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "crawler/config/config_keys.h"
#include "crawler/config/crawl_config.h"
#include "filter/filter.h"
#include "parse/link_extractor.h"

namespace sieve {

// The EnumField of `config.*Table.*Member`, by the names of `Name`, parsed by
// `Parse` (whose error names the accepted values) and listed by `All`. A
// std::string member (sieve.filter) holds the name the parser accepted, in
// its canonical spelling.
template <auto Table, auto Member, auto Name, auto Parse, auto All>
constexpr EnumField EnumFieldOf() {
  return {.get =
              [](const CrawlConfig& c) {
                const auto& value = c.*Table.*Member;
                if constexpr (std::is_same_v<std::decay_t<decltype(value)>,
                                             std::string>) {
                  return value;
                } else {
                  return std::string(Name(value));
                }
              },
          .set = [](CrawlConfig& c, std::string_view name) -> absl::Status {
            auto parsed = Parse(name);
            if (!parsed.ok()) return parsed.status();
            auto& value = c.*Table.*Member;
            if constexpr (std::is_same_v<std::decay_t<decltype(value)>,
                                         std::string>) {
              value = std::string(Name(*parsed));
            } else {
              value = *parsed;
            }
            return absl::OkStatus();
          },
          .names =
              [] {
                std::vector<std::string> names;
                for (auto v : All()) names.emplace_back(Name(v));
                return names;
              }};
}

namespace config_internal {
inline std::span<const HtmlParser> AllHtmlParsers() {
  static constexpr HtmlParser kAll[] = {HtmlParser::kTokenizer,
                                        HtmlParser::kGumbo};
  return kAll;
}
}  // namespace config_internal

inline constexpr EnumField kScopeField =
    EnumFieldOf<&CrawlConfig::crawl, &CrawlConfig::Crawl::scope, &ScopeModeName,
                &ParseScopeMode, &AllScopeModes>();
inline constexpr EnumField kSitemapsField =
    EnumFieldOf<&CrawlConfig::crawl, &CrawlConfig::Crawl::sitemaps,
                &SitemapSourceName, &ParseSitemapSource, &AllSitemapSources>();
inline constexpr EnumField kSitemapLocationField =
    EnumFieldOf<&CrawlConfig::crawl, &CrawlConfig::Crawl::sitemap_location,
                &SitemapLocationRuleName, &ParseSitemapLocationRule,
                &AllSitemapLocationRules>();
inline constexpr EnumField kRevisitField =
    EnumFieldOf<&CrawlConfig::crawl, &CrawlConfig::Crawl::revisit,
                &RevisitModeName, &ParseRevisitMode, &AllRevisitModes>();
inline constexpr EnumField kHtmlParserField =
    EnumFieldOf<&CrawlConfig::parse, &CrawlConfig::Parse::html_parser,
                &HtmlParserName, &ParseHtmlParser,
                &config_internal::AllHtmlParsers>();
inline constexpr EnumField kPolitenessKeyField =
    EnumFieldOf<&CrawlConfig::politeness, &CrawlConfig::Politeness::key,
                &PolitenessKeyName, &ParsePolitenessKey, &AllPolitenessKeys>();
inline constexpr EnumField kFilterField =
    EnumFieldOf<&CrawlConfig::sieve, &CrawlConfig::SieveSettings::filter,
                &FilterKindName, &ParseFilterKind, &AllFilterKinds>();
inline constexpr EnumField kCapacityField =
    EnumFieldOf<&CrawlConfig::sieve, &CrawlConfig::SieveSettings::on_capacity,
                &CapacityPolicyName, &ParseCapacityPolicy,
                &AllCapacityPolicies>();
inline constexpr EnumField kRenderModeField =
    EnumFieldOf<&CrawlConfig::render, &CrawlConfig::Render::mode,
                &RenderModeName, &ParseRenderMode, &AllRenderModes>();

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CONFIG_ENUM_FIELDS_H_
