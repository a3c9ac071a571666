// crawler/loop/link_rules.h: the rules every URL the crawl discovers meets on
// its way to the frontier (crawler/policy/link_policy.h applies them on the
// parser threads), and the state they keep.
//
// Owns: the crawl's DNS cache (shared with the Fetcher, so the politeness key
// by IP and the fetch resolve each name once), the politeness keys (the
// frontier's host key of each URL), the crawl's one URL normaliser (Split),
// the scope with the seeds' hosts, the URL
// trap guard (query and calendar variants per path), the domain budget (pages
// per registrable domain, saved in the checkpoint), and the LinkPolicy that
// points at them, at the robots gate's rules and at the frontier.
//
// Made in three of Init's steps, as what they need comes to be: Create (the
// DNS cache and keys, before the seeds are queued), OpenScope (once the
// seeds' hosts are known), Start (once the frontier, robots rules and record
// sink exist).
//
// Surprises first:
//   - policy() and what it points to are read by the parser threads (each
//     part is thread-safe); the rest is for the crawl loop's thread.
//   - A seed's redirect to another host adds that host to the scope
//     (AddSeedHost) while the parsers run.
//
// Example:
//   absl::StatusOr<std::unique_ptr<LinkRules>> rules = LinkRules::Create(config);
//   absl::Status s = (*rules)->OpenScope(config, state.seed_hosts);
//   s = (*rules)->Start(config, {.frontier = frontier, .robots = &cache});
//   AddOutcome added = AddDiscovered((*rules)->policy(), url, depth, origin);
#ifndef SIEVE_CRAWLER_LOOP_LINK_RULES_H_
#define SIEVE_CRAWLER_LOOP_LINK_RULES_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crawler/config/crawl_config.h"
#include "crawler/policy/domain_budget.h"
#include "crawler/policy/link_policy.h"
#include "crawler/policy/politeness_key.h"
#include "crawler/policy/robots_cache.h"
#include "crawler/policy/scope.h"
#include "crawler/policy/trap_guard.h"
#include "fetch/dns_cache.h"
#include "frontier/crawl_frontier.h"

namespace sieve {

class LinkRules {
 public:
  // What the policy points at besides the rules' own parts.
  struct Links {
    // The frontier links are queued in. REQUIRES: not null. Default: null.
    CrawlFrontier* frontier = nullptr;
    // The robots gate's rules. REQUIRES: not null. Default: null.
    const RobotsCache* robots = nullptr;
    // The robots.txt product token (<meta name=TOKEN> applies).
    // Default: "".
    std::string robots_token = "";
    // Hand back refused links with their reason (output.skipped).
    // Default: false.
    bool record_skipped = false;
  };

  // The DNS cache (fetch.dns_*), the politeness keys (politeness.key) and
  // the URL normaliser (url.*).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<LinkRules>> Create(
      const CrawlConfig& config);
  // The scope (crawl.scope, allow/deny patterns) around `seed_hosts`.
  [[nodiscard]] absl::Status OpenScope(
      const CrawlConfig& config, const std::vector<std::string>& seed_hosts);
  // The trap guard, the domain budget (restored from `saved_budget`, a
  // checkpoint's DomainBudget::Save; "" when new) and the policy. After
  // OpenScope.
  [[nodiscard]] absl::Status Start(const CrawlConfig& config,
                                   std::string_view saved_budget, Links links);

  // The policy the parser threads apply (after Start).
  const LinkPolicy& policy() const { return policy_; }
  const std::shared_ptr<DnsCache>& dns() const { return dns_; }
  const PolitenessKeys& keys() const { return *keys_; }
  // The crawl's one URL normaliser (url.*, made once by Create; the policy's
  // url_options): a URL from outside the crawl (a seed, a redirect's target,
  // a robots.txt's final URL) split as its links are, so that one page has
  // one spelling, one host key and one seed host. Errors: as SplitUrl.
  absl::StatusOr<UrlParts> Split(std::string_view url) const {
    return SplitUrl(url, policy_.url_options);
  }
  const Scope& scope() const { return *scope_; }
  // Adds a seed's host (a seed redirected there); false when it was one.
  bool AddSeedHost(std::string_view authority) {
    return scope_->AddSeedHost(authority);
  }
  const DomainBudget& domains() const { return *domains_; }

 private:
  LinkRules() = default;

  std::shared_ptr<DnsCache> dns_;
  std::unique_ptr<PolitenessKeys> keys_;
  std::unique_ptr<Scope> scope_;
  std::unique_ptr<TrapGuard> traps_;
  std::unique_ptr<DomainBudget> domains_;
  LinkPolicy policy_;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_LOOP_LINK_RULES_H_
