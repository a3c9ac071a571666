#include "crawler/config/crawl_options.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "crawler/config/config_keys.h"
#include "fetch/ca_bundle.h"
#include "frontier/cluster/redis_frontier.h"
#include "frontier/service/grpc_frontier.h"

namespace sieve {

FetchOptions MakeFetchOptions(const CrawlConfig& config,
                              const std::vector<std::string>& seed_hosts) {
  const CrawlConfig::Fetch& f = config.fetch;
  FetchOptions o;
  o.max_concurrent_transfers = static_cast<int>(f.concurrency);
  o.connect_timeout = absl::Seconds(f.connect_timeout);
  o.total_timeout = absl::Seconds(f.timeout);
  // curl counts the low-speed window in whole seconds, at least one.
  o.low_speed_time = absl::Seconds(std::max(1.0, f.low_speed_time));
  o.low_speed_limit = f.low_speed_time > 0 ? f.low_speed_limit : 0;
  o.max_body_bytes = f.max_body_bytes;
  o.user_agent = f.user_agent;
  o.http2 = f.http2;
  o.compressed = f.compressed;
  o.dns.min_ttl = absl::Seconds(f.dns_min_ttl);
  o.dns.max_ttl = absl::Seconds(std::max(f.dns_max_ttl, f.dns_min_ttl));
  o.dns.negative_ttl = absl::Seconds(f.dns_negative_ttl);
  o.dns.max_entries = static_cast<size_t>(f.dns_cache_entries);
  o.dns.servers = f.dns_servers;
  o.max_idle_connections = f.max_idle_connections;
  o.verify_tls = f.verify_tls;
  o.ca_bundle = ChooseCaBundleFromEnvironment(f.ca_bundle).path;
  o.skip_oversized = f.skip_oversized;
  o.extra_headers = f.headers;
  o.proxy = f.proxy;
  // Retries are the frontier's (politeness.max_throttle_retries,
  // max_error_retries): the Fetcher makes one attempt per request.
  // Private addresses are refused unless the URL's host is a seed's host
  // (so loopback and intranet crawls of the seeds work) or the config allows
  // them all (fetch/address_guard.h).
  o.allow_private_addresses = f.allow_private_addresses;
  // WARC records need the exchange as it crossed the wire.
  o.keep_raw = config.output.warc;
  for (const std::string& authority : seed_hosts) {
    o.private_address_hosts.push_back(GuardHost(authority));
  }
  return o;
}

std::string GuardHost(std::string_view authority) {
  // "host:port" or "[v6]:port": the guard compares hosts, not ports.
  const size_t colon = authority.rfind(':');
  const bool has_port =
      colon != std::string::npos &&
      authority.find(']', colon) == std::string::npos &&
      (authority.front() == '[' || authority.find(':') == colon);
  return std::string(has_port ? authority.substr(0, colon) : authority);
}

PolitenessOptions MakePolitenessOptions(const CrawlConfig& config) {
  const CrawlConfig::Politeness& p = config.politeness;
  PolitenessOptions o;
  o.min_delay = absl::Seconds(p.delay);
  o.max_crawl_delay = absl::Seconds(p.max_crawl_delay);
  o.max_in_flight_per_host = static_cast<int>(p.per_host_connections);
  o.adaptive_delay_multiple = p.adaptive_delay_factor;
  // The Frontier needs 0 < base <= cap.
  o.backoff_base = absl::Seconds(std::max(0.001, p.backoff_initial));
  o.backoff_cap = std::max(o.backoff_base, absl::Seconds(p.backoff_max));
  o.max_throttle_retries = static_cast<int>(p.max_throttle_retries);
  o.max_error_retries = static_cast<int>(p.max_error_retries);
  o.unreachable_after = static_cast<int>(p.unreachable_after);
  o.unreachable_for = absl::Seconds(p.unreachable_seconds);
  return o;
}

absl::StatusOr<FrontierOptions> MakeFrontierOptions(
    const CrawlConfig& config, const std::filesystem::path& work_dir) {
  FrontierOptions o;
  const CrawlConfig::SieveSettings& s = config.sieve;
  o.sieve.expected_urls = static_cast<uint64_t>(s.expected_urls);
  o.sieve.fp_rate = s.fp_rate;
  absl::StatusOr<FilterKind> kind = ParseFilterKind(s.filter);
  if (!kind.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("sieve.filter: ", kind.status().message()));
  }
  o.sieve.filter_kind = *kind;
  // grow: the scalable filter adds stages past expected_urls, its compound
  // rate bounded by fp_rate (Almeida et al. 2007; filter/scalable_bloom_filter.h).
  // A forgetting kind (stable, generational) is kept: its rate is bounded by
  // forgetting instead.
  if (s.on_capacity == CapacityPolicy::kGrow && !FilterKindForgets(*kind)) {
    o.sieve.filter_kind = FilterKind::kScalable;
  }
  o.sieve.memory_budget_bytes = static_cast<size_t>(s.memory_budget_mb) << 20;
  o.sieve.filter_memory_bytes = static_cast<uint64_t>(s.filter_memory_mb) << 20;
  o.sieve.verify_positives = s.verify_positives;
  o.sieve.work_dir = work_dir;

  o.politeness = MakePolitenessOptions(config);
  o.max_urls_per_host = static_cast<uint64_t>(config.crawl.max_pages_per_host);
  o.max_parked_hosts_in_memory =
      static_cast<uint64_t>(config.crawl.parked_hosts_in_memory);
  o.revisit_share = config.crawl.revisit_share;
  if (config.crawl.revisit != RevisitMode::kOff) {
    if (config.crawl.revisit_max < config.crawl.revisit_min) {
      return absl::InvalidArgumentError(absl::StrCat(
          "crawl.revisit_max (", config.crawl.revisit_max,
          ") must be >= crawl.revisit_min (", config.crawl.revisit_min, ")"));
    }
    if (!config.cluster.url.empty() || !config.urlfrontier.url.empty()) {
      return absl::InvalidArgumentError(
          "crawl.revisit needs the local frontier: --cluster and --frontier "
          "do not revisit yet");
    }
  }
  return o;
}

namespace {

// With cluster.url set: one worker of the crawl shared through Redis. Its
// per-host rules and filter sizing come from the same settings as the
// single-process Frontier's.
absl::StatusOr<std::unique_ptr<CrawlFrontier>> CreateClusterFrontier(
    const CrawlConfig& config, const FrontierOptions& local,
    const std::filesystem::path& work_dir) {
  const CrawlConfig::Cluster& c = config.cluster;
  absl::StatusOr<cluster::RedisEndpoint> endpoint =
      cluster::ParseRedisUrl(c.url);
  if (!endpoint.ok()) return endpoint.status();
  if (c.crawl_id.empty())
    return absl::InvalidArgumentError("--cluster needs --crawl-id NAME");
  cluster::RedisFrontierOptions o;
  o.endpoint = *endpoint;
  o.crawl_id = c.crawl_id;
  o.worker_id = c.worker_id;
  if (o.worker_id.empty()) {
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    o.worker_id = absl::StrCat(host, "-", getpid());
  }
  o.shards = static_cast<uint32_t>(c.shards);
  o.shared_settings = ClusterSharedSettings(config);
  o.filter.expected_urls = local.sieve.expected_urls;
  o.filter.fp_rate = local.sieve.fp_rate;
  o.filter.max_key_bytes = static_cast<uint64_t>(c.max_key_mb) << 20;
  o.lease_ttl = absl::Seconds(c.lease_seconds);
  o.politeness = local.politeness;
  // Crawl-wide across the workers: the cluster frontier holds the rate (each
  // worker's loop would hold only its own share of it).
  o.max_requests_per_second = config.politeness.max_requests_per_second;
  // A worker with fewer hosts than transfers is handed a busier one's shard.
  o.fetch_slots = static_cast<uint32_t>(config.fetch.concurrency);
  o.max_urls_per_host = local.max_urls_per_host;
  o.work_dir = work_dir;
  // The loop calls RecordWritten once a page's record is written.
  o.ack_after_record = true;
  absl::StatusOr<std::unique_ptr<cluster::RedisFrontier>> frontier =
      cluster::RedisFrontier::Create(std::move(o));
  if (!frontier.ok()) return frontier.status();
  return std::unique_ptr<CrawlFrontier>(std::move(*frontier));
}

// With urlfrontier.url set: a client of a URLFrontier server, which holds the
// queues and the seen set; the per-host rules (politeness, retries, the page
// cap) are those of a local Frontier inside the client, from the same
// settings as the single-process Frontier's.
absl::StatusOr<std::unique_ptr<CrawlFrontier>> CreateGrpcFrontier(
    const CrawlConfig& config, const FrontierOptions& local,
    const std::filesystem::path& work_dir) {
  absl::StatusOr<std::string> target =
      service::ParseGrpcTarget(config.urlfrontier.url);
  if (!target.ok()) return target.status();
  service::GrpcFrontierOptions o;
  o.target = *target;
  o.crawl_id = config.urlfrontier.crawl_id;
  o.politeness = local.politeness;
  o.max_urls_per_host = local.max_urls_per_host;
  o.work_dir = work_dir;
  o.max_urls_per_queue = std::max<uint32_t>(
      o.max_urls_per_queue,
      static_cast<uint32_t>(local.politeness.max_in_flight_per_host));
  absl::StatusOr<std::unique_ptr<service::GrpcFrontier>> frontier =
      service::GrpcFrontier::Create(std::move(o));
  if (!frontier.ok()) return frontier.status();
  return std::unique_ptr<CrawlFrontier>(std::move(*frontier));
}

}  // namespace

absl::StatusOr<std::unique_ptr<CrawlFrontier>> CreateFrontier(
    const CrawlConfig& config, const std::filesystem::path& work_dir) {
  absl::StatusOr<FrontierOptions> options =
      MakeFrontierOptions(config, work_dir);
  if (!options.ok()) return options.status();
  if (!config.cluster.url.empty() && !config.urlfrontier.url.empty()) {
    return absl::InvalidArgumentError(
        "--cluster and --frontier cannot be combined: the frontier is either "
        "shared through Redis or served by a URLFrontier server");
  }
  if (!config.cluster.url.empty())
    return CreateClusterFrontier(config, *options, work_dir);
  if (!config.urlfrontier.url.empty())
    return CreateGrpcFrontier(config, *options, work_dir);
  absl::StatusOr<std::unique_ptr<Frontier>> frontier =
      Frontier::Create(*std::move(options));
  if (!frontier.ok()) return frontier.status();
  return std::unique_ptr<CrawlFrontier>(std::move(*frontier));
}

absl::StatusOr<std::unique_ptr<CrawlFrontier>> RestoreFrontier(
    const CrawlConfig& config, const std::filesystem::path& work_dir,
    const SnapshotReader& snapshot) {
  absl::StatusOr<FrontierOptions> options =
      MakeFrontierOptions(config, work_dir);
  if (!options.ok()) return options.status();
  // A cluster worker's state is in Redis: it restarts by joining again.
  if (!config.cluster.url.empty())
    return CreateClusterFrontier(config, *options, work_dir);
  // A URLFrontier client's state is on the server: it resumes by reconnecting.
  if (!config.urlfrontier.url.empty())
    return CreateGrpcFrontier(config, *options, work_dir);
  absl::StatusOr<std::unique_ptr<Frontier>> frontier =
      Frontier::Restore(snapshot, *std::move(options));
  if (!frontier.ok()) return frontier.status();
  return std::unique_ptr<CrawlFrontier>(std::move(*frontier));
}

UrlOptions MakeUrlOptions(const CrawlConfig& config) {
  UrlOptions o;
  o.drop_query_params = config.url.strip_query_params;
  o.drop_query_params.insert(o.drop_query_params.end(),
                             config.url.session_id_params.begin(),
                             config.url.session_id_params.end());
  o.sort_query = config.url.sort_query;
  o.drop_www = config.url.drop_www;
  return o;
}

PolitenessKeys MakePolitenessKeys(const CrawlConfig& config, DnsCache* dns) {
  return PolitenessKeys(config.politeness.key, dns,
                        absl::Seconds(config.fetch.connect_timeout));
}

std::string ClusterSharedSettings(const CrawlConfig& config) {
  return FormatConfigKeysOf(kClusterSeedCommand, config);
}

ScopeOptions MakeScopeOptions(const CrawlConfig& config) {
  ScopeOptions o;
  o.mode = config.crawl.scope;
  o.allow = config.crawl.allow;
  o.deny = config.crawl.deny;
  o.max_url_length = static_cast<size_t>(config.crawl.max_url_length);
  o.max_path_segment_repeats =
      static_cast<int>(config.crawl.max_path_segment_repeats);
  return o;
}

namespace {

// RFC 9309 2.2.1: a product token is letters, '_' and '-'.
bool IsProductToken(std::string_view token) {
  return !token.empty() && std::all_of(token.begin(), token.end(), [](char c) {
    return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_' ||
           c == '-';
  });
}

// The product name at the start of `text` ("SieveBot" of "SieveBot/0.1").
std::string_view ProductName(std::string_view text) {
  return text.substr(0, text.find_first_of("/ \t;)"));
}

}  // namespace

absl::StatusOr<std::string> RobotsToken(const CrawlConfig& config) {
  const std::string& configured = config.robots.token;
  if (!configured.empty()) {
    if (!IsProductToken(configured)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "robots.token '", configured,
          "' is not a product token (letters, '_' and '-' only: RFC 9309 "
          "2.2.1)"));
    }
    return configured;
  }
  const std::string& agent = config.fetch.user_agent;
  std::string_view name = ProductName(agent);
  if (name == "Mozilla") {
    // A browser-style User-Agent: the crawler names itself after
    // "compatible;" ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://...)"),
    // as Google, Bing and Yandex document for their crawlers.
    constexpr std::string_view kCompatible = "compatible;";
    const size_t at = agent.find(kCompatible);
    name = {};
    if (at != std::string_view::npos) {
      std::string_view rest =
          std::string_view(agent).substr(at + kCompatible.size());
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      name = ProductName(rest);
    }
    if (!IsProductToken(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fetch.user_agent '", agent,
          "' starts with Mozilla/ and names no crawler after 'compatible;': "
          "set robots.token (--robots-token) to the name robots.txt groups "
          "should match"));
    }
    return std::string(name);
  }
  if (!IsProductToken(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fetch.user_agent '", agent,
        "' does not start with a product token (letters, '_' and '-'): set "
        "robots.token (--robots-token)"));
  }
  return std::string(name);
}

}  // namespace sieve
