#include "crawler/crawl/link_policy.h"

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
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

namespace {

// The links one page may still add: the distinct in-scope URLs seen so far.
struct OutlinkCap {
  size_t limit = 0;  // 0 = no limit.
  absl::flat_hash_set<std::string> taken;
};

// A link that passed every rule but the Sieve's: what goes to the Frontier.
struct Candidate {
  std::string url;  // Normalised.
  std::string host;
  std::string path_and_query;
  bool trap_counted = false;  // TrapGuard::Queued must see it once queued.
};

// Every rule of the policy but the Sieve's: the outcome when one refuses the
// link, else kQueued with `*out` filled in.
AddOutcome Vet(const LinkPolicy& policy, std::string_view raw_url,
               uint32_t depth, OutlinkCap* cap, bool* session_id,
               Candidate* out) {
  if (policy.max_depth > 0 && depth > policy.max_depth)
    return AddOutcome::kBeyondDepth;
  absl::StatusOr<UrlParts> parts =
      NormalizeDiscovered(policy, raw_url, session_id);
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
  // The cap counts distinct in-scope URLs: a link repeated on the page (an
  // index with one entry per anchor) or an off-site link costs nothing.
  if (cap != nullptr && cap->limit > 0 &&
      !cap->taken.contains(parts->normalized_url)) {
    if (cap->taken.size() >= cap->limit) return AddOutcome::kOverOutlinkCap;
    cap->taken.insert(parts->normalized_url);
  }
  std::string host = parts->Authority();
  bool trap_counted = false;
  if (policy.traps != nullptr) {
    switch (policy.traps->Admit(host, parts->path_and_query, &trap_counted)) {
      case TrapKind::kNone:
        break;
      case TrapKind::kQueryVariants:
        return AddOutcome::kQueryVariants;
      case TrapKind::kCalendar:
        return AddOutcome::kCalendar;
    }
  }
  if (std::optional<bool> allowed = policy.robots->Allowed(
          RobotsCache::Key(parts->scheme, parts->host, parts->port),
          parts->path_and_query);
      allowed.has_value() && !*allowed) {
    return AddOutcome::kDisallowed;
  }
  *out = Candidate{.url = std::move(parts->normalized_url),
                   .host = std::move(host),
                   .path_and_query = std::move(parts->path_and_query),
                   .trap_counted = trap_counted};
  return AddOutcome::kQueued;
}

// Hands one vetted link to the Frontier.
AddOutcome AddCandidate(const LinkPolicy& policy, const Candidate& c,
                        uint32_t depth, std::string_view metadata) {
  if (!policy.frontier->Add(c.url, c.host, depth, metadata)) {
    return AddOutcome::kSeen;
  }
  if (c.trap_counted) policy.traps->Queued(c.host, c.path_and_query);
  return AddOutcome::kQueued;
}

AddOutcome AddCapped(const LinkPolicy& policy, std::string_view raw_url,
                     uint32_t depth, const Origin& origin, OutlinkCap* cap,
                     bool* session_id) {
  Candidate candidate;
  const AddOutcome vetted =
      Vet(policy, raw_url, depth, cap, session_id, &candidate);
  if (vetted != AddOutcome::kQueued) return vetted;
  return AddCandidate(policy, candidate, depth, origin.Encode());
}

}  // namespace

void LinkOutcomes::Count(AddOutcome outcome) {
  switch (outcome) {
    case AddOutcome::kQueued:
      ++queued;
      break;
    case AddOutcome::kSeen:
    case AddOutcome::kInvalid:
      break;
    case AddOutcome::kOffSite:
      ++off_site;
      break;
    case AddOutcome::kFiltered:
      ++filtered;
      break;
    case AddOutcome::kTrap:
    case AddOutcome::kOverOutlinkCap:
      ++traps;
      break;
    case AddOutcome::kQueryVariants:
      ++traps;
      ++query_variant_traps;
      break;
    case AddOutcome::kCalendar:
      ++traps;
      ++calendar_traps;
      break;
    case AddOutcome::kBeyondDepth:
      ++beyond_depth;
      break;
    case AddOutcome::kDisallowed:
      ++disallowed;
      break;
  }
}

absl::StatusOr<UrlParts> NormalizeDiscovered(const LinkPolicy& policy,
                                             std::string_view raw_url,
                                             bool* session_id) {
  std::optional<std::string> stripped = TrapGuard::StripPathSessionId(raw_url);
  const std::string_view url = stripped ? *stripped : raw_url;
  if (session_id != nullptr) {
    *session_id = stripped.has_value() ||
                  TrapGuard::HasSessionIdParam(url, policy.session_id_params);
  }
  return SplitUrl(url, policy.url_options);
}

AddOutcome AddDiscovered(const LinkPolicy& policy, std::string_view url,
                         uint32_t depth, const Origin& origin) {
  return AddCapped(policy, url, depth, origin, nullptr, nullptr);
}

PageLinks ProcessHtmlPage(const LinkPolicy& policy,
                          const FetchResponse& response, uint32_t depth) {
  PageLinks out;
  const std::string& base =
      response.effective_url.empty() ? response.url : response.effective_url;
  // Links are resolved keeping session-ID parameters, so Vet can count
  // them before its SplitUrl (with policy.url_options) drops them.
  UrlOptions resolve = policy.url_options;
  std::erase_if(resolve.drop_query_params, [&](const std::string& pattern) {
    return std::find(policy.session_id_params.begin(),
                     policy.session_id_params.end(),
                     pattern) != policy.session_id_params.end();
  });
  const LinkOptions options{.html_parser = policy.html_parser,
                            .url = std::move(resolve),
                            .robots_name = policy.robots_name};
  ExtractedLinks page =
      ExtractLinks(response.body, base, response.headers.content_type,
                   response.headers.x_robots_tag, options);
  out.nofollow_page = page.nofollow;
  out.noindex_page = page.noindex;
  const std::string metadata =
      Origin{.redirect_hops = 0, .referrer = response.url}.Encode();
  OutlinkCap cap{.limit = policy.max_outlinks, .taken = {}};
  // The page's links go to the Frontier in one AddMany (one lock, one filter
  // batch), but for those the trap guard counts: each of those is added at
  // once, so a page's own variants count against the cap as they come.
  std::vector<Candidate> batch;
  Candidate candidate;
  for (const Link& link : page.links) {
    if (!IsFollowable(link)) continue;
    ++out.found;
    if (policy.obey_nofollow && (page.nofollow || link.nofollow)) {
      ++out.nofollow_links;
      continue;
    }
    bool session_id = false;
    AddOutcome outcome =
        Vet(policy, link.url, depth + 1, &cap, &session_id, &candidate);
    if (session_id) ++out.session_ids;
    if (outcome == AddOutcome::kQueued) {
      if (!candidate.trap_counted) {
        batch.push_back(std::move(candidate));
        continue;
      }
      outcome = AddCandidate(policy, candidate, depth + 1, metadata);
    }
    out.Count(outcome);
  }
  std::vector<FrontierAdd> adds;
  adds.reserve(batch.size());
  for (const Candidate& c : batch) {
    adds.push_back({.url = c.url,
                    .host = c.host,
                    .depth = depth + 1,
                    .metadata = metadata});
  }
  std::unique_ptr<bool[]> queued(new bool[adds.size()]);
  policy.frontier->AddMany(adds, std::span<bool>(queued.get(), adds.size()));
  for (size_t i = 0; i < adds.size(); ++i) {
    out.Count(queued[i] ? AddOutcome::kQueued : AddOutcome::kSeen);
  }
  return out;
}

}  // namespace sieve
