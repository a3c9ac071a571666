// crawler/policy/link_policy.cc: the rules a discovered URL meets (Vet) and
// its way into the frontier (AddDiscovered, requisites); a page's and a
// stylesheet's links are page_links.cc's.
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
#include "crawler/policy/internal/link_vet.h"

namespace sieve {

using policy_internal::AddCandidate;
using policy_internal::Candidate;
using policy_internal::LinkSource;
using policy_internal::OutlinkCap;
using policy_internal::Vet;

namespace {

absl::string_view AV(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

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

}  // namespace

namespace policy_internal {

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

}  // namespace policy_internal

namespace {

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

}  // namespace

namespace policy_internal {

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

void Unreserve(const LinkPolicy& policy, const Candidate& c) {
  if (!c.budget_domain.empty()) policy.domains->Release(c.budget_domain);
}

AddOutcome AddCandidate(const LinkPolicy& policy, const Candidate& c,
                        uint32_t depth, std::string_view metadata) {
  if (!policy.frontier->Add(c.url, c.key, depth, metadata)) {
    Unreserve(policy, c);
    return AddOutcome::kSeen;
  }
  if (c.trap_counted) policy.traps->Queued(c.host, c.path_and_query);
  return AddOutcome::kQueued;
}

}  // namespace policy_internal

namespace {

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

}  // namespace sieve
