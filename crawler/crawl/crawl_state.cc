#include "crawler/crawl/crawl_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"

namespace sieve {
namespace {

namespace fs = std::filesystem;

// One field per line; clang-format 14 reflows X-macro lists differently on
// every pass.
// clang-format off
#define SIEVE_COUNTER_FIELDS(X) \
  X(pages)                      \
  X(pages_ok)                   \
  X(redirects)                  \
  X(http_errors)                \
  X(fetch_errors)               \
  X(too_many_redirects)         \
  X(html_pages)                 \
  X(truncated)                  \
  X(bytes)                      \
  X(links_found)                \
  X(links_new)                  \
  X(nofollow_pages)             \
  X(nofollow_links)             \
  X(noindex_pages)              \
  X(off_site)                   \
  X(filtered)                   \
  X(traps)                      \
  X(beyond_depth)               \
  X(robots_fetches)             \
  X(robots_disallowed)          \
  X(throttled)                  \
  X(capacity_warnings)          \
  X(run_seconds)
// clang-format on

void CountersFromJson(const nlohmann::json& j, CrawlCounters& c) {
#define SIEVE_READ(name) \
  if (j.contains(#name)) j.at(#name).get_to(c.name);
  SIEVE_COUNTER_FIELDS(SIEVE_READ)
#undef SIEVE_READ
}

absl::Status Errno(const std::string& what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

// Writes `text` to `path` and fsyncs it.
absl::Status WriteFileSynced(const fs::path& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno(absl::StrCat("creating ", path.string()));
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return Errno(absl::StrCat("writing ", path.string()));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    return Errno(absl::StrCat("syncing ", path.string()));
  }
  ::close(fd);
  return absl::OkStatus();
}

absl::Status SyncDirectory(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno(absl::StrCat("opening ", dir.string()));
  int rc = ::fsync(fd);
  ::close(fd);
  return rc == 0 ? absl::OkStatus()
                 : Errno(absl::StrCat("syncing ", dir.string()));
}

std::string SnapshotName(uint64_t sequence) {
  return absl::StrFormat("ckpt-%06d", sequence);
}

}  // namespace

nlohmann::json CountersToJson(const CrawlCounters& c) {
  nlohmann::ordered_json j;
#define SIEVE_WRITE(name) j[#name] = c.name;
  SIEVE_COUNTER_FIELDS(SIEVE_WRITE)
#undef SIEVE_WRITE
  return j;
}

absl::Status WriteCheckpoint(const fs::path& dir, const CrawlState& state,
                             Frontier& frontier) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return absl::InternalError(
        absl::StrCat("creating ", dir.string(), ": ", ec.message()));
  const std::string name = SnapshotName(state.sequence);
  const fs::path snapshot = dir / name;
  fs::remove_all(snapshot,
                 ec);  // Left over by a crash during an earlier attempt.
  fs::create_directories(snapshot, ec);
  if (ec)
    return absl::InternalError(absl::StrCat("creating ", snapshot.string()));

  if (absl::Status s = frontier.Checkpoint(snapshot / "frontier"); !s.ok())
    return s;
  nlohmann::json j;
  j["pages_offset"] = state.pages_offset;
  j["sequence"] = state.sequence;
  j["counters"] = CountersToJson(state.counters);
  j["seed_hosts"] = state.seed_hosts;
  j["pages_per_host"] = state.pages_per_host;
  if (absl::Status s = WriteFileSynced(snapshot / "state.json", j.dump());
      !s.ok())
    return s;
  if (absl::Status s = SyncDirectory(snapshot); !s.ok()) return s;
  if (absl::Status s = SyncDirectory(dir); !s.ok()) return s;

  // Publish: CURRENT.tmp, fsync, rename over CURRENT, fsync the directory.
  if (absl::Status s = WriteFileSynced(dir / "CURRENT.tmp", name + "\n");
      !s.ok())
    return s;
  if (::rename((dir / "CURRENT.tmp").c_str(), (dir / "CURRENT").c_str()) != 0) {
    return Errno("publishing checkpoint");
  }
  if (absl::Status s = SyncDirectory(dir); !s.ok()) return s;

  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string other = entry.path().filename().string();
    if (other != name && absl::StartsWith(other, "ckpt-"))
      fs::remove_all(entry.path(), ec);
  }
  return absl::OkStatus();
}

absl::StatusOr<RestoredCrawl> ReadCheckpoint(const fs::path& dir,
                                             FrontierOptions options) {
  std::ifstream current(dir / "CURRENT");
  std::string name;
  if (!current || !std::getline(current, name) || name.empty()) {
    return absl::NotFoundError(absl::StrCat("no checkpoint in ", dir.string()));
  }
  const fs::path snapshot = dir / name;
  std::ifstream in(snapshot / "state.json");
  if (!in)
    return absl::DataLossError(
        absl::StrCat(snapshot.string(), "/state.json is missing"));
  RestoredCrawl restored;
  try {
    nlohmann::json j = nlohmann::json::parse(in);
    restored.state.pages_offset = j.at("pages_offset").get<uint64_t>();
    restored.state.sequence = j.at("sequence").get<uint64_t>();
    CountersFromJson(j.at("counters"), restored.state.counters);
    restored.state.seed_hosts =
        j.at("seed_hosts").get<std::vector<std::string>>();
    restored.state.pages_per_host =
        j.at("pages_per_host").get<std::map<std::string, uint64_t>>();
  } catch (const nlohmann::json::exception& e) {
    return absl::DataLossError(
        absl::StrCat(snapshot.string(), "/state.json: ", e.what()));
  }
  absl::StatusOr<std::unique_ptr<Frontier>> frontier =
      Frontier::Restore(snapshot / "frontier", std::move(options));
  if (!frontier.ok()) return frontier.status();
  restored.frontier = std::move(*frontier);
  return restored;
}

}  // namespace sieve
