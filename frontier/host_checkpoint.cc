// Frontier::Checkpoint and Frontier::Restore: the Sieve's snapshot and the
// Frontier's host state (frontier/host_snapshot.h) written side by side into
// one fresh directory, then published by atomically replacing a CURRENT file
// that names it.
//
// Layout of a checkpoint directory:
//   CURRENT                       "snapshot-<n>": the snapshot to restore
//   snapshot-<n>/sieve/           Sieve::Checkpoint's output (filter, FIFO,
//                                 counters)
//   snapshot-<n>/frontier.state   host queues (RAM and disk) with the URLs in
//                                 flight at their heads, crawl delays, dropped
//                                 hosts, counters
// Both halves are taken under the Frontier's mutex (no Next/Done) while
// Sieve::Checkpoint holds the Sieve's (no Add), so together they describe one
// instant: every URL is either in the Sieve's part or in a host queue of the
// Frontier's, never both, never neither.
#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontier/frontier.h"
#include "frontier/host_snapshot.h"
#include "frontier/internal/durable_file.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSnapshotPrefix = "snapshot-";
constexpr std::string_view kStateFile = "frontier.state";

// n of a "snapshot-<n>" name; 0 for other names.
uint64_t SnapshotNumber(std::string_view name) {
  if (!absl::StartsWith(AbslView(name), AbslView(kSnapshotPrefix))) return 0;
  name.remove_prefix(kSnapshotPrefix.size());
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
  return (ec == std::errc() && end == name.data() + name.size()) ? n : 0;
}

absl::Status FsError(std::string_view what, const fs::path& path,
                     const std::error_code& ec) {
  return absl::InternalError(
      absl::StrCat(AbslView(what), " ", path.string(), ": ", ec.message()));
}

}  // namespace

std::vector<uint64_t> Frontier::SnapshotCounters() const {
  return {counters_.dispatched,
          counters_.done,
          counters_.succeeded,
          counters_.throttled,
          counters_.failed,
          counters_.dropped_urls,
          counters_.crawl_delays_capped,
          counters_.budget_stalls,
          refused_for_dropped_host_.load(std::memory_order_relaxed)};
}

void Frontier::RestoreCounters(const std::vector<uint64_t>& c) {
  uint64_t* fields[] = {&counters_.dispatched,
                        &counters_.done,
                        &counters_.succeeded,
                        &counters_.throttled,
                        &counters_.failed,
                        &counters_.dropped_urls,
                        &counters_.crawl_delays_capped,
                        &counters_.budget_stalls};
  const size_t n = std::min(c.size(), std::size(fields));
  for (size_t i = 0; i < n; ++i) *fields[i] = c[i];
  if (c.size() > n)
    refused_for_dropped_host_.store(c[n], std::memory_order_relaxed);
}

absl::Status Frontier::Checkpoint(const fs::path& dir) {
  std::lock_guard lock(mu_);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return FsError("create", dir, ec);
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    checkpoint_seq_ =
        std::max(checkpoint_seq_, SnapshotNumber(e.path().filename().string()));
  }
  if (ec) return FsError("list", dir, ec);
  const std::string name =
      absl::StrCat(AbslView(kSnapshotPrefix), ++checkpoint_seq_);
  const fs::path snapshot_dir = dir / name;
  fs::remove_all(snapshot_dir,
                 ec);  // Left by a crash before its CURRENT was written.
  if (!fs::create_directory(snapshot_dir, ec) || ec) {
    return FsError("create", snapshot_dir, ec);
  }

  if (absl::Status s = sieve_->Checkpoint(snapshot_dir / "sieve"); !s.ok())
    return s;

  // The host queues, with each host's in-flight URLs put back at its head
  // (oldest first): a restored crawl fetches them again, as it has no record
  // that they finished.
  absl::flat_hash_map<const HostState*, std::vector<QueuedUrl>>
      in_flight_by_host;
  for (const auto& [url, flight] : in_flight_) {
    in_flight_by_host[flight.host].push_back(flight.entry);
  }
  HostSnapshot snapshot;
  snapshot.next_seq = next_seq_;
  snapshot.counters = SnapshotCounters();
  absl::Status overflow_status;
  hosts_.ForEach([&](const HostState& host) {
    auto flying = in_flight_by_host.find(&host);
    if (host.queue.empty() && host.overflow_count == 0 &&
        flying == in_flight_by_host.end() && !host.dropped &&
        host.politeness.crawl_delay == absl::ZeroDuration()) {
      return;
    }
    HostSnapshot::Host& out = snapshot.hosts.emplace_back();
    out.name = host.name;
    out.crawl_delay = host.politeness.crawl_delay;
    out.dropped = host.dropped;
    if (flying != in_flight_by_host.end()) {
      out.urls = std::move(flying->second);
      std::sort(
          out.urls.begin(), out.urls.end(),
          [](const QueuedUrl& a, const QueuedUrl& b) { return a.seq < b.seq; });
    }
    out.urls.insert(out.urls.end(), host.queue.begin(), host.queue.end());
    if (host.overflow_count > 0 && overflow_status.ok()) {
      absl::StatusOr<std::vector<QueuedUrl>> on_disk =
          overflow_.ReadAll(host.id);
      if (!on_disk.ok()) {
        overflow_status = on_disk.status();
        return;
      }
      out.urls.insert(out.urls.end(), on_disk->begin(), on_disk->end());
    }
  });
  if (!overflow_status.ok()) return overflow_status;
  std::sort(snapshot.hosts.begin(), snapshot.hosts.end(),
            [](const HostSnapshot::Host& a, const HostSnapshot::Host& b) {
              return a.name < b.name;
            });
  if (absl::Status s = internal::WriteFileAndSync(snapshot_dir / kStateFile,
                                                  EncodeHostSnapshot(snapshot));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = internal::SyncDirectory(snapshot_dir); !s.ok()) return s;
  if (absl::Status s = internal::SyncDirectory(dir); !s.ok()) return s;

  // Publish: CURRENT is replaced atomically, so a reader sees the old snapshot
  // or the new one.
  const fs::path current_tmp = dir / "CURRENT.tmp";
  if (absl::Status s =
          internal::WriteFileAndSync(current_tmp, absl::StrCat(name, "\n"));
      !s.ok())
    return s;
  fs::rename(current_tmp, dir / "CURRENT", ec);
  if (ec) return FsError("rename", current_tmp, ec);
  if (absl::Status s = internal::SyncDirectory(dir); !s.ok()) return s;

  // Older snapshots are garbage now; failing to remove one costs disk, not
  // correctness.
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string entry_name = e.path().filename().string();
    if (SnapshotNumber(entry_name) != 0 && entry_name != name) {
      std::error_code ignored;
      fs::remove_all(e.path(), ignored);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Frontier>> Frontier::Restore(
    const fs::path& dir, FrontierOptions options) {
  absl::StatusOr<std::string> current =
      internal::ReadWholeFile(dir / "CURRENT");
  if (!current.ok()) return current.status();
  const std::string name(absl::StripAsciiWhitespace(*current));
  if (SnapshotNumber(name) == 0) {
    return absl::DataLossError(
        absl::StrCat("bad CURRENT in ", dir.string(), ": ", name));
  }
  if (absl::Status s = Validate(options); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<Sieve>> sieve =
      Sieve::Restore(dir / name / "sieve", options.sieve);
  if (!sieve.ok()) return sieve.status();
  absl::StatusOr<std::string> bytes =
      internal::ReadWholeFile(dir / name / kStateFile);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<HostSnapshot> snapshot = DecodeHostSnapshot(*bytes);
  if (!snapshot.ok()) return snapshot.status();

  std::unique_ptr<Frontier> frontier(
      new Frontier(std::move(options), std::move(*sieve)));
  std::lock_guard lock(frontier->mu_);
  frontier->next_seq_ = snapshot->next_seq;
  frontier->checkpoint_seq_ = SnapshotNumber(name);
  frontier->RestoreCounters(snapshot->counters);
  for (HostSnapshot::Host& saved : snapshot->hosts) {
    HostState& host = frontier->hosts_.GetOrCreate(saved.name);
    RecordCrawlDelay(frontier->options_.politeness, saved.crawl_delay,
                     host.politeness);
    if (saved.dropped) {
      host.dropped = true;
      std::lock_guard dropped_lock(frontier->dropped_mu_);
      frontier->dropped_hosts_.insert(saved.name);
    }
    for (QueuedUrl& url : saved.urls) frontier->Enqueue(host, std::move(url));
    frontier->Touch(host, absl::InfinitePast());
  }
  return frontier;
}

}  // namespace sieve
