#include "frontier/cluster/keys.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace sieve::cluster {

absl::StatusOr<ClusterKeys> ClusterKeys::ForCrawl(std::string_view crawl_id) {
  bool ok = !crawl_id.empty() && crawl_id.size() <= 64;
  for (char c : crawl_id) {
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-');
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("crawl id \"", std::string(crawl_id),
                     "\": expected 1 to 64 of A-Z a-z 0-9 . _ -"));
  }
  return ClusterKeys(std::string(crawl_id));
}

std::string ClusterKeys::Meta() const {
  return absl::StrCat("sieve:{", id_, "}:meta");
}
std::string ClusterKeys::Fence() const {
  return absl::StrCat("sieve:{", id_, "}:fence");
}
std::string ClusterKeys::Workers() const {
  return absl::StrCat("sieve:{", id_, "}:workers");
}
std::string ClusterKeys::Load() const {
  return absl::StrCat("sieve:{", id_, "}:load");
}
std::string ClusterKeys::Rate() const {
  return absl::StrCat("sieve:{", id_, "}:rate");
}
std::string ClusterKeys::FilterBits(uint32_t shard, uint32_t key) const {
  return absl::StrCat("sieve:{", id_, ":s", shard, "}:f", key);
}
std::string ClusterKeys::FilterCount(uint32_t shard) const {
  return absl::StrCat("sieve:{", id_, ":s", shard, "}:n");
}
std::string ClusterKeys::Lease(uint32_t shard) const {
  return absl::StrCat("sieve:{", id_, ":s", shard, "}:lease");
}
std::string ClusterKeys::Queue(uint32_t shard) const {
  return absl::StrCat("sieve:{", id_, ":s", shard, "}:q");
}
std::string ClusterKeys::Stats() const {
  return absl::StrCat("sieve:{", id_, "}:stats");
}
std::string ClusterKeys::Clean(uint32_t shard) const {
  return absl::StrCat("sieve:{", id_, ":s", shard, "}:clean");
}

}  // namespace sieve::cluster
