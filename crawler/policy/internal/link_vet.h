// crawler/policy/internal/link_vet.h: the steps of the link policy that
// link_policy.cc (one URL: a redirect, a sitemap's entry) and page_links.cc
// (a page's links, judged once each and queued in one batch) share. Private
// to crawler/policy/.
#ifndef SIEVE_CRAWLER_POLICY_INTERNAL_LINK_VET_H_
#define SIEVE_CRAWLER_POLICY_INTERNAL_LINK_VET_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "crawler/policy/link_policy.h"

namespace sieve::policy_internal {

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

// The page a link was found on, for the domain budget: its host and its
// registrable domain (empty when not a page's link, e.g. a redirect).
struct LinkSource {
  std::string_view host;
  std::string_view domain;
  bool seed_domain = false;  // `domain` is a seed's (exempt).
};

// Every rule of the policy but the Sieve's: the outcome when one refuses the
// link, else kQueued with `*out` filled in.
// `page_link`: `raw_url` is a link ProcessHtmlPage took from ExtractLinks.
AddOutcome Vet(const LinkPolicy& policy, std::string_view raw_url,
               bool page_link, uint32_t depth, OutlinkCap* cap,
               bool* session_id, const LinkSource& source, Candidate* out);

// Sends each requisite URL through the requisites' rules, into `out`.
void AddRequisites(const LinkPolicy& policy,
                   const std::vector<std::string>& urls, uint32_t depth,
                   std::string_view referrer, PageLinks& out);

// A vetted link the frontier refused as seen: its domain's page back.
void Unreserve(const LinkPolicy& policy, const Candidate& c);

// Hands one vetted link to the Frontier.
AddOutcome AddCandidate(const LinkPolicy& policy, const Candidate& c,
                        uint32_t depth, std::string_view metadata);

}  // namespace sieve::policy_internal

#endif  // SIEVE_CRAWLER_POLICY_INTERNAL_LINK_VET_H_
