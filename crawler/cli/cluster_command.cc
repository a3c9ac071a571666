#include "crawler/cli/cluster_command.h"

#include <iostream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "crawler/cli/crawl_command.h"
#include "crawler/cli/seeds.h"
#include "crawler/config/config_keys.h"
#include "crawler/config/crawl_options.h"
#include "crawler/policy/link_policy.h"
#include "crawler/policy/politeness_key.h"
#include "fetch/dns_cache.h"
#include "nlohmann/json.hpp"
#include "parse/url.h"

namespace sieve {
namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

double AverageRate(const cluster::WorkerStats& w) {
  const double seconds =
      static_cast<double>(w.updated_ms - w.started_ms) / 1000.0;
  return seconds > 0 ? static_cast<double>(w.pages) / seconds : 0.0;
}

int Fail(const absl::Status& s) {
  std::cerr << "sieve cluster: " << s.message() << "\n";
  return s.code() == absl::StatusCode::kInvalidArgument ? kExitUsage
                                                        : kExitFailure;
}

int RunStatus(cluster::RedisClient& client, const cluster::ClusterKeys& keys,
              bool json) {
  absl::StatusOr<cluster::ClusterStatus> status =
      cluster::ReadClusterStatus(client, keys, absl::Now());
  if (!status.ok()) return Fail(status.status());
  std::cout << (json ? ClusterStatusToJson(*status) + "\n"
                     : FormatClusterStatus(*status));
  return 0;
}

// The seeds keyed exactly as a worker of the crawl keys its links: the
// crawl's URL normalisation and politeness.key (--config, --set and the keys'
// flags), which the crawl checks against those it was started with.
int RunSeed(cluster::RedisClient& client, const cluster::ClusterKeys& keys,
            const ParsedArgs& args) {
  absl::StatusOr<CrawlConfig> config = LoadCrawlConfig(args);
  if (!config.ok()) return Fail(config.status());
  const UrlOptions url_options = MakeUrlOptions(*config);
  absl::StatusOr<SeedList> list = ReadSeedFile(args.Get("seeds"), url_options);
  if (!list.ok()) return Fail(list.status());
  for (const std::string& problem : list->problems)
    std::cerr << "sieve cluster seed: skipped " << problem << "\n";
  absl::StatusOr<std::unique_ptr<DnsCache>> dns =
      DnsCache::Create(MakeFetchOptions(*config, {}).dns);
  if (!dns.ok()) return Fail(dns.status());
  const PolitenessKeys host_keys = MakePolitenessKeys(*config, dns->get());
  std::vector<UrlParts> urls;
  for (const std::string& url : list->urls) {
    absl::StatusOr<UrlParts> parts = SplitUrl(url, url_options);
    if (!parts.ok()) continue;
    host_keys.Prefetch(*parts);  // The lookups at once, not in turn.
    urls.push_back(*std::move(parts));
  }
  std::vector<cluster::SeedUrl> seeds;
  const std::string origin = Origin{}.Encode();
  for (const UrlParts& parts : urls)
    seeds.push_back({parts.normalized_url, host_keys.KeyOf(parts), origin});
  absl::StatusOr<uint64_t> queued =
      cluster::AddSeeds(client, keys, seeds, ClusterSharedSettings(*config));
  if (!queued.ok()) return Fail(queued.status());
  std::cout << "queued " << *queued << " of " << seeds.size()
            << " seeds in crawl " << keys.crawl_id() << " ("
            << seeds.size() - *queued << " seen before)\n";
  return 0;
}

}  // namespace

std::vector<FlagSpec> ClusterFlags() {
  std::vector<FlagSpec> flags = {
      {.name = "cluster",
       .value_name = "URL",
       .help = "the crawl's Redis: redis://HOST:PORT[/DB]"},
      {.name = "crawl-id", .value_name = "NAME", .help = "the crawl's name"},
      {.name = "seeds",
       .value_name = "FILE",
       .help = "seed: the URLs to add, one a line"},
      {.name = "config",
       .value_name = "FILE",
       .help = "seed: the crawl's TOML config: the seeds are normalised "
               "(url.*) and keyed (politeness.key) as its workers do"},
      {.name = "set",
       .value_name = "SECTION.KEY=VALUE",
       .help = "seed: a setting of the crawl's, as `sieve crawl --set`",
       .repeatable = true},
      {.name = "json",
       .value_name = "",
       .help = "status: print one JSON object"},
  };
  const CrawlConfig defaults;
  for (const ConfigKey& key : ConfigKeys()) {
    if (key.flag.empty() || (key.commands & kClusterSeedCommand) == 0) continue;
    flags.push_back({.name = std::string(key.flag),
                     .value_name = ConfigValueName(key),
                     .help = "seed: " + std::string(key.help),
                     .default_text = FormatConfigValue(key, defaults),
                     .config_path = std::string(key.path)});
  }
  return flags;
}

std::string FormatClusterStatus(const cluster::ClusterStatus& s) {
  std::map<std::string, uint32_t> held;
  uint32_t unowned = 0;
  for (const cluster::ShardStatus& shard : s.shards) {
    if (shard.owner.empty()) {
      ++unowned;
    } else {
      ++held[shard.owner];
    }
  }
  std::string out = absl::StrFormat(
      "crawl %s: %d shards, %d live workers (%d ever)\n", s.crawl_id,
      s.shard_count, s.live_workers, s.workers.size());
  absl::StrAppendFormat(&out, "  %-30s %d\n", "pages recorded", s.pages);
  absl::StrAppendFormat(&out, "  %-30s %d\n", "taken over (maybe twice)",
                        s.reclaimed);
  absl::StrAppendFormat(&out, "  %-30s %d / %d\n",
                        "queued / pending (read, unacked)", s.queued,
                        s.pending);
  absl::StrAppendFormat(&out, "  %-30s %.0f / %d (est. FPR %.2g)\n",
                        "filter count / capacity", s.filter.estimated_count,
                        s.filter.capacity, s.filter.estimated_fp_rate);
  absl::StrAppendFormat(&out, "  %-30s %d\n", "shards with no owner", unowned);
  absl::StrAppendFormat(&out, "\n  %-20s %-5s %7s %8s %10s %10s %9s\n",
                        "worker", "live", "shards", "pages", "pages/s now",
                        "pages/s avg", "taken over");
  for (const cluster::WorkerStats& w : s.workers) {
    absl::StrAppendFormat(
        &out, "  %-20s %-5s %7d %8d %10.1f %10.1f %9d\n", w.worker_id,
        w.live ? "yes" : "no", held.count(w.worker_id) ? held[w.worker_id] : 0,
        w.pages, w.live ? w.recent_rate : 0.0, AverageRate(w), w.reclaimed);
  }
  return out;
}

std::string ClusterStatusToJson(const cluster::ClusterStatus& s) {
  nlohmann::ordered_json j;
  j["crawl_id"] = s.crawl_id;
  j["shards"] = s.shard_count;
  j["live_workers"] = s.live_workers;
  j["pages"] = s.pages;
  j["reclaimed"] = s.reclaimed;
  j["redis_commands"] = s.commands;
  j["queued"] = s.queued;
  j["pending"] = s.pending;
  j["filter"] = {{"capacity", s.filter.capacity},
                 {"estimated_count", s.filter.estimated_count},
                 {"estimated_fp_rate", s.filter.estimated_fp_rate}};
  nlohmann::ordered_json owners = nlohmann::ordered_json::array();
  std::map<std::string, uint32_t> held;
  for (const cluster::ShardStatus& shard : s.shards) {
    owners.push_back({{"owner", shard.owner},
                      {"entries", shard.entries},
                      {"pending", shard.pending}});
    if (!shard.owner.empty()) ++held[shard.owner];
  }
  j["shard_owners"] = owners;
  nlohmann::ordered_json workers = nlohmann::ordered_json::array();
  for (const cluster::WorkerStats& w : s.workers) {
    workers.push_back(
        {{"id", w.worker_id},
         {"live", w.live},
         {"shards", held.count(w.worker_id) ? held[w.worker_id] : 0},
         {"pages", w.pages},
         {"pages_per_second_recent", w.recent_rate},
         {"pages_per_second", AverageRate(w)},
         {"dispatched", w.dispatched},
         {"added", w.added},
         {"duplicates", w.duplicates},
         {"reclaimed", w.reclaimed},
         {"redis_commands", w.commands}});
  }
  j["workers"] = workers;
  return j.dump(2);
}

int RunClusterCommand(const ParsedArgs& args) {
  if (args.positional.size() != 1 ||
      (args.positional[0] != "status" && args.positional[0] != "seed")) {
    std::cerr << "sieve cluster: give one action, status or seed (try 'sieve "
                 "help cluster')\n";
    return kExitUsage;
  }
  const std::string action = args.positional[0];
  if (!args.Has("cluster") || !args.Has("crawl-id")) {
    std::cerr << "sieve cluster " << action
              << ": needs --cluster URL and --crawl-id NAME\n";
    return kExitUsage;
  }
  if (action == "seed" && !args.Has("seeds")) {
    std::cerr << "sieve cluster seed: needs --seeds FILE\n";
    return kExitUsage;
  }
  absl::StatusOr<cluster::RedisEndpoint> endpoint =
      cluster::ParseRedisUrl(args.Get("cluster"));
  if (!endpoint.ok()) return Fail(endpoint.status());
  absl::StatusOr<cluster::ClusterKeys> keys =
      cluster::ClusterKeys::ForCrawl(args.Get("crawl-id"));
  if (!keys.ok()) return Fail(keys.status());
  absl::StatusOr<std::unique_ptr<cluster::RedisClient>> client =
      cluster::RedisClient::Connect(*endpoint, {});
  if (!client.ok()) return Fail(client.status());
  if (action == "status")
    return RunStatus(**client, *keys, args.Get("json") == "true");
  return RunSeed(**client, *keys, args);
}

}  // namespace sieve
