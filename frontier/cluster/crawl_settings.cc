#include "frontier/cluster/crawl_settings.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sieve::cluster {
namespace {

// KEYS[1]: the meta hash; ARGV[1]: the settings. Returns the stored ones.
constexpr char kSettingsScript[] = R"lua(
redis.call('HSETNX', KEYS[1], 'settings', ARGV[1])
return redis.call('HGET', KEYS[1], 'settings')
)lua";

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    if (end > 0) lines.emplace_back(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return lines;
}

// The lines of `a` that `b` lacks, joined by "; ".
std::string Missing(std::string_view a, std::string_view b) {
  const std::vector<std::string> theirs = Lines(b);
  std::vector<std::string> missing;
  for (std::string& line : Lines(a)) {
    if (std::find(theirs.begin(), theirs.end(), line) == theirs.end())
      missing.push_back(std::move(line));
  }
  return missing.empty() ? "(none)" : absl::StrJoin(missing, "; ");
}

}  // namespace

absl::Status CheckCrawlSettings(RedisClient& client, const ClusterKeys& keys,
                                std::string_view settings) {
  if (settings.empty()) return absl::OkStatus();
  absl::StatusOr<std::string> sha = client.RegisterScript(kSettingsScript);
  if (!sha.ok()) return sha.status();
  absl::StatusOr<RedisReply> stored = client.Command(
      {"EVALSHA", *sha, "1", keys.Meta(), std::string(settings)});
  if (!stored.ok()) return stored.status();
  if (stored->str == settings) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "crawl \"", keys.crawl_id(),
      "\" was started with other settings for URL normalisation and host "
      "keys: the crawl has ",
      Missing(stored->str, settings), "; here ", Missing(settings, stored->str),
      " (give every worker and `sieve cluster seed` the crawl's --config and "
      "--set)"));
}

}  // namespace sieve::cluster
