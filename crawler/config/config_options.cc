#include "crawler/config/config_options.h"

#include "absl/time/time.h"
#include "crawler/policy/scope.h"
#include "fetch/fetch_options.h"
#include "frontier/frontier.h"
#include "frontier/politeness.h"
#include "parse/url.h"
#include "render/browser_pool.h"
#include "render/render_types.h"

namespace sieve {
namespace {

double S(absl::Duration d) { return absl::ToDoubleSeconds(d); }
const FetchOptions& F() {
  static const FetchOptions o;
  return o;
}
const PolitenessOptions& P() {
  static const PolitenessOptions o;
  return o;
}

// A row whose default is the library's: `expr` read from a default-built
// options struct.
#define SIEVE_LIB(expr) [] { return static_cast<double>(expr); }

// clang-format off
const ConfigOption kOptions[] = {
    {"crawl.seeds", "crawl command (cli/seeds.h)"},
    {"crawl.out", "crawl command (OUT directory)"},
    {"crawl.scope", "ScopeOptions::mode"},
    {"crawl.max_pages", "crawl loop (RequestTable)"},
    {"crawl.max_depth", "crawl loop (LinkRules)"},
    {"crawl.max_pages_per_host", "FrontierOptions::max_urls_per_host"},
    {"crawl.parked_hosts_in_memory",
     "FrontierOptions::max_parked_hosts_in_memory",
     SIEVE_LIB(FrontierOptions{}.max_parked_hosts_in_memory)},
    {"crawl.domain_budget", "DomainBudget (crawler/policy/domain_budget.h)"},
    {"crawl.domain_budget_per_referrer", "DomainBudget"},
    {"crawl.domain_budget_domains", "DomainBudget"},
    {"crawl.max_run_seconds", "crawl loop (StopControl)"},
    {"crawl.allow", "ScopeOptions::allow"},
    {"crawl.deny", "ScopeOptions::deny"},
    {"crawl.max_url_length", "ScopeOptions::max_url_length",
     SIEVE_LIB(ScopeOptions{}.max_url_length)},
    {"crawl.max_path_segment_repeats", "ScopeOptions::max_path_segment_repeats",
     SIEVE_LIB(ScopeOptions{}.max_path_segment_repeats)},
    {"crawl.max_outlinks_per_page", "crawl loop (LinkRules)"},
    {"crawl.max_query_variants_per_path", "trap guard (LinkRules)"},
    {"crawl.max_date_variants_per_path", "trap guard (LinkRules)"},
    {"crawl.obey_nofollow", "crawl loop (LinkPolicy)"},
    {"crawl.parser_threads", "crawl loop (parser pool)"},
    {"crawl.checkpoint_seconds", "Checkpointer"},
    {"crawl.max_redirects", "crawl loop (redirect chains)"},
    {"crawl.sitemaps", "sitemap queue"},
    {"crawl.sitemap_location", "sitemap queue"},
    {"crawl.max_sitemaps_per_host", "sitemap queue"},
    {"crawl.page_requisites", "crawl loop (requisites)"},
    {"crawl.revisit", "RevisitPolicy"},
    {"crawl.revisit_min", "RevisitPolicy"},
    {"crawl.revisit_max", "RevisitPolicy"},
    {"crawl.revisit_share", "FrontierOptions::revisit_share"},
    {"parse.html_parser", "LinkExtractor (parse/link_extractor.h)"},
    {"output.warc", "WarcWriter; FetchOptions::keep_raw"},
    {"output.warc_max_bytes", "WarcWriter"},
    {"output.warc_gzip_level", "WarcWriter"},
    {"output.metrics", "metrics server"},
    {"output.skipped", "record sink (skipped.jsonl)"},
    {"politeness.delay", "PolitenessOptions::min_delay",
     SIEVE_LIB(S(P().min_delay)), "seconds"},
    {"politeness.per_host_connections",
     "PolitenessOptions::max_in_flight_per_host",
     SIEVE_LIB(P().max_in_flight_per_host)},
    {"politeness.max_crawl_delay", "PolitenessOptions::max_crawl_delay",
     SIEVE_LIB(S(P().max_crawl_delay)), "seconds"},
    {"politeness.adaptive_delay_factor",
     "PolitenessOptions::adaptive_delay_multiple",
     SIEVE_LIB(P().adaptive_delay_multiple)},
    {"politeness.backoff_initial", "PolitenessOptions::backoff_base",
     SIEVE_LIB(S(P().backoff_base)), "seconds; at least 1 ms"},
    {"politeness.backoff_max", "PolitenessOptions::backoff_cap",
     SIEVE_LIB(S(P().backoff_cap)), "seconds; at least backoff_initial"},
    {"politeness.max_throttle_retries",
     "PolitenessOptions::max_throttle_retries",
     SIEVE_LIB(P().max_throttle_retries)},
    {"politeness.max_error_retries", "PolitenessOptions::max_error_retries",
     SIEVE_LIB(P().max_error_retries)},
    {"politeness.unreachable_after", "PolitenessOptions::unreachable_after",
     SIEVE_LIB(P().unreachable_after)},
    {"politeness.unreachable_seconds", "PolitenessOptions::unreachable_for",
     SIEVE_LIB(S(P().unreachable_for)), "seconds"},
    {"politeness.max_requests_per_second",
     "crawl loop (RequestTable); cluster: the crawl-wide rate"},
    {"politeness.key", "crawl loop (LinkRules: politeness keys)"},
    {"robots.token", "robots gate (RobotsToken)"},
    {"robots.cache_entries", "RobotsCache"},
    {"robots.cache_mb", "RobotsCache"},
    {"fetch.concurrency", "FetchOptions::max_concurrent_transfers",
     SIEVE_LIB(F().max_concurrent_transfers)},
    {"fetch.user_agent", "FetchOptions::user_agent"},
    {"fetch.connect_timeout", "FetchOptions::connect_timeout",
     SIEVE_LIB(S(F().connect_timeout)), "seconds"},
    {"fetch.timeout", "FetchOptions::total_timeout",
     SIEVE_LIB(S(F().total_timeout)), "seconds"},
    {"fetch.low_speed_limit", "FetchOptions::low_speed_limit",
     SIEVE_LIB(F().low_speed_limit), "0 when low_speed_time is 0"},
    {"fetch.low_speed_time", "FetchOptions::low_speed_time",
     SIEVE_LIB(S(F().low_speed_time)), "seconds; at least 1"},
    {"fetch.max_body_bytes", "FetchOptions::max_body_bytes",
     SIEVE_LIB(F().max_body_bytes)},
    {"fetch.skip_oversized", "FetchOptions::skip_oversized",
     SIEVE_LIB(F().skip_oversized)},
    {"fetch.http2", "FetchOptions::http2", SIEVE_LIB(F().http2)},
    {"fetch.compressed", "FetchOptions::compressed",
     SIEVE_LIB(F().compressed)},
    {"fetch.max_idle_connections", "FetchOptions::max_idle_connections",
     SIEVE_LIB(F().max_idle_connections)},
    {"fetch.dns_min_ttl", "FetchOptions::dns.min_ttl (DnsOptions)",
     SIEVE_LIB(S(F().dns.min_ttl)), "seconds"},
    {"fetch.dns_max_ttl", "FetchOptions::dns.max_ttl (DnsOptions)",
     SIEVE_LIB(S(F().dns.max_ttl)), "seconds; at least dns_min_ttl"},
    {"fetch.dns_negative_ttl", "FetchOptions::dns.negative_ttl (DnsOptions)",
     SIEVE_LIB(S(F().dns.negative_ttl)), "seconds"},
    {"fetch.dns_cache_entries", "FetchOptions::dns.max_entries (DnsOptions)",
     SIEVE_LIB(F().dns.max_entries)},
    {"fetch.dns_servers", "FetchOptions::dns.servers (DnsOptions)"},
    {"fetch.verify_tls", "FetchOptions::verify_tls",
     SIEVE_LIB(F().verify_tls)},
    {"fetch.ca_bundle", "FetchOptions::ca_bundle",
     nullptr, "empty: $CURL_CA_BUNDLE, $SSL_CERT_FILE (ChooseCaBundle)"},
    {"fetch.allow_private_addresses", "FetchOptions::allow_private_addresses",
     SIEVE_LIB(F().allow_private_addresses),
     "the seeds' hosts go to private_address_hosts"},
    {"fetch.headers", "FetchOptions::extra_headers"},
    {"fetch.proxy", "FetchOptions::proxy"},
    {"sieve.expected_urls", "SieveOptions::expected_urls", nullptr,
     "the crawl's own default: 10^7 (the library's 10^6)"},
    {"sieve.fp_rate", "SieveOptions::fp_rate", nullptr,
     "the crawl's own default: 0.001 (the library's 0.01)"},
    {"sieve.filter", "SieveOptions::filter_kind", nullptr,
     "the crawl's own default: blocked (the library's classic)"},
    {"sieve.on_capacity", "SieveOptions::filter_kind (grow: scalable)"},
    {"sieve.memory_budget_mb", "SieveOptions::memory_budget_bytes", nullptr,
     "MiB; the crawl's own default: 256 (the library's 64)"},
    {"sieve.filter_memory_mb", "SieveOptions::filter_memory_bytes", nullptr,
     "MiB; the crawl's own default: 256 (the library's 0, all in RAM)"},
    {"sieve.verify_positives", "SieveOptions::verify_positives"},
    {"cluster.url", "RedisFrontierOptions::endpoint"},
    {"cluster.crawl_id", "RedisFrontierOptions::crawl_id"},
    {"cluster.worker_id", "RedisFrontierOptions::worker_id"},
    {"cluster.shards", "RedisFrontierOptions::shards"},
    {"cluster.lease_seconds", "RedisFrontierOptions::lease_ttl"},
    {"cluster.max_key_mb", "RedisFrontierOptions::filter.max_key_bytes"},
    {"urlfrontier.url", "GrpcFrontierOptions::target"},
    {"urlfrontier.crawl_id", "GrpcFrontierOptions::crawl_id"},
    {"frontier_server.listen", "sieve frontier serve"},
    {"frontier_server.data", "sieve frontier serve"},
    {"frontier_server.bloom", "sieve frontier serve"},
    {"frontier_server.sync", "sieve frontier serve"},
    {"frontier_server.queue_delay", "sieve frontier serve"},
    {"frontier_server.delay_requestable", "sieve frontier serve"},
    {"url.strip_query_params", "UrlOptions::drop_query_params"},
    {"url.session_id_params", "UrlOptions::drop_query_params",
     nullptr, "added to strip_query_params"},
    {"url.sort_query", "UrlOptions::sort_query",
     SIEVE_LIB(UrlOptions{}.sort_query)},
    {"url.drop_www", "UrlOptions::drop_www", SIEVE_LIB(UrlOptions{}.drop_www)},
    {"log.level", "spdlog level"},
    {"render.mode", "crawl loop (RenderQueue, crawler/render/render_signs.h)"},
    {"render.browsers", "BrowserPoolOptions::browsers",
     SIEVE_LIB(BrowserPoolOptions{}.browsers)},
    {"render.tabs", "BrowserPoolOptions::tabs",
     SIEVE_LIB(BrowserPoolOptions{}.tabs)},
    {"render.timeout", "RenderOptions::timeout",
     SIEVE_LIB(absl::ToDoubleSeconds(RenderOptions{}.timeout))},
    {"render.max_requests_per_page", "RenderOptions::max_requests",
     SIEVE_LIB(RenderOptions{}.max_requests)},
    {"render.max_mb_per_page", "RenderOptions::max_bytes (MiB)",
     SIEVE_LIB(RenderOptions{}.max_bytes >> 20)},
    {"render.pages_per_browser", "BrowserPoolOptions::pages_per_browser",
     SIEVE_LIB(BrowserPoolOptions{}.pages_per_browser)},
    {"render.max_browser_mb", "BrowserPoolOptions::max_browser_mb",
     SIEVE_LIB(BrowserPoolOptions{}.max_browser_mb)},
    {"render.no_sandbox", "BrowserOptions::no_sandbox",
     SIEVE_LIB(BrowserOptions{}.no_sandbox)},
    {"render.methods", "RenderOptions::methods"},
    {"render.resource_types", "RenderOptions::resource_types"},
};
// clang-format on

#undef SIEVE_LIB

}  // namespace

std::span<const ConfigOption> ConfigOptions() { return kOptions; }

const ConfigOption* FindConfigOption(std::string_view key) {
  for (const ConfigOption& row : kOptions) {
    if (row.key == key) return &row;
  }
  return nullptr;
}

}  // namespace sieve
