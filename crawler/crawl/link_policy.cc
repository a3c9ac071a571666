#include "crawler/crawl/link_policy.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "parse/link_extractor.h"

namespace sieve {
namespace {

absl::string_view AV(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

// Links that lead to pages: not stylesheets, icons or preloads.
bool IsFollowable(const Link& link) {
  if (link.kind != LinkKind::kLink) return true;
  return link.HasRel("canonical") || link.HasRel("alternate") ||
         link.HasRel("next") || link.HasRel("prev");
}

}  // namespace

std::string Origin::Encode() const {
  std::string first = absl::StrCat(redirect_hops);
  if (sitemap) {
    absl::StrAppend(&first, ",s", sitemap_nesting, from_robots ? "r" : "");
  }
  // A lastmod is a W3C datetime; anything with a separator in it is dropped.
  if (!lastmod.empty() && lastmod.find_first_of(" ,") == std::string::npos) {
    absl::StrAppend(&first, ",m", lastmod);
  }
  return absl::StrCat(first, " ", referrer);
}

Origin Origin::Decode(std::string_view metadata) {
  Origin origin;
  size_t space = metadata.find(' ');
  if (space == std::string_view::npos) return origin;
  bool first_part = true;
  for (absl::string_view part :
       absl::StrSplit(AV(metadata.substr(0, space)), ',')) {
    if (first_part) {
      if (!absl::SimpleAtoi(part, &origin.redirect_hops)) {
        origin.redirect_hops = 0;
      }
      first_part = false;
    } else if (absl::ConsumePrefix(&part, "s")) {
      origin.sitemap = true;
      origin.from_robots = absl::ConsumeSuffix(&part, "r");
      if (!absl::SimpleAtoi(part, &origin.sitemap_nesting)) {
        origin.sitemap_nesting = 0;
      }
    } else if (absl::ConsumePrefix(&part, "m")) {
      origin.lastmod = std::string(part);
    }
  }
  origin.referrer = std::string(metadata.substr(space + 1));
  return origin;
}

bool IsHtml(std::string_view content_type) {
  std::string type =
      absl::AsciiStrToLower(AV(content_type.substr(0, content_type.find(';'))));
  absl::string_view t = absl::StripAsciiWhitespace(type);
  return t == "text/html" || t == "application/xhtml+xml";
}

AddOutcome AddDiscovered(const LinkPolicy& policy, std::string_view url,
                         uint32_t depth, const Origin& origin) {
  if (policy.max_depth > 0 && depth > policy.max_depth)
    return AddOutcome::kBeyondDepth;
  absl::StatusOr<UrlParts> parts = SplitUrl(url, policy.url_options);
  if (!parts.ok()) return AddOutcome::kInvalid;
  switch (policy.scope->Check(*parts)) {
    case ScopeVerdict::kInScope:
      break;
    case ScopeVerdict::kOffSite:
      return AddOutcome::kOffSite;
    case ScopeVerdict::kNotAllowed:
    case ScopeVerdict::kDenied:
      return AddOutcome::kFiltered;
    case ScopeVerdict::kTooLong:
    case ScopeVerdict::kRepeatedPath:
      return AddOutcome::kTrap;
  }
  const std::string host = parts->Authority();
  if (std::optional<bool> allowed = policy.robots->Allowed(
          RobotsCache::Key(parts->scheme, parts->host, parts->port),
          parts->path_and_query);
      allowed.has_value() && !*allowed) {
    return AddOutcome::kDisallowed;
  }
  return policy.frontier->Add(parts->normalized_url, host, depth,
                              origin.Encode())
             ? AddOutcome::kQueued
             : AddOutcome::kSeen;
}

PageLinks ProcessHtmlPage(const LinkPolicy& policy,
                          const FetchResponse& response, uint32_t depth) {
  PageLinks out;
  const std::string& base =
      response.effective_url.empty() ? response.url : response.effective_url;
  const LinkOptions options{.url = policy.url_options,
                            .robots_name = policy.robots_name};
  ExtractedLinks page =
      ExtractLinks(response.body, base, response.headers.content_type,
                   response.headers.x_robots_tag, options);
  out.nofollow_page = page.nofollow;
  out.noindex_page = page.noindex;
  const Origin origin{.redirect_hops = 0, .referrer = response.url};
  for (const Link& link : page.links) {
    if (!IsFollowable(link)) continue;
    ++out.found;
    if (policy.obey_nofollow && (page.nofollow || link.nofollow)) {
      ++out.nofollow_links;
      continue;
    }
    if (policy.max_outlinks > 0 &&
        static_cast<size_t>(out.found -
                            static_cast<int64_t>(out.nofollow_links)) >
            policy.max_outlinks) {
      ++out.traps;
      continue;
    }
    switch (AddDiscovered(policy, link.url, depth + 1, origin)) {
      case AddOutcome::kQueued:
        ++out.queued;
        break;
      case AddOutcome::kSeen:
      case AddOutcome::kInvalid:
        break;
      case AddOutcome::kOffSite:
        ++out.off_site;
        break;
      case AddOutcome::kFiltered:
        ++out.filtered;
        break;
      case AddOutcome::kTrap:
        ++out.traps;
        break;
      case AddOutcome::kBeyondDepth:
        ++out.beyond_depth;
        break;
      case AddOutcome::kDisallowed:
        ++out.disallowed;
        break;
    }
  }
  return out;
}

}  // namespace sieve
