#include "crawler/config/config_keys.h"

#include <algorithm>
#include <limits>
#include <span>
#include <string_view>

#include "crawler/config/enum_fields.h"

namespace sieve {
namespace {

// A captureless lambda returning a reference to one field; converts to the
// accessor pointer.
#define SIEVE_FIELD(member) \
  [](CrawlConfig & c) -> auto& { return c.member; }

constexpr double kMaxInt = 1e15;
// The bounds of a key that has none (ConfigKey's defaults), for rows that set
// a later field.
constexpr struct {
  double min = std::numeric_limits<double>::lowest();
  double max = std::numeric_limits<double>::max();
} kNoBound;

const ConfigKey kKeys[] = {
    // [crawl]
    {"crawl.seeds", "seeds", "file of seed URLs, one per line, # comments",
     SIEVE_FIELD(crawl.seeds)},
    {"crawl.out", "out",
     "output directory (pages.jsonl, summary.json, checkpoint)",
     SIEVE_FIELD(crawl.out)},
    {"crawl.scope", "scope",
     "stay on the seeds' hosts, their registrable domains, or anywhere",
     kScopeField},
    {"crawl.max_pages", "max-pages",
     "stop after this many fetched pages (0 = no limit)",
     SIEVE_FIELD(crawl.max_pages), 0, kMaxInt},
    {"crawl.max_depth", "max-depth",
     "links followed from a seed (0 = no limit)", SIEVE_FIELD(crawl.max_depth),
     0, kMaxInt},
    {"crawl.max_pages_per_host", "max-pages-per-host",
     "pages fetched per host (0 = no limit)",
     SIEVE_FIELD(crawl.max_pages_per_host), 0, kMaxInt},
    {"crawl.parked_hosts_in_memory", "",
     "idle hosts remembered in RAM (page count, Crawl-delay; ~160 bytes "
     "each); the rest on disk",
     SIEVE_FIELD(crawl.parked_hosts_in_memory), 2, 1 << 30},
    {"crawl.domain_budget", "domain-budget",
     "pages queued per registrable domain linked from no other domain; the "
     "seeds' domains exempt (0 = no limit)",
     SIEVE_FIELD(crawl.domain_budget), 0, kMaxInt},
    {"crawl.domain_budget_per_referrer", "",
     "pages added to a domain's budget per other domain linking to it",
     SIEVE_FIELD(crawl.domain_budget_per_referrer), 0, kMaxInt},
    {"crawl.domain_budget_domains", "",
     "domains whose counts are kept (32 bytes each; the least used forgotten)",
     SIEVE_FIELD(crawl.domain_budget_domains), 4, 1 << 30},
    {"crawl.max_run_seconds", "max-run-time",
     "stop after this many seconds (0 = no limit)",
     SIEVE_FIELD(crawl.max_run_seconds), 0, 1e9},
    {"crawl.allow", "", "RE2 patterns; when set, a URL must match one",
     SIEVE_FIELD(crawl.allow)},
    {"crawl.deny", "", "RE2 patterns; a URL matching one is skipped",
     SIEVE_FIELD(crawl.deny)},
    {"crawl.max_url_length", "", "longer URLs are skipped (trap control)",
     SIEVE_FIELD(crawl.max_url_length), 16, 1 << 20},
    {"crawl.max_path_segment_repeats", "",
     "URLs repeating one path segment more are skipped",
     SIEVE_FIELD(crawl.max_path_segment_repeats), 1, 1000},
    {"crawl.max_outlinks_per_page", "",
     "distinct in-scope links taken from one page (0 = no limit)",
     SIEVE_FIELD(crawl.max_outlinks_per_page), 0, kMaxInt},
    {"crawl.max_query_variants_per_path", "",
     "distinct query strings queued per host and path (0 = no limit)",
     SIEVE_FIELD(crawl.max_query_variants_per_path), 0, kMaxInt},
    {"crawl.max_date_variants_per_path", "",
     "URLs with a date queued per host and date pattern (0 = no limit)",
     SIEVE_FIELD(crawl.max_date_variants_per_path), 0, kMaxInt},
    {"crawl.obey_nofollow", "",
     "obey rel=nofollow, meta robots and X-Robots-Tag",
     SIEVE_FIELD(crawl.obey_nofollow)},
    {"crawl.parser_threads", "", "HTML parser threads (0 = one per core)",
     SIEVE_FIELD(crawl.parser_threads), 0, 256},
    {"crawl.checkpoint_seconds", "", "seconds between frontier checkpoints",
     SIEVE_FIELD(crawl.checkpoint_seconds), 1, 1e6},
    {"crawl.max_redirects", "", "longer redirect chains are recorded as errors",
     SIEVE_FIELD(crawl.max_redirects), 0, 50},
    {"crawl.sitemaps", "sitemaps",
     "take URLs from sitemaps named in robots.txt, and /sitemap.xml with probe",
     kSitemapsField},
    {"crawl.sitemap_location", "",
     "lenient: a sitemap may list any URL; strict: only under its own path",
     kSitemapLocationField},
    {"crawl.max_sitemaps_per_host", "", "sitemap files fetched per host",
     SIEVE_FIELD(crawl.max_sitemaps_per_host), 0, kMaxInt},
    {"crawl.page_requisites", "page-requisites",
     "also fetch each page's images, stylesheets, scripts and icons, from any "
     "host",
     SIEVE_FIELD(crawl.page_requisites)},
    {"crawl.revisit", "revisit",
     "fetch pages again: off, fixed (every revisit_min) or adaptive (at each "
     "page's estimated change rate); the crawl then runs until stopped",
     kRevisitField},
    {"crawl.revisit_min", "revisit-min",
     "seconds: the shortest revisit interval, and the fixed one",
     SIEVE_FIELD(crawl.revisit_min), 0.001, 1e9},
    {"crawl.revisit_max", "revisit-max",
     "seconds: the longest adaptive revisit interval",
     SIEVE_FIELD(crawl.revisit_max), 0.001, 1e9},
    {"crawl.revisit_share", "",
     "most of the requests revisits take while new URLs wait (0..1)",
     SIEVE_FIELD(crawl.revisit_share), 0, 1},
    // [parse]
    {"parse.html_parser", "html-parser",
     "tokenizer (HTML Standard tokenizer, no tree) or gumbo (HTML5 tree)",
     kHtmlParserField},
    // [output]
    {"output.warc", "warc",
     "write WARC files of every fetch (OUT/warc/, with CDXJ indexes)",
     SIEVE_FIELD(output.warc)},
    {"output.warc_max_bytes", "",
     "a WARC file is closed and the next begun at this size",
     SIEVE_FIELD(output.warc_max_bytes), 4096, kMaxInt},
    {"output.warc_gzip_level", "",
     "zlib level of each WARC record (1 fastest, 9 smallest)",
     SIEVE_FIELD(output.warc_gzip_level), 1, 9},
    {"output.metrics", "metrics",
     "serve /metrics (Prometheus) and /status (JSON) at ADDR:PORT, or PORT on "
     "127.0.0.1, while the crawl runs (empty = off)",
     SIEVE_FIELD(output.metrics)},
    {"output.skipped", "",
     "write OUT/skipped.jsonl: every URL found and not fetched, and why",
     SIEVE_FIELD(output.skipped)},
    // [politeness]
    {"politeness.delay", "delay", "seconds between requests to one host",
     SIEVE_FIELD(politeness.delay), 0, 3600},
    {"politeness.per_host_connections", "per-host-connections",
     "requests in flight per host",
     SIEVE_FIELD(politeness.per_host_connections), 1, 64},
    {"politeness.max_crawl_delay", "",
     "cap on a robots.txt Crawl-delay, seconds",
     SIEVE_FIELD(politeness.max_crawl_delay), 0, 86400},
    {"politeness.adaptive_delay_factor", "",
     "delay at least this multiple of the host's last response time (0 = off)",
     SIEVE_FIELD(politeness.adaptive_delay_factor), 0, 100},
    {"politeness.backoff_initial", "",
     "seconds a host is blocked after a 429/503 (doubles)",
     SIEVE_FIELD(politeness.backoff_initial), 0, 86400},
    {"politeness.backoff_max", "", "longest back-off, seconds",
     SIEVE_FIELD(politeness.backoff_max), 0, 86400},
    {"politeness.max_throttle_retries", "",
     "times a URL answered 429/503 is fetched again before it is given up",
     SIEVE_FIELD(politeness.max_throttle_retries), 0, 100},
    {"politeness.max_error_retries", "",
     "times a URL is fetched again after a transient error (connection "
     "refused or reset, timeout)",
     SIEVE_FIELD(politeness.max_error_retries), 0, 100},
    {"politeness.unreachable_after", "",
     "connection failures in a row (dns, connect, tls) after which a host's "
     "URLs are recorded unfetched",
     SIEVE_FIELD(politeness.unreachable_after), 1, 1000},
    {"politeness.unreachable_seconds", "",
     "seconds a host stays unreachable before one URL is tried again",
     SIEVE_FIELD(politeness.unreachable_seconds), 0, 86400},
    {"politeness.max_requests_per_second", "max-requests-per-second",
     "requests started per second, all hosts together (0 = no cap)",
     SIEVE_FIELD(politeness.max_requests_per_second), 0, 1e6},
    {.path = "politeness.key",
     .flag = "politeness-key",
     .help = "which hosts share the delay and the in-flight cap: each host, "
             "hosts on one IP address, or hosts of one registrable domain",
     .field = kPolitenessKeyField,
     .commands = kCrawlCommand | kClusterSeedCommand},
    // [robots]
    {"robots.token", "robots-token",
     "product token robots.txt groups are matched against (default: the "
     "User-Agent's product name)",
     SIEVE_FIELD(robots.token)},
    {"robots.cache_entries", "",
     "origins whose robots.txt rules are kept (least recently used dropped)",
     SIEVE_FIELD(robots.cache_entries), 1, 1e9},
    {"robots.cache_mb", "", "MiB of compiled robots.txt rules kept",
     SIEVE_FIELD(robots.cache_mb), 1, 1e6},
    // [fetch]
    {"fetch.concurrency", "concurrency", "transfers in flight overall",
     SIEVE_FIELD(fetch.concurrency), 1, 10000},
    {"fetch.user_agent", "user-agent",
     "User-Agent header; its product name is the robots.txt token unless "
     "robots.token is set",
     SIEVE_FIELD(fetch.user_agent)},
    {"fetch.connect_timeout", "", "seconds to connect",
     SIEVE_FIELD(fetch.connect_timeout), 0.1, 600},
    {"fetch.timeout", "", "seconds for a whole transfer",
     SIEVE_FIELD(fetch.timeout), 0.1, 3600},
    {"fetch.low_speed_limit", "", "bytes/s below which a transfer is slow",
     SIEVE_FIELD(fetch.low_speed_limit), 0, kMaxInt},
    {"fetch.low_speed_time", "",
     "seconds of slowness before a transfer is aborted",
     SIEVE_FIELD(fetch.low_speed_time), 0, 3600},
    {"fetch.max_body_bytes", "",
     "body bytes kept; the rest is cut and the page marked truncated",
     SIEVE_FIELD(fetch.max_body_bytes), 1024, kMaxInt},
    {"fetch.skip_oversized", "",
     "skip (error too_large) instead of truncating a page whose Content-Length "
     "exceeds max_body_bytes",
     SIEVE_FIELD(fetch.skip_oversized)},
    {"fetch.http2", "", "use HTTP/2 when the server offers it",
     SIEVE_FIELD(fetch.http2)},
    {"fetch.compressed", "", "ask for compressed responses",
     SIEVE_FIELD(fetch.compressed)},
    {"fetch.max_idle_connections", "",
     "idle connections kept for later requests to their hosts (0 = 10240, or "
     "half the open-file limit if less)",
     SIEVE_FIELD(fetch.max_idle_connections), 0, 1 << 20},
    {"fetch.dns_min_ttl", "",
     "shortest time a DNS answer is kept, whatever its TTL, seconds",
     SIEVE_FIELD(fetch.dns_min_ttl), 0, 86400},
    {"fetch.dns_max_ttl", "",
     "longest time a DNS answer is kept, whatever its TTL, seconds",
     SIEVE_FIELD(fetch.dns_max_ttl), 0, 7 * 86400},
    {"fetch.dns_negative_ttl", "",
     "how long a failed DNS lookup is kept, seconds",
     SIEVE_FIELD(fetch.dns_negative_ttl), 0, 86400},
    {"fetch.dns_cache_entries", "",
     "host names whose DNS answers are kept (least recently used dropped)",
     SIEVE_FIELD(fetch.dns_cache_entries), 1024, 1e9},
    {"fetch.dns_servers", "",
     "DNS servers asked instead of resolv.conf's, each IP or IP:port",
     SIEVE_FIELD(fetch.dns_servers)},
    {"fetch.verify_tls",
     "insecure",
     "do not verify TLS certificates and host names (fetch.verify_tls = false)",
     SIEVE_FIELD(fetch.verify_tls),
     kNoBound.min,
     kNoBound.max,
     {},
     /*flag_negates=*/true},
    {"fetch.ca_bundle", "ca-bundle",
     "PEM file of the CAs to trust (empty: $CURL_CA_BUNDLE, $SSL_CERT_FILE, "
     "or the system's)",
     SIEVE_FIELD(fetch.ca_bundle)},
    {"fetch.allow_private_addresses", "",
     "connect to loopback, private and link-local addresses of any host (not "
     "only the seeds' hosts)",
     SIEVE_FIELD(fetch.allow_private_addresses)},
    {"fetch.headers", "header",
     "extra request header 'Name: value' (repeat the flag for more)",
     SIEVE_FIELD(fetch.headers)},
    {"fetch.proxy", "proxy",
     "proxy for every request: http://, https://, socks5:// or socks5h:// "
     "URL (empty: none, or $http_proxy and friends)",
     SIEVE_FIELD(fetch.proxy)},
    // [sieve]
    {.path = "sieve.expected_urls",
     .flag = "expected-urls",
     .help = "URLs the Sieve's filter is sized for",
     .field = SIEVE_FIELD(sieve.expected_urls),
     .min = 1,
     .max = 1e13,
     .commands = kCrawlCommand | kFrontierServeCommand},
    {.path = "sieve.fp_rate",
     .flag = "fp-rate",
     .help = "the filter's false-positive rate at expected_urls",
     .field = SIEVE_FIELD(sieve.fp_rate),
     .min = 1e-12,
     .max = 0.5,
     .commands = kCrawlCommand | kFrontierServeCommand},
    {"sieve.filter", "", "filter kind", kFilterField},
    {"sieve.on_capacity", "on-capacity",
     "past expected_urls: grow the filter, warn, or stop the crawl",
     kCapacityField},
    {"sieve.memory_budget_mb", "",
     "queued URLs beyond this many MB spill to disk",
     SIEVE_FIELD(sieve.memory_budget_mb), 1, 1 << 20},
    {"sieve.filter_memory_mb", "",
     "the filter's RAM in MB; past it full stages go to files",
     SIEVE_FIELD(sieve.filter_memory_mb), 1, 1 << 24},
    {"sieve.verify_positives", "",
     "lossless mode: confirm 'maybe seen' on disk",
     SIEVE_FIELD(sieve.verify_positives)},
    // [cluster]
    {"cluster.url", "cluster",
     "run as one worker of a crawl shared through Redis at this "
     "redis://HOST:PORT[/DB]",
     SIEVE_FIELD(cluster.url)},
    {"cluster.crawl_id", "crawl-id",
     "the shared crawl's name (A-Z a-z 0-9 . _ -)",
     SIEVE_FIELD(cluster.crawl_id)},
    {"cluster.worker_id", "worker-id",
     "this worker's name, unique in the crawl (empty: HOSTNAME-PID)",
     SIEVE_FIELD(cluster.worker_id)},
    {"cluster.shards", "",
     "shards the hosts are spread over (fixed by the "
     "crawl's first worker)",
     SIEVE_FIELD(cluster.shards), 1, 1 << 20},
    {"cluster.lease_seconds", "", "expiry of a worker's shard leases",
     SIEVE_FIELD(cluster.lease_seconds), 0.1, 3600},
    {"cluster.max_key_mb", "", "largest Redis string of the shared filter, MB",
     SIEVE_FIELD(cluster.max_key_mb), 1, 511},
    // [urlfrontier]
    {"urlfrontier.url", "frontier",
     "crawl through a URLFrontier server: grpc://HOST:PORT (empty: in-process)",
     SIEVE_FIELD(urlfrontier.url)},
    {"urlfrontier.crawl_id", "", "the server's crawl ID (empty: DEFAULT)",
     SIEVE_FIELD(urlfrontier.crawl_id)},
    // [frontier_server] (sieve frontier serve)
    {.path = "frontier_server.listen",
     .flag = "listen",
     .help = "host:port the server listens on",
     .field = SIEVE_FIELD(frontier_server.listen),
     .commands = kFrontierServeCommand},
    {.path = "frontier_server.data",
     .flag = "data",
     .help = "directory of the server's URL store",
     .field = SIEVE_FIELD(frontier_server.data),
     .commands = kFrontierServeCommand},
    {.path = "frontier_server.bloom",
     .flag = "bloom",
     .help = "Bloom filter in front of the URL store",
     .field = SIEVE_FIELD(frontier_server.bloom),
     .commands = kFrontierServeCommand},
    {.path = "frontier_server.sync",
     .flag = "sync",
     .help = "fsync the URL store on each write",
     .field = SIEVE_FIELD(frontier_server.sync),
     .commands = kFrontierServeCommand},
    {.path = "frontier_server.queue_delay",
     .flag = "queue-delay",
     .help = "default seconds between two answers of one queue",
     .field = SIEVE_FIELD(frontier_server.queue_delay),
     .min = 0,
     .max = 86400,
     .commands = kFrontierServeCommand},
    {.path = "frontier_server.delay_requestable",
     .flag = "delay-requestable",
     .help = "default seconds a URL handed out stays in transit",
     .field = SIEVE_FIELD(frontier_server.delay_requestable),
     .min = 1,
     .max = 86400 * 30,
     .commands = kFrontierServeCommand},
    // [url] (also `sieve cluster seed`'s: they make a URL's normal form)
    {.path = "url.strip_query_params",
     .flag = "",
     .help = "query parameters to drop (glob patterns)",
     .field = SIEVE_FIELD(url.strip_query_params),
     .commands = kCrawlCommand | kClusterSeedCommand},
    {.path = "url.session_id_params",
     .flag = "",
     .help = "session-ID query parameters dropped (glob patterns)",
     .field = SIEVE_FIELD(url.session_id_params),
     .commands = kCrawlCommand | kClusterSeedCommand},
    {.path = "url.sort_query",
     .flag = "",
     .help = "sort query parameters",
     .field = SIEVE_FIELD(url.sort_query),
     .commands = kCrawlCommand | kClusterSeedCommand},
    {.path = "url.drop_www",
     .flag = "",
     .help = "treat www.host as host",
     .field = SIEVE_FIELD(url.drop_www),
     .commands = kCrawlCommand | kClusterSeedCommand},
    // [log]
    {.path = "log.level",
     .flag = "log-level",
     .help = "log level",
     .field = SIEVE_FIELD(log.level),
     .min = 0,
     .max = 0,
     .choices = "trace|debug|info|warn|error|off",
     .commands = kCrawlCommand | kFrontierServeCommand},
    // [render]
    {"render.mode", "render",
     "render pages in headless Chromium: off, auto (pages that look built by "
     "script) or always (every HTML page)",
     kRenderModeField},
    {"render.browsers", "", "Chromium processes rendering at once",
     SIEVE_FIELD(render.browsers), 1, 64},
    {"render.tabs", "", "pages rendered at once in each browser",
     SIEVE_FIELD(render.tabs), 1, 64},
    {"render.timeout", "",
     "seconds one render may take, its fetches and politeness waits included",
     SIEVE_FIELD(render.timeout), 0.1, 3600},
    {"render.max_requests_per_page", "",
     "requests one rendered page may make (its own document not counted)",
     SIEVE_FIELD(render.max_requests_per_page), 0, 100000},
    {"render.max_mb_per_page", "",
     "MiB of answers one rendered page may take; later requests fail in it",
     SIEVE_FIELD(render.max_mb_per_page), 0, 1 << 20},
    {"render.pages_per_browser", "",
     "pages a browser renders before it is replaced",
     SIEVE_FIELD(render.pages_per_browser), 1, 1e9},
    {"render.max_browser_mb", "",
     "MiB of PSS (all its processes) past which a browser is replaced",
     SIEVE_FIELD(render.max_browser_mb), 64, 1 << 20},
    {"render.no_sandbox", "",
     "run Chromium without its sandbox (pages run untrusted scripts; only "
     "where no sandbox can be had)",
     SIEVE_FIELD(render.no_sandbox)},
    {"render.methods", "",
     "request methods a rendered page may make; others are refused",
     SIEVE_FIELD(render.methods)},
    {"render.resource_types", "",
     "DevTools resource types fetched for a rendered page (Image, Font, "
     "Media ... make no links); others are refused",
     SIEVE_FIELD(render.resource_types)},
};

#undef SIEVE_FIELD

}  // namespace

std::span<const ConfigKey> ConfigKeys() { return kKeys; }

std::string FormatConfigKeysOf(uint8_t command, const CrawlConfig& config) {
  std::string out;
  for (const ConfigKey& key : kKeys) {
    if ((key.commands & command) != 0)
      absl::StrAppend(&out, std::string(key.path), " = ",
                      FormatConfigValue(key, config), "\n");
  }
  return out;
}

const ConfigKey* FindConfigKeyByPath(std::string_view path) {
  for (const ConfigKey& key : kKeys) {
    if (key.path == path) return &key;
  }
  return nullptr;
}

bool IsRetiredConfigKey(std::string_view path) {
  static constexpr std::string_view kRetired[] = {"fetch.dns_cache_seconds"};
  return std::find(std::begin(kRetired), std::end(kRetired), path) !=
         std::end(kRetired);
}

const ConfigKey* FindConfigKeyByFlag(std::string_view flag) {
  for (const ConfigKey& key : kKeys) {
    if (!key.flag.empty() && key.flag == flag) return &key;
  }
  return nullptr;
}

}  // namespace sieve
