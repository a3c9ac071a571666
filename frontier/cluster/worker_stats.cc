#include "frontier/cluster/worker_stats.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace sieve::cluster {

std::string EncodeWorkerStats(const WorkerStats& s) {
  return absl::StrFormat(
      "started_ms=%d updated_ms=%d pages=%d dispatched=%d added=%d "
      "duplicates=%d reclaimed=%d shards=%d commands=%d lease_ms=%d "
      "recent_rate=%.3f",
      s.started_ms, s.updated_ms, s.pages, s.dispatched, s.added, s.duplicates,
      s.reclaimed, s.shards, s.commands, s.lease_ms, s.recent_rate);
}

absl::StatusOr<WorkerStats> DecodeWorkerStats(std::string_view worker_id,
                                              std::string_view text) {
  WorkerStats s;
  s.worker_id = std::string(worker_id);
  const std::string all(text);
  for (absl::string_view pair : absl::StrSplit(all, ' ', absl::SkipEmpty())) {
    const size_t eq = pair.find('=');
    if (eq == absl::string_view::npos) continue;
    const std::string key(pair.substr(0, eq));
    const std::string value(pair.substr(eq + 1));
    bool ok = true;
    if (key == "started_ms") {
      ok = absl::SimpleAtoi(value, &s.started_ms);
    } else if (key == "updated_ms") {
      ok = absl::SimpleAtoi(value, &s.updated_ms);
    } else if (key == "pages") {
      ok = absl::SimpleAtoi(value, &s.pages);
    } else if (key == "dispatched") {
      ok = absl::SimpleAtoi(value, &s.dispatched);
    } else if (key == "added") {
      ok = absl::SimpleAtoi(value, &s.added);
    } else if (key == "duplicates") {
      ok = absl::SimpleAtoi(value, &s.duplicates);
    } else if (key == "reclaimed") {
      ok = absl::SimpleAtoi(value, &s.reclaimed);
    } else if (key == "shards") {
      ok = absl::SimpleAtoi(value, &s.shards);
    } else if (key == "commands") {
      ok = absl::SimpleAtoi(value, &s.commands);
    } else if (key == "lease_ms") {
      ok = absl::SimpleAtoi(value, &s.lease_ms);
    } else if (key == "recent_rate") {
      ok = absl::SimpleAtod(value, &s.recent_rate);
    }
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("cluster: bad ", key, " \"", value,
                       "\" in the stats of worker ", s.worker_id));
    }
  }
  return s;
}

}  // namespace sieve::cluster
