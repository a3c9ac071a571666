// crawler/config/crawl_options.h: maps the crawl's configuration (CrawlConfig,
// read from TOML and flags) onto each library's own Options struct. Only
// crawler/ knows the config format.
#ifndef SIEVE_CRAWLER_CONFIG_CRAWL_OPTIONS_H_
#define SIEVE_CRAWLER_CONFIG_CRAWL_OPTIONS_H_

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/config/crawl_config.h"
#include "crawler/policy/politeness_key.h"
#include "crawler/policy/scope.h"
#include "fetch/dns_cache.h"
#include "fetch/fetch_options.h"
#include "frontier/crawl_frontier.h"
#include "frontier/frontier.h"
#include "frontier/snapshot.h"
#include "parse/url.h"

namespace sieve {

// `seed_hosts`: the seeds' authorities ("host" or "host:port"), whose hosts
// may be fetched even on private addresses.
FetchOptions MakeFetchOptions(const CrawlConfig& config,
                              const std::vector<std::string>& seed_hosts);
// The frontier's politeness (FrontierOptions::politeness), which the revisit
// budget also plans with.
PolitenessOptions MakePolitenessOptions(const CrawlConfig& config);
// `work_dir` holds the Sieve's scratch store (spilled queue, lossless
// fingerprints).
absl::StatusOr<FrontierOptions> MakeFrontierOptions(
    const CrawlConfig& config, const std::filesystem::path& work_dir);
// The frontier a crawl drives, fresh or restored from a verified snapshot:
// the one place that chooses an implementation of CrawlFrontier (today the
// local Frontier).
absl::StatusOr<std::unique_ptr<CrawlFrontier>> CreateFrontier(
    const CrawlConfig& config, const std::filesystem::path& work_dir);
absl::StatusOr<std::unique_ptr<CrawlFrontier>> RestoreFrontier(
    const CrawlConfig& config, const std::filesystem::path& work_dir,
    const SnapshotReader& snapshot);
UrlOptions MakeUrlOptions(const CrawlConfig& config);
// The crawl's host keys (politeness.key), a kIp lookup waiting at most
// fetch.connect_timeout. REQUIRES: `dns` outlives the result; not null for
// kIp.
PolitenessKeys MakePolitenessKeys(const CrawlConfig& config, DnsCache* dns);
// What every worker of a --cluster crawl and `sieve cluster seed` must share
// (RedisFrontierOptions::shared_settings): the settings that make a URL's
// normal form and its host key (the keys `sieve cluster seed` takes, url.*
// and politeness.key), one "key = value" a line.
std::string ClusterSharedSettings(const CrawlConfig& config);
// The host of `authority` as the private-address guard compares it (no port):
// "127.0.0.1" of "127.0.0.1:8080", "[::1]" of "[::1]:80".
std::string GuardHost(std::string_view authority);
ScopeOptions MakeScopeOptions(const CrawlConfig& config);

// The product token robots.txt groups are matched against (RFC 9309 2.2.1):
// robots.token when set, else the User-Agent's product name ("SieveBot" of
// "SieveBot/0.1 (+url)"), or for a browser-style User-Agent the name after
// "compatible;" ("MyBot" of "Mozilla/5.0 (compatible; MyBot/1.0)").
// InvalidArgument, saying to set robots.token, when there is none: a
// "Mozilla/..." User-Agent naming no crawler would obey the rules for
// "Mozilla". Cost: O(|user_agent|).
absl::StatusOr<std::string> RobotsToken(const CrawlConfig& config);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CONFIG_CRAWL_OPTIONS_H_
