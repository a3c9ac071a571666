// crawler/config/crawl_config.h: every setting of `sieve crawl`, with its
// built-in default.
//
// Default: each field's initializer, written once. Where a library option
// takes the setting (config_options.h names it), the initializer reads the
// library's default (the politeness group) or a test (config_options_test.cc)
// holds the two equal; the rest are the crawl's own. REQUIRES: the range in
// the setting's row of the settings table (config_keys.cc), checked when a
// file or flag sets it; `sieve help crawl` prints both, and a test checks that
// config/default.toml documents the same values. Only crawler/ knows this
// struct: it maps it into each library's own Options (FetchOptions,
// SieveOptions, FrontierOptions, UrlOptions), so no library depends on the
// configuration format.
#ifndef SIEVE_CRAWLER_CONFIG_CRAWL_CONFIG_H_
#define SIEVE_CRAWLER_CONFIG_CRAWL_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "crawler/policy/capacity_policy.h"
#include "crawler/policy/politeness_key.h"
#include "crawler/policy/revisit_policy.h"
#include "crawler/policy/scope_mode.h"
#include "crawler/policy/sitemap_mode.h"
#include "crawler/render/render_mode.h"
#include "frontier/politeness.h"
#include "parse/link_extractor.h"

namespace sieve {

struct CrawlConfig {
  struct Crawl {
    std::string seeds;                   // File of seed URLs, one per line.
    std::string out = "crawl-out";       // Output directory.
    ScopeMode scope = ScopeMode::kHost;  // Which hosts are on-site.
    int64_t max_pages = 0;               // 0 = no limit.
    int64_t max_depth = 0;               // 0 = no limit; seeds have depth 0.
    int64_t max_pages_per_host = 0;      // 0 = no limit.
    // Idle hosts remembered in RAM (page count, Crawl-delay, drop); past it
    // half go to disk (FrontierOptions::max_parked_hosts_in_memory).
    int64_t parked_hosts_in_memory = 65536;
    // Pages queued per registrable domain (crawler/policy/domain_budget.h):
    // domain_budget, plus domain_budget_per_referrer per other domain linking
    // to it; the seeds' domains exempt. 0 = no limit.
    int64_t domain_budget = 10000;
    int64_t domain_budget_per_referrer = 1000;
    int64_t domain_budget_domains = 1 << 18;  // Domains tracked, 32 B each.
    double max_run_seconds = 0;               // 0 = no limit.
    std::vector<std::string>
        allow;  // RE2 patterns; when non-empty a URL must match one.
    std::vector<std::string>
        deny;  // RE2 patterns; a URL matching one is skipped.
    int64_t max_url_length = 2048;
    int64_t max_path_segment_repeats = 3;
    int64_t max_outlinks_per_page = 10000;        // Distinct in-scope links.
    int64_t max_query_variants_per_path = 10000;  // 0 = no limit.
    int64_t max_date_variants_per_path = 1000;    // 0 = no limit.
    bool obey_nofollow = true;   // rel=nofollow, meta robots, X-Robots-Tag.
    int64_t parser_threads = 0;  // 0 = one per core.
    double checkpoint_seconds = 30;
    int64_t max_redirects =
        5;  // Longer redirect chains are recorded as errors.
    // Where sitemaps are looked for (crawler/policy/sitemap_mode.h).
    SitemapSource sitemaps = SitemapSource::kRobots;
    // The sitemaps.org location rule: lenient accepts any URL a sitemap lists.
    SitemapLocationRule sitemap_location = SitemapLocationRule::kLenient;
    int64_t max_sitemaps_per_host = 100;  // Sitemap files fetched per host.
    // Fetch each page's images, stylesheets, scripts and icons.
    bool page_requisites = false;
    // Revisits (crawler/policy/revisit_policy.h): fetch pages again, at
    // revisit_min (fixed) or at their estimated change rate (adaptive).
    RevisitMode revisit = RevisitMode::kOff;
    double revisit_min = 3600;     // Seconds.
    double revisit_max = 2592000;  // Seconds (30 days).
    // Most of the requests revisits take while new URLs wait.
    double revisit_share = 0.5;
  } crawl;

  struct Parse {
    // Which HTML parser finds a page's links (parse/link_extractor.h).
    HtmlParser html_parser = HtmlParser::kTokenizer;
  } parse;

  struct Output {
    bool warc = false;  // WARC files of every fetch under OUT/warc/.
    int64_t warc_max_bytes = 1'000'000'000;  // A WARC file is rotated here.
    int64_t warc_gzip_level = 6;             // zlib level of each record.
    // ADDR:PORT (or PORT, on 127.0.0.1) serving /metrics and /status while
    // the crawl runs; empty = off.
    std::string metrics;
    bool skipped = true;  // OUT/skipped.jsonl: URLs found and not fetched.
  } output;

  // Each field here that a library option takes reads the library's default
  // (frontier/politeness.h, the option named in parentheses).
  struct Politeness {
    // Seconds between requests to one host (min_delay).
    double delay = absl::ToDoubleSeconds(PolitenessOptions{}.min_delay);
    // Requests in flight per host (max_in_flight_per_host).
    int64_t per_host_connections = PolitenessOptions{}.max_in_flight_per_host;
    // Cap on robots.txt Crawl-delay, seconds (max_crawl_delay).
    double max_crawl_delay =
        absl::ToDoubleSeconds(PolitenessOptions{}.max_crawl_delay);
    // Delay >= factor x last response time; 0 = off (adaptive_delay_multiple).
    double adaptive_delay_factor = PolitenessOptions{}.adaptive_delay_multiple;
    // Seconds a host is blocked after 429/503, doubling (backoff_base).
    double backoff_initial =
        absl::ToDoubleSeconds(PolitenessOptions{}.backoff_base);
    // Longest back-off, seconds (backoff_cap).
    double backoff_max = absl::ToDoubleSeconds(PolitenessOptions{}.backoff_cap);
    // Refetches of a URL after 429/503 (max_throttle_retries).
    int64_t max_throttle_retries = PolitenessOptions{}.max_throttle_retries;
    // Refetches after a transient error (max_error_retries).
    int64_t max_error_retries = PolitenessOptions{}.max_error_retries;
    // Connection failures in a row (dns, connect, tls) that make a host
    // unreachable, and for how long, seconds (unreachable_after,
    // unreachable_for).
    int64_t unreachable_after = PolitenessOptions{}.unreachable_after;
    double unreachable_seconds =
        absl::ToDoubleSeconds(PolitenessOptions{}.unreachable_for);
    // Requests started per second, all hosts together; 0 = no cap.
    double max_requests_per_second = 0;
    // Which hosts share the delay and the in-flight cap.
    PolitenessKey key = PolitenessKey::kHost;
  } politeness;

  struct Robots {
    // Product token robots.txt groups are matched against; "" = from
    // fetch.user_agent (crawler/config/crawl_options.h, RobotsToken).
    std::string token;
    // Origins whose robots.txt is kept: the frontier's active hosts
    // (MaxActiveHosts, 65,536), so an active host's rules are never evicted.
    int64_t cache_entries = 65536;
    int64_t cache_mb = 256;  // MiB of compiled rules kept.
  } robots;

  struct Fetch {
    int64_t concurrency = 64;  // Transfers in flight overall.
    std::string user_agent = "SieveBot/0.1";
    double connect_timeout = 10;
    double timeout = 30;
    int64_t low_speed_limit =
        100;  // Bytes/s; slower for low_speed_time aborts.
    double low_speed_time = 20;
    int64_t max_body_bytes = 10 << 20;  // Longer bodies are cut (truncated).
    bool skip_oversized = false;  // Refuse a Content-Length above it instead.
    bool allow_private_addresses = false;  // Else only the seeds' hosts.
    bool http2 = true;
    bool compressed = true;
    // DNS answers are kept their record's TTL bounded to [dns_min_ttl,
    // dns_max_ttl]; failed lookups dns_negative_ttl. Seconds.
    double dns_min_ttl = 300;
    double dns_max_ttl = 3600;
    double dns_negative_ttl = 60;
    // Host names whose answers are kept (least recently used dropped): the
    // frontier's active hosts (MaxActiveHosts, 65,536).
    int64_t dns_cache_entries = 65536;
    // DNS servers asked instead of /etc/resolv.conf's, each "IP" or
    // "IP:port" (curl's --dns-servers); empty = resolv.conf.
    std::vector<std::string> dns_servers;
    int64_t max_idle_connections = 0;  // 0 = from the open-file limit.
    bool verify_tls = true;
    // PEM file of trusted CAs; empty: CURL_CA_BUNDLE, SSL_CERT_FILE, or the
    // system's (fetch/ca_bundle.h).
    std::string ca_bundle;
    // Extra request headers, each "Name: value".
    std::vector<std::string> headers;
    // Proxy URL (http://, https://, socks5://, socks5h://...); empty = none
    // (libcurl still reads http_proxy and friends).
    std::string proxy;
  } fetch;

  struct SieveSettings {
    int64_t expected_urls = 10'000'000;  // The filter's designed capacity.
    double fp_rate = 0.001;
    std::string filter = "blocked";  // classic | blocked | counting | scalable.
    // Past expected_urls: grow (scalable filter), warn or stop.
    CapacityPolicy on_capacity = CapacityPolicy::kGrow;
    int64_t memory_budget_mb = 256;  // Queued URLs beyond this spill to disk.
    // The filter's RAM; past it full stages go to files (only read there).
    int64_t filter_memory_mb = 256;
    bool verify_positives = false;  // Lossless mode.
  } sieve;

  // One worker of a crawl shared through Redis (docs/cluster.md); off while
  // url is empty.
  struct Cluster {
    std::string url;            // redis://HOST:PORT[/DB]; empty = one process.
    std::string crawl_id;       // Names the crawl's keys in Redis.
    std::string worker_id;      // Empty = HOSTNAME-PID.
    int64_t shards = 256;       // Fixed by the crawl's first worker.
    double lease_seconds = 10;  // Shard lease expiry; renewed every third.
    int64_t max_key_mb = 256;   // Largest Redis string of the filter.
  } cluster;

  // The crawl as a client of a URLFrontier server (docs/urlfrontier.md); off
  // while url is empty.
  struct UrlFrontier {
    std::string url;       // grpc://HOST:PORT; empty = the in-process frontier.
    std::string crawl_id;  // The server's crawl (namespace); empty = DEFAULT.
  } urlfrontier;

  // `sieve frontier serve`, the URLFrontier gRPC server (docs/urlfrontier.md).
  struct FrontierServer {
    std::string listen = "127.0.0.1:7071";  // host:port.
    std::string data = "frontier-data";     // The URL store's directory.
    bool bloom = true;               // Bloom filter in front of the store.
    bool sync = false;               // fsync each write (power-loss safe).
    int64_t queue_delay = 1;         // Seconds between answers of one queue.
    int64_t delay_requestable = 30;  // Seconds a URL handed out is in transit.
  } frontier_server;

  struct Url {
    std::vector<std::string>
        strip_query_params;  // Glob patterns, e.g. "utm_*".
    // Session-ID parameters dropped from every URL (glob patterns).
    std::vector<std::string> session_id_params = {
        "jsessionid",    "phpsessid", "sid",     "sessionid", "session_id",
        "aspsessionid*", "cfid",      "cftoken", "sess_id"};
    bool sort_query = false;
    bool drop_www = false;
  } url;

  struct Log {
    std::string level = "info";  // trace | debug | info | warn | error | off.
  } log;

  // Pages rendered in headless Chromium, every request they make fetched by
  // the crawl (crawler/render/render_queue.h, docs/crawling.md "Rendering").
  struct Render {
    // Which pages are rendered (crawler/render/render_mode.h).
    RenderMode mode = RenderMode::kAuto;
    int64_t browsers = 1;  // Chromium processes (BrowserPoolOptions).
    int64_t tabs = 4;      // Pages rendered at once in each.
    double timeout = 30;   // Seconds one render may take, fetches included.
    // Requests a page may make (its own document not counted).
    int64_t max_requests_per_page = 100;
    // MiB of answers one page's render may take (RenderOptions::max_bytes).
    int64_t max_mb_per_page = 16;
    // Pages a browser renders before it is replaced, and the PSS (MiB) of its
    // processes past which it is (BrowserPoolOptions).
    int64_t pages_per_browser = 500;
    int64_t max_browser_mb = 1024;
    // Run Chromium without its sandbox: only this explicit true allows it
    // (pages run untrusted scripts; BrowserOptions::no_sandbox).
    bool no_sandbox = false;
    // Methods and DevTools resource types a page's requests are fetched for;
    // others are refused and counted (RenderOptions).
    std::vector<std::string> methods = {"GET", "HEAD"};
    std::vector<std::string> resource_types = {"Document", "Script",
                                               "Stylesheet", "XHR", "Fetch"};
  } render;
};

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CONFIG_CRAWL_CONFIG_H_
