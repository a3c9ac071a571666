// crawler/loop/link_rules.cc: the link policy's parts, made from the crawl's
// config (see link_rules.h).
#include "crawler/loop/link_rules.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "crawler/config/crawl_options.h"
#include "crawler/render/render_mode.h"
#include "crawler/render/render_signs.h"

namespace sieve {

absl::StatusOr<std::unique_ptr<LinkRules>> LinkRules::Create(
    const CrawlConfig& config) {
  std::unique_ptr<LinkRules> rules(new LinkRules());
  // The DNS cache first: the politeness key by IP resolves the seeds' hosts.
  const FetchOptions fetch_options = MakeFetchOptions(config, {});
  absl::StatusOr<std::unique_ptr<DnsCache>> dns =
      DnsCache::Create(fetch_options.dns);
  if (!dns.ok()) return dns.status();
  rules->dns_ = std::move(*dns);
  rules->keys_ = std::make_unique<PolitenessKeys>(
      MakePolitenessKeys(config, rules->dns_.get()));
  // The crawl's one URL normaliser, before the seeds are split with it.
  rules->policy_.url_options = MakeUrlOptions(config);
  return rules;
}

absl::Status LinkRules::OpenScope(const CrawlConfig& config,
                                  const std::vector<std::string>& seed_hosts) {
  absl::StatusOr<Scope> scope =
      Scope::Create(MakeScopeOptions(config), seed_hosts);
  if (!scope.ok()) return scope.status();
  scope_ = std::make_unique<Scope>(*std::move(scope));
  return absl::OkStatus();
}

absl::Status LinkRules::Start(const CrawlConfig& config,
                              std::string_view saved_budget, Links links) {
  traps_ = std::make_unique<TrapGuard>(TrapOptions{
      .max_query_variants =
          static_cast<size_t>(config.crawl.max_query_variants_per_path),
      .max_date_variants =
          static_cast<size_t>(config.crawl.max_date_variants_per_path)});
  domains_ = std::make_unique<DomainBudget>(DomainBudgetOptions{
      .base = static_cast<uint64_t>(config.crawl.domain_budget),
      .per_referrer =
          static_cast<uint64_t>(config.crawl.domain_budget_per_referrer),
      .table_slots = static_cast<size_t>(config.crawl.domain_budget_domains)});
  if (absl::Status s = domains_->Load(saved_budget); !s.ok()) return s;
  policy_ = LinkPolicy{
      .scope = scope_.get(),
      .robots = links.robots,
      .frontier = links.frontier,
      .keys = keys_.get(),
      .url_options = std::move(policy_.url_options),  // Create's.
      .max_depth = static_cast<uint32_t>(config.crawl.max_depth),
      .max_outlinks = static_cast<size_t>(config.crawl.max_outlinks_per_page),
      .obey_nofollow = config.crawl.obey_nofollow,
      .traps = traps_.get(),
      .domains = domains_.get(),
      .session_id_params = config.url.session_id_params,
      .robots_name = absl::AsciiStrToLower(links.robots_token),
      .html_parser = config.parse.html_parser,
      .record_skipped = links.record_skipped,
      .page_requisites = config.crawl.page_requisites,
      .find_ids = config.render.mode == RenderMode::kAuto
                      ? AppRootIds()
                      : std::vector<std::string>{}};
  return absl::OkStatus();
}

}  // namespace sieve
