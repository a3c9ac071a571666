#include "crawler/policy/link_policy.h"

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "parse/css_urls.h"
#include "parse/link_extractor.h"

namespace sieve {
namespace {

absl::string_view AV(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

// Links that lead to pages: not stylesheets, icons, preloads or requisites.
bool IsFollowable(const Link& link) {
  if (link.requisite) return false;
  if (link.kind != LinkKind::kLink) return true;
  return link.HasRel("canonical") || link.HasRel("alternate") ||
         link.HasRel("next") || link.HasRel("prev");
}

}  // namespace

namespace {

// The media type of a Content-Type, lower-case, without parameters.
std::string MediaType(std::string_view content_type) {
  std::string type =
      absl::AsciiStrToLower(AV(content_type.substr(0, content_type.find(';'))));
  return std::string(absl::StripAsciiWhitespace(type));
}

}  // namespace

bool IsHtml(std::string_view content_type) {
  const std::string t = MediaType(content_type);
  return t == "text/html" || t == "application/xhtml+xml";
}

bool IsCss(std::string_view content_type) {
  return MediaType(content_type) == "text/css";
}

namespace {

// The links one page may still add: the distinct in-scope URLs seen so far.
struct OutlinkCap {
  size_t limit = 0;  // 0 = no limit.
  absl::flat_hash_set<std::string> taken;
};

// A link that passed every rule but the Sieve's: what goes to the Frontier.
struct Candidate {
  std::string url;   // Normalised.
  std::string host;  // Authority, for the trap guard.
  std::string key;   // The frontier's host key (politeness.key).
  std::string path_and_query;
  bool trap_counted = false;  // TrapGuard::Queued must see it once queued.
  // Its registrable domain when the domain budget reserved a page for it
  // (given back when the frontier refuses it as seen); else empty.
  std::string budget_domain;
  // The link as the page wrote it when a session ID was cut from it (a
  // repeat then is skipped as trap_session).
  std::string session_url;
};

// robots.txt, when the origin's file is known (else the crawl loop checks it
// before the fetch).
bool RobotsDisallow(const LinkPolicy& policy, const UrlParts& parts) {
  const std::optional<bool> allowed = policy.robots->Allowed(
      RobotsCache::Key(parts.scheme, parts.host, parts.port),
      parts.path_and_query);
  return allowed.has_value() && !*allowed;
}

// NormalizeDiscovered for a link ExtractLinks resolved with the policy's
// UrlOptions but for the session-ID parameters (ProcessHtmlPage): one with no
// session ID is already normal (a fixed point, parse/url.h) unless drop_www
// meets a second "www.", so it is cut instead of parsed again: a tenth of the
// crawl's CPU on rust-doc's pages (docs/benchmarks.md).
absl::StatusOr<UrlParts> NormalizePageLink(const LinkPolicy& policy,
                                           std::string_view url,
                                           bool* session_id) {
  if (!TrapGuard::StripPathSessionId(url) &&
      !TrapGuard::HasSessionIdParam(url, policy.session_id_params)) {
    absl::StatusOr<UrlParts> parts = SplitNormalizedUrl(url);
    if (parts.ok() && !(policy.url_options.drop_www &&
                        absl::StartsWith(parts->host, "www."))) {
      if (session_id != nullptr) *session_id = false;
      return parts;
    }
  }
  return NormalizeDiscovered(policy, url, session_id);
}

// The page a link was found on, for the domain budget: its host and its
// registrable domain (empty when not a page's link, e.g. a redirect).
struct LinkSource {
  std::string_view host;
  std::string_view domain;
  bool seed_domain = false;  // `domain` is a seed's (exempt).
};

// The domain budget's verdict on `parts`: notes the source's domain as a
// referrer of the link's, then reserves a page of it. `*reserved` is the
// domain a page was reserved of (left empty for a seed's domain).
bool DomainAdmits(const LinkPolicy& policy, const UrlParts& parts,
                  const LinkSource& source, std::string* reserved) {
  if (policy.domains == nullptr || !policy.domains->enabled()) return true;
  // A link within its page's host (most links) costs one comparison.
  const bool same_host = !source.host.empty() && parts.host == source.host;
  if (same_host && source.seed_domain) return true;
  std::string domain = same_host ? std::string(source.domain)
                                 : Scope::RegistrableDomain(parts.host);
  if (!source.domain.empty()) policy.domains->NoteLink(source.domain, domain);
  if (same_host ? source.seed_domain : policy.scope->IsSeedDomain(domain))
    return true;
  if (!policy.domains->Admit(domain)) return false;
  *reserved = std::move(domain);
  return true;
}

// Every rule of the policy but the Sieve's: the outcome when one refuses the
// link, else kQueued with `*out` filled in.
// `page_link`: `raw_url` is a link ProcessHtmlPage took from ExtractLinks.
AddOutcome Vet(const LinkPolicy& policy, std::string_view raw_url,
               bool page_link, uint32_t depth, OutlinkCap* cap,
               bool* session_id, const LinkSource& source, Candidate* out) {
  if (policy.max_depth > 0 && depth > policy.max_depth)
    return AddOutcome::kBeyondDepth;
  absl::StatusOr<UrlParts> parts =
      page_link ? NormalizePageLink(policy, raw_url, session_id)
                : NormalizeDiscovered(policy, raw_url, session_id);
  if (!parts.ok()) return AddOutcome::kInvalid;
  if (const AddOutcome scoped = policy.scope->Check(*parts);
      scoped != AddOutcome::kQueued) {
    return scoped;
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
  if (RobotsDisallow(policy, *parts)) return AddOutcome::kDisallowed;
  std::string budget_domain;
  if (!DomainAdmits(policy, *parts, source, &budget_domain))
    return AddOutcome::kDomainBudget;
  std::string key = policy.keys != nullptr ? policy.keys->KeyOf(*parts) : host;
  *out = Candidate{.url = std::move(parts->normalized_url),
                   .host = std::move(host),
                   .key = std::move(key),
                   .path_and_query = std::move(parts->path_and_query),
                   .trap_counted = trap_counted,
                   .budget_domain = std::move(budget_domain),
                   .session_url = {}};
  return AddOutcome::kQueued;
}

// A page requisite: the deny patterns, the URL trap rules and robots.txt,
// then the Sieve; marked in its metadata (Origin::requisite).
AddOutcome AddRequisite(const LinkPolicy& policy, std::string_view raw_url,
                        uint32_t depth, std::string_view metadata) {
  absl::StatusOr<UrlParts> parts = SplitUrl(raw_url, policy.url_options);
  if (!parts.ok()) return AddOutcome::kInvalid;
  if (const AddOutcome scoped = policy.scope->CheckRequisite(*parts);
      scoped != AddOutcome::kQueued) {
    return scoped;
  }
  if (RobotsDisallow(policy, *parts)) return AddOutcome::kDisallowed;
  const std::string key =
      policy.keys != nullptr ? policy.keys->KeyOf(*parts) : parts->Authority();
  return policy.frontier->Add(parts->normalized_url, key, depth, metadata)
             ? AddOutcome::kQueued
             : AddOutcome::kSeen;
}

// Sends each requisite URL through AddRequisite, into `out`.
void AddRequisites(const LinkPolicy& policy,
                   const std::vector<std::string>& urls, uint32_t depth,
                   std::string_view referrer, PageLinks& out) {
  if (urls.empty()) return;
  const std::string metadata =
      Origin{.referrer = std::string(referrer), .requisite = true}.Encode();
  for (const std::string& url : urls) {
    ++out.requisites_found;
    const AddOutcome outcome = AddRequisite(policy, url, depth, metadata);
    if (outcome == AddOutcome::kQueued) {
      ++out.requisites_queued;
    } else {
      out.Note(policy, url, outcome);
    }
  }
}

// A vetted link the frontier refused as seen: its domain's page back.
void Unreserve(const LinkPolicy& policy, const Candidate& c) {
  if (!c.budget_domain.empty()) policy.domains->Release(c.budget_domain);
}

// Hands one vetted link to the Frontier.
AddOutcome AddCandidate(const LinkPolicy& policy, const Candidate& c,
                        uint32_t depth, std::string_view metadata) {
  if (!policy.frontier->Add(c.url, c.key, depth, metadata)) {
    Unreserve(policy, c);
    return AddOutcome::kSeen;
  }
  if (c.trap_counted) policy.traps->Queued(c.host, c.path_and_query);
  return AddOutcome::kQueued;
}

AddOutcome AddCapped(const LinkPolicy& policy, std::string_view raw_url,
                     uint32_t depth, const Origin& origin, OutlinkCap* cap,
                     bool* session_id) {
  Candidate candidate;
  const AddOutcome vetted = Vet(policy, raw_url, /*page_link=*/false, depth,
                                cap, session_id, LinkSource{}, &candidate);
  if (vetted != AddOutcome::kQueued) return vetted;
  return AddCandidate(policy, candidate, depth, origin.Encode());
}

}  // namespace

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
  // A requisite that redirects: its target is a requisite too.
  if (origin.requisite) {
    return AddRequisite(policy, url, depth, origin.Encode());
  }
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
                            .robots_name = policy.robots_name,
                            .requisites = policy.page_requisites};
  ExtractedLinks page =
      ExtractLinks(response.body, base, response.headers.content_type,
                   response.headers.x_robots_tag, options);
  out.nofollow_page = page.nofollow;
  out.noindex_page = page.noindex;
  const std::string metadata =
      Origin{.redirect_hops = 0, .referrer = response.url}.Encode();
  OutlinkCap cap{.limit = policy.max_outlinks, .taken = {}};
  // The page's own host and domain: its links to other domains raise their
  // budgets (domain_budget.h).
  std::string page_host;
  std::string page_domain;
  bool page_seed_domain = false;
  if (policy.domains != nullptr && policy.domains->enabled()) {
    if (absl::StatusOr<UrlParts> parts = SplitNormalizedUrl(response.url);
        parts.ok()) {
      page_host = parts->host;
      page_domain = Scope::RegistrableDomain(page_host);
      page_seed_domain = policy.scope->IsSeedDomain(page_domain);
    }
  }
  const LinkSource source{.host = page_host,
                          .domain = page_domain,
                          .seed_domain = page_seed_domain};
  // The page's links go to the Frontier in one AddMany (one lock, one filter
  // batch), but for those the trap guard counts: each of those is added at
  // once, so a page's own variants count against the cap as they come.
  std::vector<Candidate> batch;
  std::vector<std::string> requisites;
  Candidate candidate;
  // A link whose session ID was cut, found again: the session trap.
  const auto seen = [&](const Candidate& c) {
    if (policy.record_skipped && !c.session_url.empty()) {
      out.skipped.push_back(
          {.url = c.session_url, .reason = SkipReason::kTrapSession});
    }
  };
  // A link the page repeats (an API index links each class many times: half
  // of openjdk-17-doc's links are repeats on their page) is judged once; a
  // repeat of one that went to the frontier is its duplicate, as AddMany
  // would say, and a refused one is counted again but not kept again.
  struct Judged {
    AddOutcome outcome;
    bool session_id;
  };
  absl::flat_hash_map<std::string_view, Judged> judged;
  for (const Link& link : page.links) {
    if (link.requisite) {
      requisites.push_back(link.url);
      continue;
    }
    if (!IsFollowable(link)) continue;
    ++out.found;
    if (policy.obey_nofollow && (page.nofollow || link.nofollow)) {
      ++out.nofollow_links;
      if (policy.record_skipped) {
        out.skipped.push_back(
            {.url = link.url, .reason = SkipReason::kNofollow});
      }
      continue;
    }
    if (auto it = judged.find(link.url); it != judged.end()) {
      const Judged& first = it->second;
      if (first.session_id) ++out.session_ids;
      if (first.outcome == AddOutcome::kQueued ||
          first.outcome == AddOutcome::kSeen) {
        out.Count(AddOutcome::kSeen);
        if (first.session_id && policy.record_skipped) {
          out.skipped.push_back(
              {.url = link.url, .reason = SkipReason::kTrapSession});
        }
      } else {
        out.Count(first.outcome);
      }
      continue;
    }
    bool session_id = false;
    AddOutcome outcome = Vet(policy, link.url, /*page_link=*/true, depth + 1,
                             &cap, &session_id, source, &candidate);
    judged.emplace(link.url,
                   Judged{.outcome = outcome, .session_id = session_id});
    if (session_id) ++out.session_ids;
    if (outcome == AddOutcome::kQueued) {
      if (session_id) candidate.session_url = link.url;
      if (!candidate.trap_counted) {
        batch.push_back(std::move(candidate));
        continue;
      }
      outcome = AddCandidate(policy, candidate, depth + 1, metadata);
      judged[link.url].outcome = outcome;
      if (outcome == AddOutcome::kSeen) seen(candidate);
    }
    out.Note(policy, link.url, outcome);
  }
  std::vector<FrontierAdd> adds;
  adds.reserve(batch.size());
  for (const Candidate& c : batch) {
    adds.push_back({.url = c.url,
                    .host = c.key,
                    .depth = depth + 1,
                    .metadata = metadata});
  }
  std::unique_ptr<bool[]> queued(new bool[adds.size()]);
  policy.frontier->AddMany(adds, std::span<bool>(queued.get(), adds.size()));
  for (size_t i = 0; i < adds.size(); ++i) {
    out.Count(queued[i] ? AddOutcome::kQueued : AddOutcome::kSeen);
    if (!queued[i]) {
      Unreserve(policy, batch[i]);
      seen(batch[i]);
    }
  }
  // Requisites last: the page's own links take the Sieve first.
  AddRequisites(policy, requisites, depth + 1, response.url, out);
  return out;
}

PageLinks ProcessStylesheet(const LinkPolicy& policy,
                            const FetchResponse& response, uint32_t depth) {
  PageLinks out;
  const std::string& base =
      response.effective_url.empty() ? response.url : response.effective_url;
  const CssLinks css = ExtractCssLinks(response.body, base, policy.url_options);
  AddRequisites(policy, css.urls, depth + 1, response.url, out);
  return out;
}

}  // namespace sieve
